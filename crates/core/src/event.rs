//! What can happen to an agent, and who said so.
//!
//! Every event is stored as `(source, kind, payload)` before the machine sees it; [`Event::from_stored`]
//! turns a stored row back into the same event, so replaying the table reproduces every decision.

use serde::{Deserialize, Serialize};

use crate::hook::{self, Hook, HookError};
use crate::opinion::Opinion;
use crate::transcript::Entry;

/// Who reported an event. Recorded with every decision so a wrong indicator can be traced to its cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// A Claude Code hook (HTTP or command).
    Hook,
    /// The agent's `clawmux wait` socket.
    Wait,
    /// The hub itself (process supervision, start-up).
    Hub,
    /// The `clawmux` command line, on a user's behalf.
    Cli,
    /// The desktop window or a browser.
    Ui,
    /// The agent's Claude Code transcript.
    Transcript,
}

impl Source {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Hook => "hook",
            Source::Wait => "wait",
            Source::Hub => "hub",
            Source::Cli => "cli",
            Source::Ui => "ui",
            Source::Transcript => "transcript",
        }
    }

    /// Parses a stored name.
    pub fn parse(name: &str) -> Option<Source> {
        [
            Source::Hook,
            Source::Wait,
            Source::Hub,
            Source::Cli,
            Source::Ui,
            Source::Transcript,
        ]
        .into_iter()
        .find(|s| s.as_str() == name)
    }
}

/// An input to the state machine.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// `clawmux wait` connected: the agent is waiting for a message.
    WaitConnected,
    /// `clawmux wait` went away (it got a message, was killed, or the connection died).
    WaitDisconnected,
    /// The agent's process was (re)started.
    Spawned,
    /// The agent's session ended.
    Terminated,
    /// The user interrupted the agent from ClawMux (Escape into its terminal; Claude Code fires no hook).
    Interrupted,
    /// A Claude Code hook fired.
    Hook(Hook),
    /// A line of the agent's transcript that the machine has a rule for.
    Transcript(Entry),
    /// The user dismissed a "needs you" that only a notice raised (no later hook would close it).
    Dismissed,
    /// The user answered the agent's open request (a permission, a question, a plan) from the app: the
    /// dialog is over, though no hook says so until the tool it allowed has run.
    Answered,
    /// Claude Code's own view of the session disagreed with ours for a while. Recorded so the explanation
    /// and a report show both views; it never changes anything (`opinion.rs`).
    SecondOpinion(Opinion),
    /// A message the agent sent another agent cannot be delivered: the hub raises a "needs you" on the
    /// sender with the reason, instead of leaving it in a silent queue.
    Undelivered(Undelivered),
    /// An event that could not be used (malformed, or with no rule). It is kept so the decision log shows
    /// it was seen and why nothing happened.
    Rejected {
        /// The stored kind, e.g. `hook:PreToolUse` or `hook:?`.
        kind: String,
        /// Why it was rejected.
        error: String,
    },
}

/// Why a message between agents did not reach the other agent: the payload of [`Event::Undelivered`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Undelivered {
    /// The agent it was for.
    pub to: String,
    /// One line for the sidebar and the notice: `Your message to moon waits: moon is not running`.
    pub reason: String,
}

/// Kind names of the non-hook events, as stored.
const WAIT_CONNECT: &str = "wait:connect";
const WAIT_DISCONNECT: &str = "wait:disconnect";
const SPAWN: &str = "agent:spawn";
const TERMINATE: &str = "agent:terminate";
const INTERRUPT: &str = "agent:interrupt";
const DISMISS: &str = "agent:dismiss";
const ANSWER: &str = "agent:answer";
const SECOND_OPINION: &str = "claude:status";
const UNDELIVERED: &str = "between:undelivered";

impl Event {
    /// The stored kind and trigger name: `wait:connect`, `agent:terminate`, `hook:PreToolUse`, ...
    pub fn kind(&self) -> String {
        match self {
            Event::WaitConnected => WAIT_CONNECT.to_owned(),
            Event::WaitDisconnected => WAIT_DISCONNECT.to_owned(),
            Event::Spawned => SPAWN.to_owned(),
            Event::Terminated => TERMINATE.to_owned(),
            Event::Interrupted => INTERRUPT.to_owned(),
            Event::Dismissed => DISMISS.to_owned(),
            Event::Answered => ANSWER.to_owned(),
            Event::SecondOpinion(_) => SECOND_OPINION.to_owned(),
            Event::Undelivered(_) => UNDELIVERED.to_owned(),
            Event::Hook(h) => format!("hook:{}", h.name()),
            Event::Transcript(e) => e.kind().to_owned(),
            Event::Rejected { kind, .. } => kind.clone(),
        }
    }

    /// Parses a hook payload into an event, keeping the error for the caller.
    ///
    /// On error the event is still returned (as [`Event::Rejected`]) so it can be stored and recorded.
    pub fn from_hook_payload(body: &[u8]) -> (Event, Option<HookError>) {
        match serde_json::from_slice::<serde_json::Value>(body) {
            Ok(value) => Event::from_hook_value(&value),
            Err(e) => {
                let e = HookError::NotJson(e.to_string());
                let kind = "hook:?".to_owned();
                (
                    Event::Rejected {
                        kind,
                        error: e.to_string(),
                    },
                    Some(e),
                )
            }
        }
    }

