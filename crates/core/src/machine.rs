//! The transition function: `(snapshot, event, source, time) -> (snapshot, decision)`.
//!
//! It implements the table of `docs/STATE-MACHINE.md` to the letter:
//!
//! | from | to | trigger |
//! |---|---|---|
//! | STARTING | IDLE | first wait connects |
//! | IDLE | PROCESSING | wait disconnects |
//! | PROCESSING | IDLE | wait connects |
//! | PROCESSING | COMPACTING | PreCompact |
//! | IDLE | COMPACTING | PreCompact (Claude Code's idle compaction, `/compact` at the prompt) |
//! | COMPACTING | IDLE | wait connects; SessionStart `compact` of a compaction begun at IDLE |
//! | COMPACTING | PROCESSING | PreToolUse; SessionStart `compact` of one begun mid-turn |
//! | any | DEAD | terminated |
//!
//! plus one row of ours, DEAD -> STARTING when the hub (re)starts the agent's process. Only the wait socket
//! moves IDLE <-> PROCESSING. Hooks otherwise set only the status_text, which is kept across transitions
//! and overwritten only explicitly: SessionStart, PreToolUse and PreCompact set it; PostToolUse and Stop never
//! touch it; entering a state with an empty text shows that state's default. Termination clears it, because
//! an offline agent is doing nothing and "Running git status" beside "Offline" would be a lie.
//!
//! An observed session (one ClawMux did not start, seen through `clawmux hooks install`) never runs
//! `clawmux wait`, so its turns are read from the hooks that bound them. Its table, beside the one above:
//!
//! | from | to | trigger |
//! |---|---|---|
//! | STARTING, DEAD | IDLE | SessionStart (not `compact`) |
//! | STARTING, IDLE | PROCESSING | UserPromptSubmit (the user's), PreToolUse, PostToolUse(Failure) |
//! | STARTING, PROCESSING, COMPACTING | IDLE | Stop, StopFailure, an interrupt |
//! | IDLE, PROCESSING | COMPACTING | PreCompact |
//! | COMPACTING | PROCESSING, IDLE | PreToolUse; SessionStart `compact` (IDLE when it began there) |
//! | any but DEAD | DEAD | SessionEnd |
//!
//! Three rules come before either table. A subagent's hook (it carries `agent_id`) is suppressed: subagents
//! share the session but never move the main agent. A transcript line older than the watermark (the latest
//! source time applied) is suppressed as stale: the transcript lags the hooks, and a late line must not
//! overwrite a newer decision. A DEAD agent hears only a spawn (and, observed, a SessionStart).
//!
//! The "needs you" overlay (`attention.rs`) is decided after the state, for every event that was not
//! suppressed (`machine/overlay.rs`). The observed sessions' table is `machine/observed.rs`.
//!
//! Every arm is explicit (no wildcard over our own enums), so a new state or event cannot slip through
//! unhandled: the compiler lists every place it must be decided.

use crate::activity;
use crate::attention::{AttentionChange, ToolRef};
use crate::decision::{Decision, Outcome, Reason};
use crate::event::{Event, Source};
use crate::hook::{Hook, HookKind};
use crate::state::{Snapshot, State};
use crate::time::Millis;
use crate::transcript::Entry;
use observed::decide_observed;
use overlay::overlay;

mod observed;
mod overlay;

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
    if let Event::SecondOpinion(opinion) = event {
        return noted(current, event, source, at, opinion.why.clone());
    }
    let (verdict, detail) = match before_the_tables(current, event, source, at) {
        Some(reason) => (Verdict::Suppress(reason), None),
        None if current.observed => decide_observed(current, event),
        None => decide(current, event),
    };
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
    let attention = match outcome {
        Outcome::Moved | Outcome::Stayed => overlay(current, event, at),
        Outcome::Suppressed(_) => None,
    };
    match &attention {
        Some(AttentionChange::Set(a)) => next.attention = Some(a.clone()),
        Some(AttentionChange::Cleared { .. }) => next.attention = None,
        None => {}
    }
    if matches!(outcome, Outcome::Moved | Outcome::Stayed) {
        next.last_tool = last_tool(current, event);
        next.watermark = current.watermark.max(at);
    }
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
        attention,
    };
    (next, decision)
}

