//! `clawmux send --to <name|user> [text] [--re ID]`: prints the new message id, or `error: ...` and exit 1.
//!
//! A transport failure is retried: the hub makes sends idempotent (same agent, same content, same turn),
//! so a retry after a lost answer returns the first message's id instead of storing a second one.

use std::time::Duration;

use serde_json::{json, Value};

use crate::client::{CallError, Client};
use crate::env::AgentEnv;

const TRIES: u32 = 3;

pub fn run(to: &str, text: Option<&str>, re: Option<&str>) -> Result<(), String> {
    let env = AgentEnv::require()?;
    let client = Client::new(&env.hub, Duration::from_secs(5));
    let body = json!({ "to": to, "text": text, "re": re }).to_string();
    let mut last = String::new();
    for attempt in 0..TRIES {
        match client.post("/api/send", Some(&env.session), body.as_bytes()) {
            Ok(v) => {
                let id = v.get("id").and_then(Value::as_str).unwrap_or_default();
                println!("{id}");
                return Ok(());
            }
            Err(e @ (CallError::Api { .. } | CallError::Unreadable(_))) => {
                return Err(e.to_string())
            }
            Err(e @ CallError::Unreachable(_)) => {
                last = e.to_string();
                std::thread::sleep(Duration::from_millis(200 * u64::from(attempt + 1)));
            }
        }
    }
    Err(last)
}
