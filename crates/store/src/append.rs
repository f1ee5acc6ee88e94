//! The store's write path for messages: group commit, as for agent events (`commit.rs`).
//!
//! Why: a commit of a message also writes the search index's part of it. FTS5 flushes what a
//! transaction added as a segment of its own and rewrites its structure record, a fixed cost of about
//! 40 µs in every commit, whatever it holds. Messages that arrive together (several agents answering, the
//! user sending while agents report) are stored by one multi-row INSERT, one statement and so one
//! transaction and one segment, run in-process on the writer's direct connection (see `commit.rs`). A
//! message that finds the writer free is that same statement with one row, stored at once by its caller,
//! as before group commit.
//!
//! Why one statement and not a transaction of one INSERT each: inside an explicit transaction SQLite opens
//! a statement savepoint for every INSERT that fires a trigger and may abort, and FTS5 flushes its pending
//! words to a new segment at every savepoint, so a transaction of many INSERTs wrote a segment per message
//! anyway. One statement opens none.
//!
//! If the shared statement fails (an unknown agent, an id already taken, an idempotency key reused with
//! other content), SQLite has stored none of it, and each message is then stored alone, so each caller
//! hears its own outcome and one bad message never fails the others.

use clawmux_core::wire::{Attachment, Kind, MsgId};
use clawmux_core::Millis;
use rusqlite::OptionalExtension;
use sqlx::SqliteConnection;
use tokio::sync::oneshot;

use crate::messages::{message_from_row, Appended, NewMessage, MESSAGE_COLUMNS};
use crate::{Store, StoreError, Writer};

/// How many times a random message id is drawn before giving up. With 32-bit ids a clash is rare even at
/// millions of messages (and every clash is caught by the UNIQUE index), so eight draws never all clash.
const ID_DRAWS: usize = 8;

/// The most messages committed in one transaction (bounds the wait of the last).
const MAX_BATCH: usize = 64;

/// Messages waiting for the writer.
pub(crate) type Queue = crate::queue::Queue<Pending>;

impl crate::queue::Batched for Pending {
    const MAX: usize = MAX_BATCH;

    fn commit(
        writer: &mut Writer,
        batch: Vec<Self>,
    ) -> impl std::future::Future<Output = ()> + Send {
        commit_batch(writer, batch)
    }
}

/// A message waiting for the writer: [`NewMessage`]'s fields, owned.
#[derive(Debug)]
pub(crate) struct Pending {
    agent: String,
    kind: Kind,
    sender: String,
    recipient: Option<String>,
    text: String,
    parent: Option<MsgId>,
    voice: bool,
    aloud: bool,
    attachments: Vec<Attachment>,
    idem_key: Option<String>,
    at: Millis,
    /// The id to try first (the importer keeps the original ids).
    preferred: Option<MsgId>,
    done: oneshot::Sender<Result<Appended, StoreError>>,
}

impl Pending {
    fn message(&self) -> NewMessage<'_> {
        NewMessage {
            agent: &self.agent,
            kind: self.kind,
            sender: &self.sender,
            recipient: self.recipient.as_deref(),
            text: &self.text,
            parent: self.parent.as_ref(),
            voice: self.voice,
            aloud: self.aloud,
            attachments: &self.attachments,
            idem_key: self.idem_key.as_deref(),
            at: self.at,
        }
    }
}

impl Store {
    /// Appends a message, committed before it returns. With an idempotency key already used for the same
    /// content it stores nothing and returns the first message; with different content it refuses.
    pub async fn append(&self, m: &NewMessage<'_>) -> Result<Appended, StoreError> {
        self.append_with_id(m, None).await
    }

