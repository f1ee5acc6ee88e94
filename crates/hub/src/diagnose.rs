//! The logs a wrong indicator is debugged from, exported as JSON lines: every raw event an agent received
//! (`events`) and every decision its machine made (`decisions`), oldest first.
//!
//! An event line has the shape `clawmux replay` reads (`at`, `source`, `kind`, `payload`), so an exported
//! log replays as it is and becomes a regression case by adding a header and an expectation.
//!
//! The lines' shapes are here; the hub reads the rows and routes the request (`commands.rs`).

use clawmux_core::wire::Code;
use serde_json::{json, Value};

use clawmux_store::{StoredDecision, StoredEvent};

use crate::error::HubError;

/// The most rows one request returns; page on with `after`.
pub const MAX_LOG_ROWS: u32 = 10_000;

/// Which log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Log {
    /// The raw events.
    Events,
    /// The decisions.
    Decisions,
}

impl Log {
    /// Parses the path segment.
    pub fn parse(name: &str) -> Result<Log, HubError> {
        match name {
            "events" => Ok(Log::Events),
            "decisions" => Ok(Log::Decisions),
            other => Err(HubError::new(
                Code::UnknownLog,
                format!("no log `{other}`: use `events` or `decisions`"),
            )),
        }
    }
}

/// One line of the `events` log: the shape `clawmux replay` reads.
pub(crate) fn event_line(e: &StoredEvent) -> Value {
    let payload = serde_json::from_str::<Value>(&e.payload)
        .unwrap_or_else(|_| Value::String(e.payload.clone()));
    json!({
        "id": e.id,
        "at": e.source_time,
        "received_at": e.received_at,
        "source": e.source,
        "kind": e.kind,
        "payload": if e.payload.is_empty() { Value::Null } else { payload },
        "error": e.error,
    })
}

/// One line of the `decisions` log.
pub(crate) fn decision_line(d: &StoredDecision) -> Value {
    serde_json::to_value(d).unwrap_or(Value::Null)
}

/// Rows as JSON lines.
pub(crate) fn json_lines(rows: impl IntoIterator<Item = Value>) -> String {
    let mut out = String::new();
    for row in rows {
        out.push_str(&row.to_string());
        out.push('\n');
    }
    out
}
