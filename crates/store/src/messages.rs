//! Messages: what an append takes and returns (its write path is `append.rs`), and pages by cursor.
//!
//! Pages are built by SQLite as one JSON array (see the crate docs for why) and decoded here, through the
//! same checks as a single row.

use clawmux_core::wire::{Attachment, Kind, Message, MsgId};
use clawmux_core::Millis;
use serde::Deserialize;
use sqlx::sqlite::SqliteRow;
use sqlx::Row;

use crate::{Store, StoreError};

pub(crate) const MESSAGE_COLUMNS: &str =
    "seq, id, agent, kind, sender, recipient, text, parent, voice, aloud, attachments, at";

/// One message as a JSON object, aggregated in `seq` order into one array per page.
const PAGE: &str = "COALESCE(json_group_array(json_object('seq', seq, 'id', id, 'agent', agent, \
     'kind', kind, 'sender', sender, 'recipient', recipient, 'text', text, 'parent', parent, \
     'voice', voice, 'aloud', aloud, 'attachments', attachments, 'at', at) ORDER BY seq), '[]')";

/// `SELECT <page> FROM (<inner>)`: `inner` selects the rows (any order, with its LIMIT).
pub(crate) fn page_sql(inner: &str) -> String {
    format!("SELECT {PAGE} FROM ({inner})")
}

/// A message as stored, before its values are checked.
#[derive(Deserialize)]
struct Stored {
    seq: i64,
    id: String,
    agent: String,
    kind: String,
    sender: String,
    recipient: Option<String>,
    text: String,
    parent: Option<String>,
    voice: i64,
    aloud: i64,
    /// A JSON array, or nothing.
    attachments: Option<String>,
    at: i64,
}

impl Stored {
    fn check(self) -> Result<Message, StoreError> {
        let corrupt = |what: &str, v: &str| StoreError::Corrupt(format!("{what} `{v}`"));
        Ok(Message {
            seq: self.seq,
            id: MsgId::parse(&self.id).map_err(|_| corrupt("message id", &self.id))?,
            agent: self.agent,
            kind: Kind::parse(&self.kind).ok_or_else(|| corrupt("message kind", &self.kind))?,
            sender: self.sender,
            recipient: self.recipient,
            text: self.text,
            parent: self
                .parent
                .map(|p| MsgId::parse(&p).map_err(|_| corrupt("parent id", &p)))
                .transpose()?,
            voice: self.voice != 0,
            aloud: self.aloud != 0,
            attachments: match self.attachments {
                Some(json) => serde_json::from_str(&json)
                    .map_err(|e| StoreError::Corrupt(format!("attachments: {e}")))?,
                None => Vec::new(),
            },
            at: Millis(self.at),
        })
    }
}

pub(crate) fn message_from_row(row: &SqliteRow) -> Result<Message, StoreError> {
    Stored {
        seq: row.try_get("seq")?,
        id: row.try_get("id")?,
        agent: row.try_get("agent")?,
        kind: row.try_get("kind")?,
        sender: row.try_get("sender")?,
        recipient: row.try_get("recipient")?,
        text: row.try_get("text")?,
        parent: row.try_get("parent")?,
        voice: row.try_get("voice")?,
        aloud: row.try_get("aloud")?,
        attachments: row.try_get("attachments")?,
        at: row.try_get("at")?,
    }
    .check()
}

/// Decodes a page built by [`page_sql`].
pub(crate) fn page_from_json(json: &str) -> Result<Vec<Message>, StoreError> {
    let rows: Vec<Stored> = serde_json::from_str(json)
        .map_err(|e| StoreError::Corrupt(format!("message page: {e}")))?;
    rows.into_iter().map(Stored::check).collect()
}

/// A message to append.
#[derive(Debug, Clone, Copy)]
pub struct NewMessage<'a> {
    /// Whose conversation it belongs to.
    pub agent: &'a str,
    /// Who speaks.
    pub kind: Kind,
    /// `user` or the sending agent.
    pub sender: &'a str,
    /// The inbox that receives it (an agent), `user`, or none.
    pub recipient: Option<&'a str>,
    /// The text.
    pub text: &'a str,
    /// The message it answers or acknowledges.
    pub parent: Option<&'a MsgId>,
    /// Spoken rather than typed.
    pub voice: bool,
    /// Spoken hands-free, a spoken answer asked.
    pub aloud: bool,
    /// The files the user attached.
    pub attachments: &'a [Attachment],
    /// The client's key: a retry with the same key returns the first message instead of storing another.
    pub idem_key: Option<&'a str>,
    /// When it was sent.
    pub at: Millis,
}

/// The outcome of an append.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Appended {
    /// The stored message (the earlier one, for a retry).
    pub message: Message,
    /// False when the idempotency key matched an earlier message and nothing new was stored.
    pub created: bool,
}

