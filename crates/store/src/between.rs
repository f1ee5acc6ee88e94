//! What passes between agents: each message's delivery read from its own records (its hand-over row, its
//! `seen` row, the message that answers it), the threads and which are closed, and the one reply a
//! `clawmux ask` takes out of its inbox's order.
//!
//! A thread is every message whose conversation is one agent's and whose sender is the other: an agent's
//! message to another is stored in the recipient's conversation, an acknowledgement kept as such too.

use clawmux_core::between::{Closed, Delivery, Pair, Passed, ThreadSummary};
use clawmux_core::wire::{Kind, Message, MsgId};
use clawmux_core::Millis;
use sqlx::sqlite::SqliteRow;
use sqlx::{Connection, Row};

use crate::messages::{message_from_row, MESSAGE_COLUMNS};

/// The key prefix of a message an agent here sent to another machine's agent, kept in its own conversation
/// after that machine's hub stored it (`away:<machine>:<its id there>`): not an answer kept for that
/// machine to take.
pub const SENT_AWAY: &str = "away:";
use crate::{Store, StoreError};

/// The columns of a thread's message with its delivery records; `m` is the message.
fn passed_sql(filter: &str) -> String {
    let columns: Vec<String> = MESSAGE_COLUMNS
        .split(", ")
        .map(|c| format!("m.{c}"))
        .collect();
    format!(
        "SELECT {}, h.at AS handed_at, s.at AS seen_at, \
         (SELECT r.id FROM messages r WHERE r.parent = m.id AND r.sender = m.agent AND r.kind = 'agent' \
         ORDER BY r.seq LIMIT 1) \
         AS answered_by \
         FROM messages m LEFT JOIN handovers h ON h.message_seq = m.seq \
         LEFT JOIN seen s ON s.message_seq = m.seq WHERE {filter}",
        columns.join(", ")
    )
}

fn passed_from_row(row: &SqliteRow) -> Result<Passed, StoreError> {
    let message = message_from_row(row)?;
    let handed_at: Option<i64> = row.try_get("handed_at")?;
    let seen_at: Option<i64> = row.try_get("seen_at")?;
    let answered_by: Option<String> = row.try_get("answered_by")?;
    let answered_by = answered_by
        .map(|id| MsgId::parse(&id).map_err(|_| StoreError::Corrupt(format!("answer id `{id}`"))))
        .transpose()?;
    let delivery = Delivery::of(
        matches!(message.kind, Kind::Agent | Kind::User),
        handed_at.is_some(),
        seen_at.is_some(),
        answered_by.is_some(),
    );
    Ok(Passed {
        message,
        delivery,
        handed_at: handed_at.map(Millis),
        seen_at: seen_at.map(Millis),
        answered_by,
    })
}

