//! The inbox: messages addressed to an agent that it has not been handed yet.
//!
//! A hand-over takes every pending message at once, records one `handovers` row per message and moves the
//! agent's `inbox_cursor`, all in one transaction on the single writer. `handovers.message_seq` is UNIQUE,
//! so even a bug above this layer could not hand a message over twice: the transaction would fail. A
//! `clawmux ask` takes its one answer out of order (`between.rs`) without moving the cursor, so the inbox is
//! what lies past the cursor and has no hand-over row.

use clawmux_core::wire::Message;
use clawmux_core::Millis;

use sqlx::Connection;
use sqlx::SqliteConnection;

use crate::messages::{message_from_row, page_from_json, page_sql, MESSAGE_COLUMNS};
use crate::{Store, StoreError};

/// How a message reached the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    /// Printed by `clawmux wait`.
    Wait,
    /// As a tool hook's additionalContext.
    Hook,
    /// Printed by the Stop hook.
    StopHook,
    /// The one answer a `clawmux ask` waited for, printed as its output.
    Ask,
}

impl Channel {
    fn as_str(self) -> &'static str {
        match self {
            Channel::Wait => "wait",
            Channel::Hook => "hook",
            Channel::StopHook => "stop_hook",
            Channel::Ask => "ask",
        }
    }
}

impl Store {
    /// Hands every pending message of `agent`'s inbox over through `channel`, oldest first, and records it,
    /// in one transaction. Returns them (empty when there was nothing).
    pub async fn take_inbox(
        &self,
        agent: &str,
        channel: Channel,
        at: Millis,
    ) -> Result<Vec<Message>, StoreError> {
        let mut writer = self.write().await;
        let mut tx = writer.conn.begin().await?;
        let messages = pending_in(&mut tx, agent).await?;
        record(&mut tx, agent, &messages, channel, at).await?;
        tx.commit().await?;
        Ok(messages)
    }

    /// The pending messages, without taking them: for a consumer that records the hand-over only once the
    /// receiver confirmed it ([`Store::hand_over`]). The caller must keep other consumers out meanwhile.
    pub async fn peek_inbox(&self, agent: &str) -> Result<Vec<Message>, StoreError> {
        let mut conn = self.reader.acquire().await?;
        pending_in(&mut conn, agent).await
    }

    /// Records that `messages` (from [`Store::peek_inbox`]) were handed over. Fails, recording nothing, if
    /// any of them was handed over already.
    pub async fn hand_over(
        &self,
        agent: &str,
        messages: &[Message],
        channel: Channel,
        at: Millis,
    ) -> Result<(), StoreError> {
        let mut writer = self.write().await;
        let mut tx = writer.conn.begin().await?;
        record(&mut tx, agent, messages, channel, at).await?;
        tx.commit().await?;
        Ok(())
    }

    /// The last message handed over to `agent`, if any: what it was working on when its turn was cut off.
    pub async fn last_handed(&self, agent: &str) -> Result<Option<Message>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {MESSAGE_COLUMNS} FROM messages \
             WHERE seq = (SELECT MAX(message_seq) FROM handovers WHERE agent = ?1)"
        ))
        .bind(agent)
        .fetch_optional(&self.reader)
        .await?;
        row.as_ref().map(message_from_row).transpose()
    }

    /// How many messages wait in an agent's inbox, without taking them.
    pub async fn pending(&self, agent: &str) -> Result<i64, StoreError> {
        let n: Option<i64> = sqlx::query_scalar(
            "SELECT (SELECT COUNT(*) FROM messages m WHERE m.recipient = a.name AND m.seq > a.inbox_cursor \
             AND NOT EXISTS (SELECT 1 FROM handovers h WHERE h.message_seq = m.seq)) \
             FROM agents a WHERE a.name = ?1",
        )
        .bind(agent)
        .fetch_optional(&self.reader)
        .await?;
        n.ok_or_else(|| StoreError::UnknownAgent(agent.to_owned()))
    }
}

async fn pending_in(conn: &mut SqliteConnection, agent: &str) -> Result<Vec<Message>, StoreError> {
    let cursor: i64 = sqlx::query_scalar("SELECT inbox_cursor FROM agents WHERE name = ?1")
        .bind(agent)
        .fetch_optional(&mut *conn)
        .await?
        .ok_or_else(|| StoreError::UnknownAgent(agent.to_owned()))?;
    let json: String = sqlx::query_scalar(&page_sql(
        "SELECT * FROM messages m WHERE recipient = ?1 AND seq > ?2 \
         AND NOT EXISTS (SELECT 1 FROM handovers h WHERE h.message_seq = m.seq) ORDER BY seq",
    ))
    .bind(agent)
    .bind(cursor)
    .fetch_one(&mut *conn)
    .await?;
    page_from_json(&json)
}

async fn record(
    conn: &mut SqliteConnection,
    agent: &str,
    messages: &[Message],
    channel: Channel,
    at: Millis,
) -> Result<(), StoreError> {
    let Some(last) = messages.iter().map(|m| m.seq).max() else {
        return Ok(());
    };
    for m in messages {
        sqlx::query(
            "INSERT INTO handovers (message_seq, agent, channel, at) VALUES (?1, ?2, ?3, ?4)",
        )
        .bind(m.seq)
        .bind(agent)
        .bind(channel.as_str())
        .bind(at.0)
        .execute(&mut *conn)
        .await?;
    }
    sqlx::query("UPDATE agents SET inbox_cursor = MAX(inbox_cursor, ?2) WHERE name = ?1")
        .bind(agent)
        .bind(last)
        .execute(&mut *conn)
        .await?;
    Ok(())
}
