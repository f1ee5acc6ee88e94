//! The logs a wrong indicator is debugged from, exported as JSON lines: every raw event an agent received
//! (`events`) and every decision its machine made (`decisions`), oldest first.
//!
//! An event line has the shape `clawmux replay` reads (`at`, `source`, `kind`, `payload`), so an exported
//! log replays as it is and becomes a regression case by adding a header and an expectation.

use clawmux_core::wire::Code;
use serde_json::{json, Value};

use crate::error::HubError;
use crate::hub::Hub;

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

impl Hub {
    /// One page of an agent's log as JSON lines: rows with an id above `after`, at most `limit`.
    pub async fn log_lines(
        &self,
        agent: &str,
        log: Log,
        after: i64,
        limit: u32,
    ) -> Result<String, HubError> {
        self.store().agent(agent).await?;
        let limit = limit.clamp(1, MAX_LOG_ROWS);
        let rows: Vec<Value> = match log {
            Log::Events => self
                .store()
                .events(agent, after, limit)
                .await?
                .into_iter()
                .map(|e| {
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
                })
                .collect(),
            Log::Decisions => self
                .store()
                .decisions(agent, after, limit)
                .await?
                .into_iter()
                .map(|d| serde_json::to_value(d).unwrap_or(Value::Null))
                .collect(),
        };
        let mut out = String::new();
        for row in rows {
            out.push_str(&row.to_string());
            out.push('\n');
        }
        Ok(out)
    }
}