    /// Appends with a preferred public id (the importer keeps the original ids); a taken id falls back to a
    /// fresh one.
    ///
    /// Group commit: with the writer busy, the message joins a queue, and whoever holds the writer next
    /// commits the whole queue in one statement. Safe to cancel at any await, as [`Store::apply`] is: a
    /// queued message is committed by a task of its own, so a caller that stops waiting leaves it either
    /// queued and committed or committed, never a batch taken and dropped; a message stored at once is
    /// one statement, which SQLite finishes or never begins.
    pub(crate) async fn append_with_id(
        &self,
        m: &NewMessage<'_>,
        preferred: Option<&MsgId>,
    ) -> Result<Appended, StoreError> {
        if let Some(parent) = m.parent {
            if self.message(parent).await?.is_none() {
                return Err(StoreError::UnknownParent(parent.to_string()));
            }
        }
        // The writer free: nobody to share a commit with, so no hand-off to a task of its own, which
        // costs a wake-up on another thread (~80 µs here). Only this one statement runs meanwhile; whoever
        // queues now finds the writer held and is committed by its own task after it.
        if let Ok(mut writer) = self.writer.try_lock() {
            return insert(writer.taken(), m, preferred).await;
        }
        let (done, result) = oneshot::channel();
        self.messages.commit(
            Pending {
                agent: m.agent.to_owned(),
                kind: m.kind,
                sender: m.sender.to_owned(),
                recipient: m.recipient.map(str::to_owned),
                text: m.text.to_owned(),
                parent: m.parent.cloned(),
                voice: m.voice,
                aloud: m.aloud,
                attachments: m.attachments.to_vec(),
                idem_key: m.idem_key.map(str::to_owned),
                at: m.at,
                preferred: preferred.cloned(),
                done,
            },
            &self.writer,
        );
        result.await.unwrap_or_else(|_| {
            Err(StoreError::Write(
                "the message was dropped unwritten".into(),
            ))
        })
    }
}

/// The columns of an INSERT of messages, and the placeholders of one row.
const INSERT: &str =
    "INSERT INTO messages (id, agent, kind, sender, recipient, text, parent, voice, aloud, attachments, idem_key, at) VALUES ";
const ROW: &str = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
const UPSERT: &str = " ON CONFLICT(idem_key) DO NOTHING RETURNING seq, id";

/// Stores a batch and answers each caller: all of it in one statement, else each message alone.
async fn commit_batch(writer: &mut Writer, batch: Vec<Pending>) {
    if batch.len() > 1 {
        if let Ok(outcomes) = insert_all(writer, &batch).await {
            for (p, outcome) in batch.into_iter().zip(outcomes) {
                let _ = p.done.send(outcome);
            }
            return;
        }
    }
    for p in batch {
        let outcome = insert(writer, &p.message(), p.preferred.as_ref()).await;
        let _ = p.done.send(outcome);
    }
}

/// Stores a whole batch in one INSERT; each message's outcome, in the batch's order. An error means
/// nothing was stored.
async fn insert_all(
    writer: &mut Writer,
    batch: &[Pending],
) -> Result<Vec<Result<Appended, StoreError>>, StoreError> {
    let mut ids = Vec::with_capacity(batch.len());
    for p in batch {
        let id = loop {
            let id = match p.preferred.as_ref() {
                Some(preferred) if !ids.contains(preferred) => preferred.clone(),
                _ => MsgId::from_u32(fastrand::u32(..)),
            };
            if !ids.contains(&id) {
                break id;
            }
        };
        ids.push(id);
    }
    let sql = format!("{INSERT}{}{UPSERT}", vec![ROW; batch.len()].join(", "));
    let mut values: Vec<rusqlite::types::Value> = Vec::with_capacity(batch.len() * 12);
    for (p, id) in batch.iter().zip(&ids) {
        values.extend(row(&p.message(), id));
    }
    // RETURNING's rows come in no promised order: each is matched by its id.
    let stored: std::collections::HashMap<String, i64> = {
        let mut statement = writer.direct.prepare(&sql)?;
        let rows = statement.query_map(rusqlite::params_from_iter(values), |r| {
            Ok((r.get::<_, String>(1)?, r.get::<_, i64>(0)?))
        })?;
        rows.collect::<Result<_, _>>()?
    };
    let mut outcomes = Vec::with_capacity(batch.len());
    for (p, id) in batch.iter().zip(ids) {
        let m = p.message();
        outcomes.push(match stored.get(id.as_str()) {
            Some(&seq) => Ok(Appended {
                message: m.stored(seq, id),
                created: true,
            }),
            // Not inserted: its idempotency key was used before (or earlier in this batch).
            None if m.idem_key.is_some() => earlier_by_key(&mut writer.conn, &m).await,
            None => Err(StoreError::Write("the message was not stored".into())),
        });
    }
    Ok(outcomes)
}

