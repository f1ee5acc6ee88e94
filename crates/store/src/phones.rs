//! The user's paired phones and whether phones may reach the hub (the rules are the hub's, `phone/`):
//! only the SHA-256 of a phone's token is stored, so a copy of the database lets no one in.

use clawmux_core::Millis;
use sqlx::Row;

use crate::{Store, StoreError};

/// A paired phone as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhoneRow {
    /// Its id (not secret).
    pub id: String,
    /// The name it gave, or the user did.
    pub name: String,
    /// When it was paired.
    pub paired_at: Millis,
    /// When it was last let in.
    pub used_at: Option<Millis>,
    /// When it was revoked.
    pub revoked_at: Option<Millis>,
}

/// What a [`PhoneRow`] is read from.
const PHONE: &str = "SELECT id, name, paired_at, used_at, revoked_at FROM phones";

fn row(r: &sqlx::sqlite::SqliteRow) -> Result<PhoneRow, StoreError> {
    Ok(PhoneRow {
        id: r.try_get("id")?,
        name: r.try_get("name")?,
        paired_at: Millis(r.try_get("paired_at")?),
        used_at: r.try_get::<Option<i64>, _>("used_at")?.map(Millis),
        revoked_at: r.try_get::<Option<i64>, _>("revoked_at")?.map(Millis),
    })
}

/// A phone's push subscription as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushRow {
    /// The phone.
    pub phone: String,
    /// Where its push service takes pushes.
    pub endpoint: String,
    /// Its public key (65 bytes).
    pub p256dh: Vec<u8>,
    /// Its authentication secret (16 bytes).
    pub auth: Vec<u8>,
}

impl Store {
    /// Keeps a phone's push subscription (a new one replaces the old).
    pub async fn set_phone_push(&self, push: &PushRow) -> Result<(), StoreError> {
        let mut w = self.write().await;
        sqlx::query(
            "UPDATE phones SET push_endpoint = ?2, push_p256dh = ?3, push_auth = ?4 WHERE id = ?1",
        )
        .bind(&push.phone)
        .bind(&push.endpoint)
        .bind(&push.p256dh)
        .bind(&push.auth)
        .execute(&mut w.conn)
        .await?;
        Ok(())
    }

    /// The push subscriptions of the phones not revoked.
    pub async fn phone_pushes(&self) -> Result<Vec<PushRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, push_endpoint, push_p256dh, push_auth FROM phones \
             WHERE revoked_at IS NULL AND push_endpoint IS NOT NULL ORDER BY id",
        )
        .fetch_all(&self.reader)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(PushRow {
                    phone: r.try_get("id")?,
                    endpoint: r.try_get("push_endpoint")?,
                    p256dh: r.try_get("push_p256dh")?,
                    auth: r.try_get("push_auth")?,
                })
            })
            .collect()
    }

    /// Whether phones may reach the hub.
    pub async fn phones_on(&self) -> Result<bool, StoreError> {
        let on: i64 = sqlx::query_scalar("SELECT on_ FROM phone_settings WHERE id = 1")
            .fetch_one(&self.reader)
            .await?;
        Ok(on == 1)
    }

    /// Lets phones reach the hub, or not.
    pub async fn set_phones_on(&self, on: bool) -> Result<(), StoreError> {
        let mut w = self.write().await;
        sqlx::query("UPDATE phone_settings SET on_ = ?1 WHERE id = 1")
            .bind(i64::from(on))
            .execute(&mut w.conn)
            .await?;
        Ok(())
    }

    /// Where the hub listens for phones itself (the hub's JSON), if anywhere.
    pub async fn phone_address(&self) -> Result<Option<String>, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT address FROM phone_settings WHERE id = 1")
                .fetch_one(&self.reader)
                .await?,
        )
    }

    /// Sets, or with `None` clears, where the hub listens for phones itself.
    pub async fn set_phone_address(&self, address: Option<&str>) -> Result<(), StoreError> {
        let mut w = self.write().await;
        sqlx::query("UPDATE phone_settings SET address = ?1 WHERE id = 1")
            .bind(address)
            .execute(&mut w.conn)
            .await?;
        Ok(())
    }

    /// Who runs the hub, as pushes name it, if the user said.
    pub async fn push_contact(&self) -> Result<Option<String>, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT push_contact FROM phone_settings WHERE id = 1")
                .fetch_one(&self.reader)
                .await?,
        )
    }

    /// Sets, or with `None` clears, who runs the hub, as pushes name it.
    pub async fn set_push_contact(&self, contact: Option<&str>) -> Result<(), StoreError> {
        let mut w = self.write().await;
        sqlx::query("UPDATE phone_settings SET push_contact = ?1 WHERE id = 1")
            .bind(contact)
            .execute(&mut w.conn)
            .await?;
        Ok(())
    }

    /// Keeps a newly paired phone.
    pub async fn add_phone(
        &self,
        id: &str,
        name: &str,
        token_hash: &[u8; 32],
        at: Millis,
    ) -> Result<PhoneRow, StoreError> {
        let mut w = self.write().await;
        sqlx::query("INSERT INTO phones (id, name, token_hash, paired_at) VALUES (?1, ?2, ?3, ?4)")
            .bind(id)
            .bind(name)
            .bind(&token_hash[..])
            .bind(at.0)
            .execute(&mut w.conn)
            .await?;
        Ok(PhoneRow {
            id: id.to_owned(),
            name: name.to_owned(),
            paired_at: at,
            used_at: None,
            revoked_at: None,
        })
    }

    /// Every phone ever paired, the newest first.
    pub async fn phones(&self) -> Result<Vec<PhoneRow>, StoreError> {
        sqlx::query(&format!("{PHONE} ORDER BY paired_at DESC, id"))
            .fetch_all(&self.reader)
            .await?
            .iter()
            .map(row)
            .collect()
    }

    /// The phone whose token has this hash, revoked or not.
    pub async fn phone_by_token(
        &self,
        token_hash: &[u8; 32],
    ) -> Result<Option<PhoneRow>, StoreError> {
        sqlx::query(&format!("{PHONE} WHERE token_hash = ?1"))
            .bind(&token_hash[..])
            .fetch_optional(&self.reader)
            .await?
            .as_ref()
            .map(row)
            .transpose()
    }

    /// The phone `id`, revoked or not.
    pub async fn phone(&self, id: &str) -> Result<Option<PhoneRow>, StoreError> {
        sqlx::query(&format!("{PHONE} WHERE id = ?1"))
            .bind(id)
            .fetch_optional(&self.reader)
            .await?
            .as_ref()
            .map(row)
            .transpose()
    }

    /// Notes that a phone was let in at `at`.
    pub async fn phone_used(&self, id: &str, at: Millis) -> Result<(), StoreError> {
        let mut w = self.write().await;
        sqlx::query("UPDATE phones SET used_at = ?2 WHERE id = ?1")
            .bind(id)
            .bind(at.0)
            .execute(&mut w.conn)
            .await?;
        Ok(())
    }

    /// Revokes a phone (a second revocation keeps the first time); whether there was such a phone.
    pub async fn revoke_phone(&self, id: &str, at: Millis) -> Result<bool, StoreError> {
        let mut w = self.write().await;
        let done =
            sqlx::query("UPDATE phones SET revoked_at = coalesce(revoked_at, ?2) WHERE id = ?1")
                .bind(id)
                .bind(at.0)
                .execute(&mut w.conn)
                .await?;
        Ok(done.rows_affected() == 1)
    }
}
