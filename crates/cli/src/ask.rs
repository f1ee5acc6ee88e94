//! `clawmux ask NAME "..." [--timeout S]` and `clawmux close NAME ["last word"]`: an agent's question that
//! waits for the other agent's answer, and the end of a thread.
//!
//! An ask is a send (`--re`-able, idempotent by a client id of its own, so a retry after a lost answer
//! stores nothing new) followed by waits of at most a minute each for the first answer to it, until the
//! timeout. The hub hands the answer over to the ask, so it does not come again through a wait or a hook;
//! an answer that comes after the timeout comes as a message like any other. A hub restart in between is a
//! wait that failed: the ask tries again until its time is up.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clawmux_api::agent::{Answer, AwaitAnswer, Close, Send, MAX_ANSWER_WAIT_MS};
use clawmux_api::commands::Sent;

use crate::client::{CallError, Client};
use crate::env::AgentEnv;

/// How long a send or a close may take before it is tried again.
const CALL: Duration = Duration::from_secs(5);

/// Asks `to` and prints its answer; exit 1 with the reason when none comes within `timeout`.
pub fn ask(to: &str, text: &str, timeout: Duration) -> Result<(), String> {
    let env = AgentEnv::require()?;
    let deadline = Instant::now() + timeout;
    let send = Send {
        to: to.to_owned(),
        text: Some(text.to_owned()),
        re: None,
        client_id: Some(client_id()),
    };
    let sent: Sent = retried(deadline, || {
        Client::new(&env.hub, CALL).post_as("/api/send", Some(&env.session), &send)
    })?;
    if let Some(note) = &sent.note {
        eprintln!("{note}");
    }
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(format!(
                "no answer from {to} within {} s; its answer to {} will reach you as a message",
                timeout.as_secs(),
                sent.id
            ));
        }
        let within = left.min(Duration::from_millis(MAX_ANSWER_WAIT_MS));
        let wait = AwaitAnswer {
            re: sent.id.to_string(),
            within_ms: u64::try_from(within.as_millis()).unwrap_or(MAX_ANSWER_WAIT_MS),
        };
        // The hub holds the request up to `within`; the client gives it a little more.
        let client = Client::new(&env.hub, within + CALL);
        match client.post_as::<Answer>("/api/answer", Some(&env.session), &wait) {
            Ok(Answer {
                line: Some(line), ..
            }) => {
                println!("{line}");
                return Ok(());
            }
            Ok(Answer { line: None, .. }) => {}
            Err(e @ (CallError::Api { .. } | CallError::Unreadable(_))) => {
                return Err(e.to_string())
            }
            Err(CallError::Unreachable(_)) => std::thread::sleep(Duration::from_millis(500)),
        }
    }
}

/// Closes the thread with `with`, after the last word; prints the last word's id.
pub fn close(with: &str, text: Option<&str>) -> Result<(), String> {
    let env = AgentEnv::require()?;
    let close = Close {
        with: with.to_owned(),
        text: text.map(str::to_owned),
    };
    let sent: Sent = retried(Instant::now() + 3 * CALL, || {
        Client::new(&env.hub, CALL).post_as("/api/close", Some(&env.session), &close)
    })?;
    if let Some(note) = &sent.note {
        eprintln!("{note}");
    }
    println!("{}", sent.id);
    Ok(())
}

/// `call`, tried again while the hub cannot be reached, until `deadline`.
fn retried<T>(deadline: Instant, call: impl Fn() -> Result<T, CallError>) -> Result<T, String> {
    loop {
        match call() {
            Ok(done) => return Ok(done),
            Err(e @ (CallError::Api { .. } | CallError::Unreadable(_))) => {
                return Err(e.to_string())
            }
            Err(e @ CallError::Unreachable(_)) if Instant::now() >= deadline => {
                return Err(e.to_string())
            }
            Err(CallError::Unreachable(_)) => std::thread::sleep(Duration::from_millis(300)),
        }
    }
}

/// An id of this ask's question: a retry of the send with it stores nothing new; another ask with the
/// same words is another question.
fn client_id() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("ask-{}-{nanos}", std::process::id())
}
