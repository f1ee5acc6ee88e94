//! Leads: which agent answers which member's permission requests, for which tools (`clawmux_core::lead`).

use clawmux_core::lead::Grant;
use clawmux_core::Millis;
use sqlx::sqlite::SqliteRow;
use sqlx::{Connection, Row};

use crate::{Store, StoreError};

fn grant_from_row(row: &SqliteRow) -> Result<Grant, StoreError> {
    let tools: String = row.try_get("tools")?;
    Ok(Grant {
        member: row.try_get("member")?,
        lead: row.try_get("lead")?,
        tools: serde_json::from_str(&tools)
            .map_err(|e| StoreError::Corrupt(format!("a lead's tools: {e}")))?,
        since: Millis(row.try_get("since")?),
    })
}

impl Store {
    /// Makes `lead` the lead of `members` for `tools`, in one transaction (a member's earlier lead is
    /// replaced). Returns every grant.
    pub async fn set_lead(
        &self,
        lead: &str,
        members: &[String],
        tools: &[String],
        at: Millis,
    ) -> Result<Vec<Grant>, StoreError> {
        let tools = serde_json::to_string(tools)
            .map_err(|e| StoreError::Corrupt(format!("a lead's tools: {e}")))?;
        {
            let mut writer = self.write().await;
            let mut tx = writer.conn.begin().await?;
            for member in members {
                sqlx::query(
                    "INSERT INTO leads (member, lead, tools, since) VALUES (?1, ?2, ?3, ?4) \
                     ON CONFLICT (member) DO UPDATE SET lead = ?2, tools = ?3, since = ?4",
                )
                .bind(member)
                .bind(lead)
                .bind(&tools)
                .bind(at.0)
                .execute(&mut *tx)
                .await?;
            }
            tx.commit().await?;
        }
        self.leads().await
    }

    /// Takes the right back from `lead`, for every member. Returns every grant left.
    pub async fn revoke_lead(&self, lead: &str) -> Result<Vec<Grant>, StoreError> {
        {
            let mut writer = self.write().await;
            sqlx::query("DELETE FROM leads WHERE lead = ?1")
                .bind(lead)
                .execute(&mut writer.conn)
                .await?;
        }
        self.leads().await
    }

    /// Every grant, by member.
    pub async fn leads(&self) -> Result<Vec<Grant>, StoreError> {
        let rows = sqlx::query("SELECT member, lead, tools, since FROM leads ORDER BY member")
            .fetch_all(&self.reader)
            .await?;
        rows.iter().map(grant_from_row).collect()
    }

    /// `member`'s lead, if it has one.
    pub async fn lead_of(&self, member: &str) -> Result<Option<Grant>, StoreError> {
        let row = sqlx::query("SELECT member, lead, tools, since FROM leads WHERE member = ?1")
            .bind(member)
            .fetch_optional(&self.reader)
            .await?;
        row.as_ref().map(grant_from_row).transpose()
    }
}
