//! Import of the original product's per-agent `history.json`.
//!
//! Format (the original ClawMux's, docs/PROTOCOL.md): `{voice_id, voice_name, claude_session_id, messages:
//! [{role, text, ts, id?, parent_id?, bare_ack?}]}`. The whole file is checked before anything is written, so
//! a bad file changes nothing. Each message is stored with an idempotency key derived from its original id
//! (or its position), so importing the same file twice, or a longer version of it later, stores every message
//! once. Imported messages never enter an inbox: they are history, already answered.

use clawmux_core::wire::{check_agent_name, Kind, MsgId};
use clawmux_core::Millis;
use serde::Deserialize;
use serde_json::Value;

use crate::messages::NewMessage;
use crate::{Store, StoreError};

/// What an import did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Imported {
    /// Messages stored now.
    pub created: usize,
    /// Messages already stored by an earlier import.
    pub skipped: usize,
    /// Messages whose `parent_id` named no known message; stored without the link.
    pub unlinked: usize,
}

#[derive(Deserialize)]
struct HistoryFile {
    voice_id: Option<String>,
    voice_name: Option<String>,
    claude_session_id: Option<String>,
    messages: Vec<HistoryMessage>,
}

#[derive(Deserialize)]
struct HistoryMessage {
    role: String,
    text: String,
    ts: Value,
    id: Option<String>,
    parent_id: Option<String>,
    #[serde(default)]
    bare_ack: bool,
}

/// A message checked and ready to store.
struct Checked {
    kind: Kind,
    text: String,
    at: Millis,
    id: Option<MsgId>,
    parent: Option<MsgId>,
}

fn check(m: HistoryMessage, index: usize) -> Result<Checked, StoreError> {
    let bad = |why: String| StoreError::Import(format!("message {index}: {why}"));
    let kind = match (m.role.as_str(), m.bare_ack) {
        (_, true) => Kind::Ack,
        ("user", false) => Kind::User,
        ("assistant", false) => Kind::Assistant,
        ("agent", false) => Kind::Agent,
        ("system", false) => Kind::System,
        ("activity", false) => Kind::Activity,
        (other, false) => return Err(bad(format!("unknown role `{other}`"))),
    };
    let seconds = match &m.ts {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        Value::Null | Value::Bool(_) | Value::Array(_) | Value::Object(_) => None,
    }
    .filter(|t| t.is_finite() && *t >= 0.0)
    .ok_or_else(|| bad(format!("`ts` must be a Unix time, got {}", m.ts)))?;
    // Seconds (Python's time.time()) or, if implausibly large for seconds, milliseconds.
    let at = if seconds > 1e11 {
        seconds
    } else {
        seconds * 1000.0
    };
    let parse_id = |field: &str, v: Option<String>| -> Result<Option<MsgId>, StoreError> {
        v.filter(|s| !s.is_empty())
            .map(|s| MsgId::parse(&s).map_err(|e| bad(format!("`{field}`: {e}"))))
            .transpose()
    };
    Ok(Checked {
        kind,
        text: m.text,
        // Rounding a finite, non-negative f64 of at most ~1e300 to i64 saturates: no panic, no UB.
        #[allow(clippy::cast_possible_truncation)]
        at: Millis(at.round() as i64),
        id: parse_id("id", m.id)?,
        parent: parse_id("parent_id", m.parent_id)?,
    })
}

/// Reads and checks a whole `history.json` before anything is written.
fn read_history(json: &[u8]) -> Result<(HistoryFile, Vec<Checked>), StoreError> {
    let mut file: HistoryFile = serde_json::from_slice(json)
        .map_err(|e| StoreError::Import(format!("not a history.json: {e}")))?;
    let checked = std::mem::take(&mut file.messages)
        .into_iter()
        .enumerate()
        .map(|(i, m)| check(m, i))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((file, checked))
}

/// Checks a `history.json` as [`Store::import_history`] would, without a database: how many messages it
/// would import, or why it would refuse the file. (The fuzz target's entry point.)
pub fn check_history(json: &[u8]) -> Result<usize, StoreError> {
    read_history(json).map(|(_, checked)| checked.len())
}

impl Store {
    /// Imports a `history.json` into `agent`'s conversation, registering the agent (in `work_dir`) if new.
    pub async fn import_history(
        &self,
        agent: &str,
        work_dir: &str,
        json: &[u8],
        now: Millis,
    ) -> Result<Imported, StoreError> {
        check_agent_name(agent)?;
        let (file, checked) = read_history(json)?;

        match self.add_agent(agent, work_dir, now).await {
            Ok(_) | Err(StoreError::AgentExists(_)) => {}
            Err(e) => return Err(e),
        }
        sqlx::query(
            "UPDATE agents SET claude_session_id = COALESCE(?2, claude_session_id), \
             voice_id = COALESCE(?3, voice_id), voice_name = COALESCE(?4, voice_name) WHERE name = ?1",
        )
        .bind(agent)
        .bind(file.claude_session_id)
        .bind(file.voice_id)
        .bind(file.voice_name)
        .execute(&mut self.write().await.conn)
        .await?;

        let mut done = Imported::default();
        // Original id -> stored id, for parents whose original id was already taken by another message.
        let mut renamed = std::collections::HashMap::new();
        for (index, m) in checked.iter().enumerate() {
            self.import_message(agent, index, m, &mut renamed, &mut done)
                .await?;
        }
        Ok(done)
    }

    /// Imports message `index` of `agent`'s history, once (its key is its original id, or its place).
    async fn import_message(
        &self,
        agent: &str,
        index: usize,
        m: &Checked,
        renamed: &mut std::collections::HashMap<MsgId, MsgId>,
        done: &mut Imported,
    ) -> Result<(), StoreError> {
        let key = match &m.id {
            Some(id) => format!("import:{agent}:id:{id}"),
            None => format!("import:{agent}:n:{index}"),
        };
        let mut parent = m
            .parent
            .as_ref()
            .map(|p| renamed.get(p).unwrap_or(p).clone());
        if let Some(p) = &parent {
            if self.message(p).await?.is_none() {
                parent = None;
                done.unlinked += 1;
            }
        }
        let (sender, recipient) = match m.kind {
            Kind::User => ("user", None),
            Kind::Assistant | Kind::Ack => (agent, Some("user")),
            Kind::Agent | Kind::Activity | Kind::System => (agent, None),
        };
        let appended = self
            .append_with_id(
                &NewMessage {
                    agent,
                    kind: m.kind,
                    sender,
                    recipient,
                    text: &m.text,
                    parent: parent.as_ref(),
                    voice: false,
                    aloud: false,
                    attachments: &[],
                    idem_key: Some(&key),
                    at: m.at,
                },
                m.id.as_ref(),
            )
            .await?;
        if let Some(original) = &m.id {
            if *original != appended.message.id {
                renamed.insert(original.clone(), appended.message.id.clone());
            }
        }
        if appended.created {
            done.created += 1;
        } else {
            done.skipped += 1;
        }
        Ok(())
    }
}