/// Claude Code's own view, recorded beside ours: nothing changes, not even the watermark, so a replay with
/// or without it decides everything else alike.
fn noted(
    current: &Snapshot,
    event: &Event,
    source: Source,
    at: Millis,
    detail: String,
) -> (Snapshot, Decision) {
    let decision = Decision {
        trigger: event.kind(),
        source,
        at,
        from: current.state,
        to: current.state,
        activity: None,
        outcome: Outcome::Stayed,
        detail: Some(detail),
        attention: None,
    };
    (current.clone(), decision)
}

/// The rules before either table: subagents, stale transcript lines, the dead.
fn before_the_tables(
    current: &Snapshot,
    event: &Event,
    source: Source,
    at: Millis,
) -> Option<Reason> {
    match event {
        Event::Hook(Hook {
            subagent: Some(_), ..
        }) => Some(Reason::Subagent),
        Event::Transcript(_) if source == Source::Transcript && at < current.watermark => {
            Some(Reason::Stale)
        }
        Event::Transcript(_)
        | Event::Interrupted
        | Event::Dismissed
        | Event::Answered
        | Event::Undelivered(_)
            if current.state == State::Dead =>
        {
            Some(Reason::AgentDead)
        }
        Event::Transcript(_)
        | Event::Interrupted
        | Event::Dismissed
        | Event::Answered
        | Event::Undelivered(_)
        | Event::SecondOpinion(_)
        | Event::Hook(_)
        | Event::WaitConnected
        | Event::WaitDisconnected
        | Event::Spawned
        | Event::Terminated
        | Event::Rejected { .. } => None,
    }
}

/// Long: the state machine's transition table, one arm per event, read as one.
fn decide(current: &Snapshot, event: &Event) -> (Verdict, Option<String>) {
    use State::{Compacting, Dead, Idle, Processing, Starting};
    let state = current.state;
    match event {
        Event::Rejected { error, .. } => (Verdict::Suppress(Reason::Rejected(error.clone())), None),
        Event::Interrupted => (Verdict::Stay(interrupted_text(state)), None),
        Event::Dismissed => match &current.attention {
            Some(a) if a.notice => (Verdict::Stay(None), Some(a.reason.clone())),
            Some(_) | None => (Verdict::Suppress(Reason::NothingToDismiss), None),
        },
        // The state is the agent's; the overlay ends the dialog's "needs you".
        Event::Answered => (
            Verdict::Stay(None),
            current.attention.as_ref().map(|a| a.reason.clone()),
        ),
        // The agent's state is its own; the overlay says what it needs.
        Event::Undelivered(u) => (Verdict::Stay(None), Some(u.reason.clone())),
        // Handled before the tables (`noted`); here for completeness.
        Event::SecondOpinion(o) => (Verdict::Stay(None), Some(o.why.clone())),
        Event::Transcript(entry) => transcript_verdict(state, entry),
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
                HookKind::SessionStart { source } if source == "compact" => {
                    // The end of a compaction inside a running session, not a start: what was compacting
                    // works on (or, compacted at the user's `/compact`, stopped at its prompt, which the
                    // reminder clock of PROCESSING then sees).
                    let verdict = match state {
                        Compacting => after_compaction(current),
                        Starting | Idle | Processing | Dead => Verdict::Stay(None),
                    };
                    (verdict, Some(format!("source={source}")))
                }
                HookKind::SessionStart { source } => (
                    Verdict::Stay(Some("Starting session...".to_owned())),
                    Some(format!("source={source}")),
                ),
                HookKind::PreToolUse(call) => {
                    let text = Some(activity::describe(call, hook.cwd.as_deref()));
                    let detail = Some(tool_detail(&call.name, call.id.as_deref()));
                    match state {
                        Compacting => (Verdict::Move(Processing, text), detail),
                        Starting | Idle | Processing => (Verdict::Stay(text), detail),
                        Dead => (Verdict::Suppress(Reason::AgentDead), detail),
                    }
                }
                // A skill's shell command: the activity a tool call shows, with no tool call to pair.
                HookKind::SkillShell { skill, command } => {
                    let text = Some(activity::skill_shell(skill, command));
                    let detail = Some(format!("skill={skill}"));
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
                        // Claude Code compacts a long conversation left idle by itself (and the user may
                        // `/compact` at the prompt): Compacting meanwhile, Idle again after it.
                        Idle => (
                            Verdict::Move(Compacting, Some(activity::IDLE_COMPACTION.to_owned())),
                            detail,
                        ),
                        Compacting => (Verdict::Stay(None), detail),
                        Starting => (Verdict::Suppress(Reason::NotInTable), detail),
                        Dead => (Verdict::Suppress(Reason::AgentDead), detail),
                    }
                }
                HookKind::Stop { stop_hook_active } => (
                    Verdict::Stay(None),
                    Some(format!("stop_hook_active={stop_hook_active}")),
                ),
                HookKind::Notification { message, .. } => {
                    (Verdict::Stay(None), Some(message.clone()))
                }
                HookKind::PermissionRequest(call) => {
                    (Verdict::Stay(None), Some(tool_detail(&call.name, None)))
                }
                HookKind::UserPromptSubmit { injected } => (
                    Verdict::Stay(None),
                    injected.then(|| "injected by Claude Code".to_owned()),
                ),
                HookKind::StopFailure { error, .. } => (Verdict::Stay(None), Some(error.clone())),
                HookKind::SessionEnd { reason } => {
                    (Verdict::Stay(None), Some(format!("reason={reason}")))
                }
            }
        }
    }
}