    /// [`Event::from_hook_payload`] for a payload already decoded (the hub reads fields of it too, and
    /// parses it once).
    pub fn from_hook_value(value: &serde_json::Value) -> (Event, Option<HookError>) {
        match hook::parse_value(value) {
            Ok(h) => (Event::Hook(h), None),
            Err(e) => (
                Event::Rejected {
                    kind: hook_kind_of(value),
                    error: e.to_string(),
                },
                Some(e),
            ),
        }
    }

    /// Rebuilds an event from a stored `(kind, payload)` row. Never fails: what cannot be understood
    /// comes back as [`Event::Rejected`], exactly as it was decided the first time.
    pub fn from_stored(kind: &str, payload: &[u8]) -> Event {
        match kind {
            WAIT_CONNECT => Event::WaitConnected,
            WAIT_DISCONNECT => Event::WaitDisconnected,
            SPAWN => Event::Spawned,
            TERMINATE => Event::Terminated,
            INTERRUPT => Event::Interrupted,
            DISMISS => Event::Dismissed,
            ANSWER => Event::Answered,
            SECOND_OPINION => match serde_json::from_slice::<Opinion>(payload) {
                Ok(opinion) => Event::SecondOpinion(opinion),
                Err(_) => Event::Rejected {
                    kind: SECOND_OPINION.to_owned(),
                    error: "unreadable second opinion".to_owned(),
                },
            },
            UNDELIVERED => match serde_json::from_slice::<Undelivered>(payload) {
                Ok(u) => Event::Undelivered(u),
                Err(_) => Event::Rejected {
                    kind: UNDELIVERED.to_owned(),
                    error: "unreadable undelivered message".to_owned(),
                },
            },
            k if k.starts_with("hook:") => Event::from_hook_payload(payload).0,
            k if k.starts_with("transcript:") => match serde_json::from_slice::<Entry>(payload) {
                Ok(entry) if entry.kind() == k => Event::Transcript(entry),
                Ok(_) | Err(_) => Event::Rejected {
                    kind: k.to_owned(),
                    error: "unreadable transcript entry".to_owned(),
                },
            },
            other => Event::Rejected {
                kind: other.to_owned(),
                error: format!("unknown event kind `{other}`"),
            },
        }
    }
}

/// `hook:<name>` when the payload names its event, else `hook:?`; used to store unusable payloads.
fn hook_kind_of(value: &serde_json::Value) -> String {
    let name = value
        .get("hook_event_name")
        .and_then(serde_json::Value::as_str);
    match name {
        Some(n) if !n.is_empty() && n.len() <= 64 => format!("hook:{n}"),
        Some(_) | None => "hook:?".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_events_round_trip() {
        for e in [
            Event::WaitConnected,
            Event::WaitDisconnected,
            Event::Spawned,
            Event::Terminated,
            Event::Interrupted,
            Event::Dismissed,
            Event::Answered,
        ] {
            assert_eq!(Event::from_stored(&e.kind(), b""), e);
        }
        let opinion = Opinion {
            status: crate::opinion::ClaudeStatus::Idle,
            from: crate::opinion::OpinionSource::StatusReport,
            waiting_for: None,
            for_ms: 5000,
            why: "w".into(),
        };
        let undelivered = Undelivered {
            to: "moon".into(),
            reason: "moon is not running".into(),
        };
        let payload = serde_json::to_vec(&undelivered).unwrap();
        assert_eq!(
            Event::from_stored("between:undelivered", &payload),
            Event::Undelivered(undelivered)
        );
        assert!(matches!(
            Event::from_stored("between:undelivered", b"{"),
            Event::Rejected { .. }
        ));
        let payload = serde_json::to_vec(&opinion).unwrap();
        assert_eq!(
            Event::from_stored("claude:status", &payload),
            Event::SecondOpinion(opinion)
        );
        let entry = Entry::ToolResult {
            tool_use_id: "t".into(),
            rejected: true,
        };
        let payload = serde_json::to_vec(&entry).unwrap();
        assert_eq!(
            Event::from_stored(entry.kind(), &payload),
            Event::Transcript(entry)
        );
        assert!(matches!(
            Event::from_stored("transcript:interrupted", &payload),
            Event::Rejected { .. }
        ));
        let body = br#"{"hook_event_name":"Stop","stop_hook_active":true}"#;
        let (e, err) = Event::from_hook_payload(body);
        assert!(err.is_none());
        assert_eq!(Event::from_stored(&e.kind(), body), e);
    }

    #[test]
    fn unusable_payloads_become_rejected_events() {
        let (e, err) = Event::from_hook_payload(br#"{"hook_event_name":"PreToolUse"}"#);
        assert_eq!(err, Some(HookError::MissingField("tool_name")));
        assert_eq!(e.kind(), "hook:PreToolUse");
        let (e, _) = Event::from_hook_payload(b"\xff\xfe");
        assert_eq!(e.kind(), "hook:?");
        assert!(matches!(
            Event::from_stored("bogus", b""),
            Event::Rejected { .. }
        ));
    }
}