/// One message's INSERT, drawing another id on a clash.
///
/// On the writer's direct connection (see `commit.rs`): one statement run in this thread, which SQLite
/// finishes or never begins; only a retry whose key was used before reads the earlier message back.
async fn insert(
    writer: &mut Writer,
    m: &NewMessage<'_>,
    preferred: Option<&MsgId>,
) -> Result<Appended, StoreError> {
    let mut candidate = preferred.cloned();
    for _ in 0..ID_DRAWS {
        let id = candidate
            .take()
            .unwrap_or_else(|| MsgId::from_u32(fastrand::u32(..)));
        let inserted = writer
            .direct
            .prepare_cached(&format!("{INSERT}{ROW}{UPSERT}"))
            .and_then(|mut statement| {
                statement
                    .query_row(rusqlite::params_from_iter(row(m, &id)), |r| {
                        r.get::<_, i64>(0)
                    })
                    .optional()
            });
        match inserted {
            Ok(Some(seq)) => {
                return Ok(Appended {
                    message: m.stored(seq, id),
                    created: true,
                });
            }
            Ok(None) => return earlier_by_key(&mut writer.conn, m).await,
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE =>
            {
                continue
            }
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_FOREIGNKEY =>
            {
                return Err(StoreError::UnknownAgent(m.agent.to_owned()))
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(StoreError::Corrupt(
        "no free message id after several draws".into(),
    ))
}

/// A message's values in [`ROW`]'s order, stored under `id`.
fn row(m: &NewMessage<'_>, id: &MsgId) -> [rusqlite::types::Value; 12] {
    use rusqlite::types::Value;
    let text = |s: &str| Value::Text(s.to_owned());
    let maybe = |s: Option<&str>| s.map_or(Value::Null, text);
    [
        text(id.as_str()),
        text(m.agent),
        text(m.kind.as_str()),
        text(m.sender),
        maybe(m.recipient),
        text(m.text),
        maybe(m.parent.map(MsgId::as_str)),
        Value::Integer(i64::from(m.voice)),
        Value::Integer(i64::from(m.aloud)),
        if m.attachments.is_empty() {
            Value::Null
        } else {
            // A Vec of plain structs always encodes.
            Value::Text(serde_json::to_string(m.attachments).unwrap_or_default())
        },
        maybe(m.idem_key),
        Value::Integer(m.at.0),
    ]
}

/// The message an idempotency key was first used for; refuses if the content differs.
async fn earlier_by_key(
    conn: &mut SqliteConnection,
    m: &NewMessage<'_>,
) -> Result<Appended, StoreError> {
    let key = m.idem_key.unwrap_or_default();
    let row = sqlx::query(&format!(
        "SELECT {MESSAGE_COLUMNS} FROM messages WHERE idem_key = ?1"
    ))
    .bind(key)
    .fetch_one(&mut *conn)
    .await?;
    let earlier = message_from_row(&row)?;
    let same = earlier.agent == m.agent
        && earlier.kind == m.kind
        && earlier.sender == m.sender
        && earlier.recipient.as_deref() == m.recipient
        && earlier.text == m.text
        && earlier.parent.as_ref() == m.parent
        && earlier.voice == m.voice
        && earlier.aloud == m.aloud
        && earlier.attachments == m.attachments;
    if !same {
        return Err(StoreError::KeyReused(key.to_owned()));
    }
    Ok(Appended {
        message: earlier,
        created: false,
    })
}

#[cfg(test)]
mod tests;