/// Where a compaction ends (SessionStart `compact`): at the prompt when it began there (idle compaction,
/// `/compact`), working on when it began mid-turn.
fn after_compaction(current: &Snapshot) -> Verdict {
    if current.activity == activity::IDLE_COMPACTION {
        Verdict::Move(State::Idle, Some(String::new()))
    } else {
        Verdict::Move(
            State::Processing,
            Some(State::Processing.default_activity().to_owned()),
        )
    }
}

/// The status_text after an interrupt: the tool that was running is not running any more.
fn interrupted_text(state: State) -> Option<String> {
    match state {
        State::Processing => Some("Interrupted".to_owned()),
        State::Starting | State::Idle | State::Compacting | State::Dead => None,
    }
}

/// A transcript line never moves the canonical state; it only ends tool activity.
fn transcript_verdict(state: State, entry: &Entry) -> (Verdict, Option<String>) {
    match entry {
        Entry::Interrupted => (Verdict::Stay(interrupted_text(state)), None),
        Entry::ToolResult {
            tool_use_id,
            rejected,
        } => {
            let text = (*rejected && state == State::Processing)
                .then(|| State::Processing.default_activity().to_owned());
            let note = if *rejected { " rejected" } else { "" };
            (Verdict::Stay(text), Some(format!("{tool_use_id}{note}")))
        }
    }
}

/// The main agent's latest tool call after an applied event.
fn last_tool(current: &Snapshot, event: &Event) -> Option<ToolRef> {
    match event {
        Event::Hook(Hook {
            kind: HookKind::PreToolUse(call),
            ..
        }) => Some(ToolRef {
            id: call.id.clone(),
            name: call.name.clone(),
        }),
        Event::Spawned | Event::Terminated => None,
        Event::Hook(_)
        | Event::WaitConnected
        | Event::WaitDisconnected
        | Event::Interrupted
        | Event::Dismissed
        | Event::Answered
        | Event::Undelivered(_)
        | Event::SecondOpinion(_)
        | Event::Transcript(_)
        | Event::Rejected { .. } => current.last_tool.clone(),
    }
}

fn tool_detail(name: &str, id: Option<&str>) -> String {
    match id {
        Some(id) => format!("{name} {id}"),
        None => name.to_owned(),
    }
}