impl Store {
    /// Records that `agent`'s model received the messages `ids` (their ids were in its transcript).
    /// Returns the ones not seen before; an id that is not a message to `agent` is ignored.
    pub async fn mark_seen(
        &self,
        agent: &str,
        ids: &[MsgId],
        at: Millis,
    ) -> Result<Vec<MsgId>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut writer = self.write().await;
        let mut tx = writer.conn.begin().await?;
        let mut newly = Vec::new();
        for id in ids {
            let done = sqlx::query(
                "INSERT OR IGNORE INTO seen (message_seq, at) \
                 SELECT seq, ?3 FROM messages WHERE id = ?1 AND recipient = ?2",
            )
            .bind(id.as_str())
            .bind(agent)
            .bind(at.0)
            .execute(&mut *tx)
            .await?;
            if done.rows_affected() == 1 {
                newly.push(id.clone());
            }
        }
        tx.commit().await?;
        Ok(newly)
    }

    /// Hands over to `agent` the first answer to its message `re` that is not handed over yet, through a
    /// `clawmux ask`, and returns it; the messages before it in the inbox stay for the next wait or hook.
    pub async fn take_answer(
        &self,
        agent: &str,
        re: &MsgId,
        at: Millis,
    ) -> Result<Option<Message>, StoreError> {
        let mut writer = self.write().await;
        let mut tx = writer.conn.begin().await?;
        let row = sqlx::query(&format!(
            "SELECT {MESSAGE_COLUMNS} FROM messages m WHERE m.parent = ?1 AND m.recipient = ?2 \
             AND m.kind = 'agent' \
             AND NOT EXISTS (SELECT 1 FROM handovers h WHERE h.message_seq = m.seq) \
             ORDER BY m.seq LIMIT 1"
        ))
        .bind(re.as_str())
        .bind(agent)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let answer = message_from_row(&row)?;
        sqlx::query(
            "INSERT INTO handovers (message_seq, agent, channel, at) VALUES (?1, ?2, 'ask', ?3)",
        )
        .bind(answer.seq)
        .bind(agent)
        .bind(at.0)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Some(answer))
    }

    /// The last `limit` messages of a thread, oldest first, each with its delivery: the two agents'
    /// messages to each other, and the user's words answering one of them (`thread_reply`).
    pub async fn thread(&self, pair: &Pair, limit: i64) -> Result<Vec<Passed>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT * FROM ({} ORDER BY m.seq DESC LIMIT ?3) ORDER BY seq",
            passed_sql(
                "m.agent IN (?1, ?2) AND ((m.kind IN ('agent', 'ack') AND m.sender IN (?1, ?2) \
                 AND m.sender <> m.agent) \
                 OR (m.kind = 'user' AND m.parent IN (SELECT t.id FROM messages t \
                   WHERE t.agent IN (?1, ?2) AND t.kind = 'agent' AND t.sender IN (?1, ?2) \
                   AND t.sender <> t.agent)))"
            )
        ))
        .bind(&pair.a)
        .bind(&pair.b)
        .bind(limit)
        .fetch_all(&self.reader)
        .await?;
        rows.iter().map(passed_from_row).collect()
    }

    /// One message between agents with its delivery, if `id` is one.
    pub async fn passed(&self, id: &MsgId) -> Result<Option<Passed>, StoreError> {
        let row = sqlx::query(&passed_sql(
            "m.id = ?1 AND m.kind IN ('agent', 'ack') AND m.sender <> m.agent",
        ))
        .bind(id.as_str())
        .fetch_optional(&self.reader)
        .await?;
        row.as_ref().map(passed_from_row).transpose()
    }

    /// Every thread that has a message, the latest first.
    pub async fn threads(&self) -> Result<Vec<ThreadSummary>, StoreError> {
        let rows = sqlx::query(
            "SELECT t.a, t.b, t.n, t.queued, t.last_at, c.closer, c.at AS closed_at FROM ( \
                SELECT MIN(m.agent, m.sender) AS a, MAX(m.agent, m.sender) AS b, COUNT(*) AS n, \
                  SUM(m.kind = 'agent' AND NOT EXISTS \
                    (SELECT 1 FROM handovers h WHERE h.message_seq = m.seq)) AS queued, \
                  MAX(m.at) AS last_at \
                FROM messages m WHERE m.kind IN ('agent', 'ack') AND m.sender <> m.agent \
                  AND m.sender <> 'user' GROUP BY 1, 2) t \
             LEFT JOIN threads_closed c ON c.a = t.a AND c.b = t.b ORDER BY t.last_at DESC",
        )
        .fetch_all(&self.reader)
        .await?;
        rows.iter()
            .map(|row| {
                let closer: Option<String> = row.try_get("closer")?;
                let closed_at: Option<i64> = row.try_get("closed_at")?;
                Ok(ThreadSummary {
                    pair: Pair {
                        a: row.try_get("a")?,
                        b: row.try_get("b")?,
                    },
                    messages: row.try_get("n")?,
                    queued: row.try_get("queued")?,
                    last_at: Millis(row.try_get("last_at")?),
                    closed: closer
                        .zip(closed_at)
                        .map(|(by, at)| Closed { by, at: Millis(at) }),
                })
            })
            .collect()
    }

    /// Every message between agents still in its recipient's inbox (no wait, hook or ask took it) that
    /// was stored at or before `before`, oldest first: what the hub tells the senders' users about.
    pub async fn queued_between(&self, before: Millis) -> Result<Vec<Message>, StoreError> {
        let columns: Vec<String> = MESSAGE_COLUMNS
            .split(", ")
            .map(|c| format!("m.{c}"))
            .collect();
        let rows = sqlx::query(&format!(
            "SELECT {} FROM agents a JOIN messages m ON m.recipient = a.name AND m.seq > a.inbox_cursor \
             WHERE m.kind = 'agent' AND m.sender <> m.agent AND m.at <= ?1 \
             AND m.sender IN (SELECT name FROM agents) \
             AND NOT EXISTS (SELECT 1 FROM handovers h WHERE h.message_seq = m.seq) ORDER BY m.seq",
            columns.join(", ")
        ))
        .bind(before.0)
        .fetch_all(&self.reader)
        .await?;
        rows.iter().map(message_from_row).collect()
    }

    /// Whether `sender` (an agent of another machine, `name@machine`) wrote to `agent`: then `agent` may
    /// answer it through this hub's feed.
    pub async fn wrote_to(&self, agent: &str, sender: &str) -> Result<bool, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM messages WHERE agent = ?1 AND sender = ?2 AND kind = 'agent')",
        )
        .bind(agent)
        .bind(sender)
        .fetch_one(&self.reader)
        .await?)
    }

    /// The messages this machine's agents sent to agents of `machine` (`name@machine`), stored after the
    /// message `after` (from the first when none), oldest first, at most `limit`. An unknown `after` is an
    /// error, never a page from the start.
    pub async fn for_machine(
        &self,
        machine: &str,
        after: Option<&MsgId>,
        limit: i64,
    ) -> Result<Vec<Message>, StoreError> {
        let from = match after {
            Some(id) => sqlx::query_scalar::<_, i64>("SELECT seq FROM messages WHERE id = ?1")
                .bind(id.as_str())
                .fetch_optional(&self.reader)
                .await?
                .ok_or_else(|| StoreError::UnknownCursor(id.to_string()))?,
            None => 0,
        };
        let rows = sqlx::query(&format!(
            "SELECT {MESSAGE_COLUMNS} FROM messages WHERE seq > ?1 AND kind = 'agent' \
             AND sender = agent AND substr(recipient, -(length(?2) + 1)) = '@' || ?2 \
             AND (idem_key IS NULL OR substr(idem_key, 1, {n}) <> '{SENT_AWAY}') \
             ORDER BY seq LIMIT ?3",
            n = SENT_AWAY.len()
        ))
        .bind(from)
        .bind(machine)
        .bind(limit)
        .fetch_all(&self.reader)
        .await?;
        rows.iter().map(message_from_row).collect()
    }

    /// The idempotency key message `id` was stored under, if any.
    pub async fn key_of(&self, id: &MsgId) -> Result<Option<String>, StoreError> {
        Ok(
            sqlx::query_scalar::<_, Option<String>>("SELECT idem_key FROM messages WHERE id = ?1")
                .bind(id.as_str())
                .fetch_optional(&self.reader)
                .await?
                .flatten(),
        )
    }

    /// What follows `prefix` (ending in `:`) in the key of the last message stored under it, if any: the
    /// other machine's id of the last answer taken from it (`relay:box:`), or of the last message carried
    /// there (`away:box:`).
    pub async fn last_key_under(&self, prefix: &str) -> Result<Option<String>, StoreError> {
        // Every key under the prefix sorts before the prefix with its `:` made `;`, the next character.
        let below = format!("{};", prefix.trim_end_matches(':'));
        let key: Option<String> = sqlx::query_scalar(
            "SELECT idem_key FROM messages WHERE idem_key > ?1 AND idem_key < ?2 \
             ORDER BY seq DESC LIMIT 1",
        )
        .bind(prefix)
        .bind(below)
        .fetch_optional(&self.reader)
        .await?;
        Ok(key.and_then(|k| k.strip_prefix(prefix).map(str::to_owned)))
    }

    /// How many turns passed in a thread since `since`, either way (acknowledgements are not counted).
    pub async fn turns_since(&self, pair: &Pair, since: Millis) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT COUNT(*) FROM messages WHERE kind = 'agent' AND at >= ?3 \
             AND ((agent = ?1 AND sender = ?2) OR (agent = ?2 AND sender = ?1))",
        )
        .bind(&pair.a)
        .bind(&pair.b)
        .bind(since.0)
        .fetch_one(&self.reader)
        .await?)
    }

    /// Whether a thread is closed, by whom and when.
    pub async fn thread_closed(&self, pair: &Pair) -> Result<Option<Closed>, StoreError> {
        let row = sqlx::query("SELECT closer, at FROM threads_closed WHERE a = ?1 AND b = ?2")
            .bind(&pair.a)
            .bind(&pair.b)
            .fetch_optional(&self.reader)
            .await?;
        row.map(|row| {
            Ok(Closed {
                by: row.try_get("closer")?,
                at: Millis(row.try_get("at")?),
            })
        })
        .transpose()
    }

    /// Closes a thread. Returns false (changing nothing) when it was closed already.
    pub async fn close_thread(
        &self,
        pair: &Pair,
        by: &str,
        at: Millis,
    ) -> Result<bool, StoreError> {
        let mut writer = self.write().await;
        let done = sqlx::query(
            "INSERT OR IGNORE INTO threads_closed (a, b, closer, at) VALUES (?1, ?2, ?3, ?4)",
        )
        .bind(&pair.a)
        .bind(&pair.b)
        .bind(by)
        .bind(at.0)
        .execute(&mut writer.conn)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Reopens a closed thread. Returns false when it was open.
    pub async fn reopen_thread(&self, pair: &Pair) -> Result<bool, StoreError> {
        let mut writer = self.write().await;
        let done = sqlx::query("DELETE FROM threads_closed WHERE a = ?1 AND b = ?2")
            .bind(&pair.a)
            .bind(&pair.b)
            .execute(&mut writer.conn)
            .await?;
        Ok(done.rows_affected() == 1)
    }
}
