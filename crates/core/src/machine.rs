//! The transition function: `(snapshot, event, source, time) -> (snapshot, decision)`.
//!
//! It implements `seeds/agent-state-machine.txt` to the letter:
//!
//! | from | to | trigger |
//! |---|---|---|
//! | STARTING | IDLE | first wait connects |
//! | IDLE | PROCESSING | wait disconnects |
//! | PROCESSING | IDLE | wait connects |
//! | PROCESSING | COMPACTING | PreCompact |
//! | COMPACTING | IDLE | wait connects |
//! | COMPACTING | PROCESSING | PreToolUse |
//! | any | DEAD | terminated |
//!
//! plus one row of ours, DEAD -> STARTING when the hub (re)starts the agent's process. Only the wait socket
//! moves IDLE <-> PROCESSING. Hooks otherwise set only the status_text, which is kept across transitions
//! and overwritten only explicitly: SessionStart, PreToolUse and PreCompact set it; PostToolUse and Stop never
//! touch it; entering a state with an empty text shows that state's default. Termination clears it, because
//! an offline agent is doing nothing and "Running git status" beside "Offline" would be a lie.
//!
//! Every arm is explicit (no wildcard over our own enums), so a new state or event cannot slip through
//! unhandled: the compiler lists every place it must be decided.

use crate::activity;
use crate::decision::{Decision, Outcome, Reason};
use crate::event::{Event, Source};
use crate::hook::HookKind;
use crate::state::{Snapshot, State};
use crate::time::Millis;

/// What a rule decided, before it is turned into a record.
enum Verdict {
    /// Move to a state, optionally setting the status_text.
    Move(State, Option<String>),
    /// Stay, optionally setting the status_text.
    Stay(Option<String>),
    /// Do nothing, for this reason.
    Suppress(Reason),
}

/// Steps the machine. Pure: the same inputs always give the same outputs, and no input panics.
pub fn step(current: &Snapshot, event: &Event, source: Source, at: Millis) -> (Snapshot, Decision) {
    let (verdict, detail) = decide(current, event);
    let from = current.state;
    let mut next = current.clone();
    let (outcome, activity) = match verdict {
        Verdict::Move(to, text) => {
            next.state = to;
            next.since = at;
            let text = match text {
                Some(t) => Some(t),
                None if current.activity.is_empty() => Some(to.default_activity().to_owned()),
                None => None,
            };
            (Outcome::Moved, text)
        }
        Verdict::Stay(text) => (Outcome::Stayed, text),
        Verdict::Suppress(reason) => (Outcome::Suppressed(reason), None),
    };
    // Record the text only when it really changed, so the log shows real changes.
    let activity = activity.filter(|t| *t != current.activity);
    if let Some(text) = &activity {
        next.activity.clone_from(text);
    }
    let decision = Decision {
        trigger: event.kind(),
        source,
        at,
        from,
        to: next.state,
        activity,
        outcome,
        detail,
    };
    (next, decision)
}

fn decide(current: &Snapshot, event: &Event) -> (Verdict, Option<String>) {
    use State::{Compacting, Dead, Idle, Processing, Starting};
    let state = current.state;
    match event {
        Event::Rejected { error, .. } => (Verdict::Suppress(Reason::Rejected(error.clone())), None),
        Event::Spawned => match state {
            Dead => (Verdict::Move(Starting, Some(String::new())), None),
            Starting | Idle | Processing | Compacting => {
                (Verdict::Suppress(Reason::AlreadyAlive), None)
            }
        },
        Event::Terminated => match state {
            Dead => (Verdict::Suppress(Reason::AgentDead), None),
            Starting | Idle | Processing | Compacting => {
                (Verdict::Move(Dead, Some(String::new())), None)
            }
        },
        Event::WaitConnected => match state {
            Starting | Processing | Compacting => (Verdict::Move(Idle, None), None),
            Idle => (Verdict::Suppress(Reason::AlreadyWaiting), None),
            Dead => (Verdict::Suppress(Reason::AgentDead), None),
        },
        Event::WaitDisconnected => match state {
            Idle => (Verdict::Move(Processing, None), None),
            Starting | Processing | Compacting => (Verdict::Suppress(Reason::NotWaiting), None),
            Dead => (Verdict::Suppress(Reason::AgentDead), None),
        },
        Event::Hook(hook) => {
            if state == Dead {
                return (Verdict::Suppress(Reason::AgentDead), None);
            }
            match &hook.kind {
                HookKind::SessionStart { source } => {
                    // `compact` marks the end of a compaction inside a running session, not a start.
                    let text = (source != "compact").then(|| "Starting session...".to_owned());
                    (Verdict::Stay(text), Some(format!("source={source}")))
                }
                HookKind::PreToolUse(call) => {
                    let text = Some(activity::describe(call, hook.cwd.as_deref()));
                    let detail = Some(tool_detail(&call.name, call.id.as_deref()));
                    match state {
                        Compacting => (Verdict::Move(Processing, text), detail),
                        Starting | Idle | Processing => (Verdict::Stay(text), detail),
                        Dead => (Verdict::Suppress(Reason::AgentDead), detail),
                    }
                }
                HookKind::PostToolUse {
                    tool_name,
                    tool_use_id,
                }
                | HookKind::PostToolUseFailure {
                    tool_name,
                    tool_use_id,
                } => (
                    Verdict::Stay(None),
                    Some(tool_detail(tool_name, tool_use_id.as_deref())),
                ),
                HookKind::PreCompact { trigger } => {
                    let detail = Some(format!("trigger={trigger}"));
                    let text = Some(State::Compacting.default_activity().to_owned());
                    match state {
                        Processing => (Verdict::Move(Compacting, text), detail),
                        Compacting => (Verdict::Stay(text), detail),
                        Starting | Idle => (Verdict::Suppress(Reason::NotInTable), detail),
                        Dead => (Verdict::Suppress(Reason::AgentDead), detail),
                    }
                }
                HookKind::Stop { stop_hook_active } => (
                    Verdict::Stay(None),
                    Some(format!("stop_hook_active={stop_hook_active}")),
                ),
                HookKind::Notification { message } => (Verdict::Stay(None), Some(message.clone())),
            }
        }
    }
}

fn tool_detail(name: &str, id: Option<&str>) -> String {
    match id {
        Some(id) => format!("{name} {id}"),
        None => name.to_owned(),
    }
}
