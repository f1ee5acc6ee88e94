//! `clawmux send --to <name|user> [text] [--re ID]`: prints the new message id, or `error: ...` and exit 1.
//!
//! A transport failure is retried: the hub makes sends idempotent (same agent, same content, same turn),
//! so a retry after a lost answer returns the first message's id instead of storing a second one.

use std::time::Duration;

use clawmux_api::agent::Send;
use clawmux_api::commands::Sent;

use crate::client::{CallError, Client};
use crate::env::AgentEnv;

const TRIES: u32 = 3;

pub fn run(to: &str, text: Option<&str>, re: Option<&str>) -> Result<(), String> {
    let env = AgentEnv::require()?;
    let client = Client::new(&env.hub, Duration::from_secs(5));
    let send = Send {
        to: to.to_owned(),
        text: text.map(str::to_owned),
        re: re.map(str::to_owned),
        client_id: None,
    };
    let mut last = String::new();
    for attempt in 0..TRIES {
        match client.post_as::<Sent>("/api/send", Some(&env.session), &send) {
            Ok(sent) => {
                if let Some(note) = &sent.note {
                    eprintln!("{note}");
                }
                println!("{}", sent.id);
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
