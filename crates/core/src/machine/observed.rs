//! The table of an observed session (a Claude Code session ClawMux did not start, seen through `clawmux
//! hooks install`): it never runs `clawmux wait`, so its turns are read from the hooks that bound them
//! (the table is in the machine's module docs and `docs/STATE-MACHINE.md`).

use super::{decide, Verdict};
use crate::activity;
use crate::decision::Reason;
use crate::event::Event;
use crate::hook::HookKind;
use crate::state::{Snapshot, State};
use crate::transcript::Entry;

/// The table of an observed session (see the module docs).
/// Long: the transition table of a session ClawMux did not start, beside `decide`.
pub(super) fn decide_observed(current: &Snapshot, event: &Event) -> (Verdict, Option<String>) {
    use State::{Compacting, Dead, Idle, Processing, Starting};
    let state = current.state;
    let to_idle = |text| observed_to(Idle, state, text);
    let to_processing = |text| observed_to(Processing, state, text);
    let Event::Hook(hook) = event else {
        return match event {
            Event::Interrupted | Event::Transcript(Entry::Interrupted) => {
                (to_idle(Some(String::new())), None)
            }
            Event::WaitConnected
            | Event::WaitDisconnected
            | Event::Spawned
            | Event::Terminated
            | Event::Dismissed
            | Event::Answered
            | Event::Undelivered(_)
            | Event::SecondOpinion(_)
            | Event::Rejected { .. }
            | Event::Transcript(_)
            | Event::Hook(_) => decide(current, event),
        };
    };
    let (canonical, detail) = decide(current, event);
    let verdict = match &hook.kind {
        HookKind::SessionStart { source } if source == "compact" => canonical,
        HookKind::SessionStart { .. } => match state {
            Starting | Dead => Verdict::Move(Idle, Some(String::new())),
            Idle | Processing | Compacting => canonical,
        },
        HookKind::UserPromptSubmit { injected: false } => {
            to_processing(Some(State::Processing.default_activity().to_owned()))
        }
        HookKind::PreToolUse(call) => {
            to_processing(Some(activity::describe(call, hook.cwd.as_deref())))
        }
        HookKind::SkillShell { skill, command } => {
            to_processing(Some(activity::skill_shell(skill, command)))
        }
        HookKind::PostToolUse { .. } | HookKind::PostToolUseFailure { .. } => match state {
            Starting | Idle => to_processing(None),
            Processing | Compacting | Dead => canonical,
        },
        HookKind::Stop { .. } | HookKind::StopFailure { .. } => to_idle(Some(String::new())),
        HookKind::SessionEnd { .. } => match state {
            Starting | Idle | Processing | Compacting => Verdict::Move(Dead, Some(String::new())),
            Dead => canonical,
        },
        HookKind::UserPromptSubmit { injected: true }
        | HookKind::PreCompact { .. }
        | HookKind::Notification { .. }
        | HookKind::PermissionRequest(_) => canonical,
    };
    (verdict, detail)
}

/// An observed session's move to `to` (Idle or Processing) from `state`: a dead one hears nothing, and one
/// already there keeps its text when it comes back to Idle.
fn observed_to(to: State, state: State, text: Option<String>) -> Verdict {
    match state {
        State::Dead => Verdict::Suppress(Reason::AgentDead),
        same if same == to && to == State::Idle => Verdict::Stay(None),
        same if same == to => Verdict::Stay(text),
        State::Starting | State::Idle | State::Processing | State::Compacting => {
            Verdict::Move(to, text)
        }
    }
}