impl<'a> NewMessage<'a> {
    /// Typed words with nothing more: no message answered, no file, no idempotency key. The fields it
    /// leaves out are set with `..NewMessage::plain(..)`.
    pub fn plain(
        agent: &'a str,
        kind: Kind,
        sender: &'a str,
        recipient: Option<&'a str>,
        text: &'a str,
        at: Millis,
    ) -> NewMessage<'a> {
        NewMessage {
            agent,
            kind,
            sender,
            recipient,
            text,
            parent: None,
            voice: false,
            aloud: false,
            attachments: &[],
            idem_key: None,
            at,
        }
    }

    /// The message as stored at `seq` under `id`.
    pub(crate) fn stored(&self, seq: i64, id: MsgId) -> Message {
        Message {
            seq,
            id,
            agent: self.agent.to_owned(),
            kind: self.kind,
            sender: self.sender.to_owned(),
            recipient: self.recipient.map(str::to_owned),
            text: self.text.to_owned(),
            parent: self.parent.cloned(),
            voice: self.voice,
            aloud: self.aloud,
            attachments: self.attachments.to_vec(),
            at: self.at,
        }
    }
}

impl Store {
    /// The ids of every attached file a message names, in any conversation: what the hub must keep.
    pub async fn attachment_ids(&self) -> Result<std::collections::HashSet<String>, StoreError> {
        let ids: Vec<Option<String>> = sqlx::query_scalar(
            "SELECT DISTINCT json_extract(file.value, '$.id') FROM messages, json_each(messages.attachments) AS file \
             WHERE messages.attachments IS NOT NULL",
        )
        .fetch_all(&self.reader)
        .await?;
        Ok(ids.into_iter().flatten().collect())
    }

    /// One message by its public id.
    pub async fn message(&self, id: &MsgId) -> Result<Option<Message>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {MESSAGE_COLUMNS} FROM messages WHERE id = ?1"
        ))
        .bind(id.as_str())
        .fetch_optional(&self.reader)
        .await?;
        row.as_ref().map(message_from_row).transpose()
    }

    /// The message an idempotency key was used for, if any.
    pub async fn message_by_key(&self, key: &str) -> Result<Option<Message>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {MESSAGE_COLUMNS} FROM messages WHERE idem_key = ?1"
        ))
        .bind(key)
        .fetch_optional(&self.reader)
        .await?;
        row.as_ref().map(message_from_row).transpose()
    }

    /// The seq of a cursor, which must be a message of `agent`'s conversation (any conversation if `None`).
    async fn cursor_seq(&self, agent: Option<&str>, cursor: &MsgId) -> Result<i64, StoreError> {
        let seq: Option<i64> = sqlx::query_scalar(
            "SELECT seq FROM messages WHERE id = ?1 AND (?2 IS NULL OR agent = ?2)",
        )
        .bind(cursor.as_str())
        .bind(agent)
        .fetch_optional(&self.reader)
        .await?;
        seq.ok_or_else(|| StoreError::UnknownCursor(cursor.to_string()))
    }

    async fn page(
        &self,
        inner: &str,
        agent: Option<&str>,
        seq: i64,
        limit: u32,
    ) -> Result<Vec<Message>, StoreError> {
        let json: String = sqlx::query_scalar(&page_sql(inner))
            .bind(agent)
            .bind(seq)
            .bind(limit)
            .fetch_one(&self.reader)
            .await?;
        page_from_json(&json)
    }

    /// Up to `limit` messages after `cursor` (from the start if `None`), oldest first, in one agent's
    /// conversation or (with `agent = None`) in all of them. An unknown cursor is an error, never an empty page.
    pub async fn after(
        &self,
        agent: Option<&str>,
        cursor: Option<&MsgId>,
        limit: u32,
    ) -> Result<Vec<Message>, StoreError> {
        let from = match cursor {
            Some(c) => self.cursor_seq(agent, c).await?,
            None => 0,
        };
        self.after_seq(agent, from, limit).await
    }

    /// Like [`Store::after`], from a seq the caller already holds (a live subscriber's position).
    pub async fn after_seq(
        &self,
        agent: Option<&str>,
        from: i64,
        limit: u32,
    ) -> Result<Vec<Message>, StoreError> {
        let inner = match agent {
            Some(_) => "SELECT * FROM messages WHERE agent = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
            None => "SELECT * FROM messages WHERE ?1 IS NULL AND seq > ?2 ORDER BY seq LIMIT ?3",
        };
        self.page(inner, agent, from, limit).await
    }

    /// The last `limit` messages of a conversation, oldest first: the first page a chat shows.
    pub async fn latest(&self, agent: &str, limit: u32) -> Result<Vec<Message>, StoreError> {
        let inner =
            "SELECT * FROM messages WHERE agent = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT ?3";
        self.page(inner, Some(agent), i64::MAX, limit).await
    }

    /// Up to `limit` messages before `cursor`, oldest first: "load older".
    pub async fn before(
        &self,
        agent: &str,
        cursor: &MsgId,
        limit: u32,
    ) -> Result<Vec<Message>, StoreError> {
        let to = self.cursor_seq(Some(agent), cursor).await?;
        let inner =
            "SELECT * FROM messages WHERE agent = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT ?3";
        self.page(inner, Some(agent), to, limit).await
    }

    /// The highest seq stored (0 when empty): where a new live subscriber starts.
    pub async fn head(&self) -> Result<i64, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT COALESCE(MAX(seq), 0) FROM messages")
                .fetch_one(&self.reader)
                .await?,
        )
    }
}
