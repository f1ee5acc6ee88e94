//! What the supervisor of a running agent needs to know of its recent events: its state, whether a tool
//! is running, whether the user just interrupted it, and when it last gave a sign of life.

use clawmux_core::hook::HookKind;
use clawmux_core::transcript::Entry;
use clawmux_core::{Event, Need, Snapshot, State};
use tokio::time::Instant;

/// The latest sign of life of one agent; the hub updates it on every applied event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pulse {
    /// The state after the event.
    pub state: State,
    /// A PreToolUse has had no PostToolUse yet: a long command is running, silence is expected.
    pub tool_running: bool,
    /// The user interrupted the agent (Escape) and it has not started anything since: Claude Code fires
    /// no hook when interrupted, so the agent is most likely sitting at its prompt, out of the loop.
    pub interrupted: bool,
    /// The agent waits for the user (a permission, an answer, a plan approval) or for the usage limit to
    /// reset: its silence is expected, and a reminder typed into its terminal would land in the dialog.
    pub needs_user: bool,
    /// When the last event arrived.
    pub last: Instant,
    /// How many events have left the agent outside PROCESSING (idle, compacting, ...). The supervisor
    /// starts its reminders over when this moves, even when it never saw the state itself: an agent that
    /// waits and at once takes the next message goes IDLE and back faster than the supervisor looks.
    pub rests: u64,
}

/// Whether the agent's silence is the user's to end: a dialog open, or held by the usage limit until the
/// reset (a reminder would only hit the limit again; the usage feature continues it, if the user asked).
fn waits_for_user(s: &Snapshot) -> bool {
    s.attention
        .as_ref()
        .is_some_and(|a| a.need.is_waiting() || a.need == Need::RateLimited)
}

impl Pulse {
    /// The pulse of an agent in `state`, as of now.
    pub fn new(state: State) -> Pulse {
        Pulse {
            state,
            tool_running: false,
            interrupted: false,
            needs_user: false,
            last: Instant::now(),
            rests: 0,
        }
    }

    /// The pulse of an agent found as `snapshot` says (a hub's start adopting it): waiting for the user if
    /// it was, so no reminder lands in a dialog or hits the usage limit again.
    pub fn of(snapshot: &Snapshot) -> Pulse {
        Pulse {
            needs_user: waits_for_user(snapshot),
            ..Pulse::new(snapshot.state)
        }
    }

    /// Takes in an applied event and the snapshot it led to.
    pub fn saw(&mut self, event: &Event, after: &Snapshot) {
        self.state = after.state;
        if after.state != State::Processing {
            self.rests += 1;
        }
        self.needs_user = waits_for_user(after);
        self.last = Instant::now();
        match event {
            // A subagent working is a sign of life of the agent, nothing more.
            Event::Hook(hook) if hook.subagent.is_some() => {}
            Event::Hook(hook) => match &hook.kind {
                HookKind::PreToolUse(_) => {
                    self.tool_running = true;
                    self.interrupted = false;
                }
                HookKind::PostToolUse { .. }
                | HookKind::PostToolUseFailure { .. }
                | HookKind::Stop { .. }
                | HookKind::StopFailure { .. } => self.tool_running = false,
                HookKind::UserPromptSubmit { .. } => self.interrupted = false,
                HookKind::SessionStart { .. }
                | HookKind::PreCompact { .. }
                | HookKind::Notification { .. }
                | HookKind::PermissionRequest(_)
                | HookKind::SessionEnd { .. }
                | HookKind::SkillShell { .. } => {}
            },
            Event::Interrupted | Event::Transcript(Entry::Interrupted) => {
                self.tool_running = false;
                self.interrupted = true;
            }
            Event::Transcript(Entry::ToolResult { .. }) => {}
            Event::WaitConnected | Event::Spawned | Event::Terminated => {
                self.tool_running = false;
                self.interrupted = false;
            }
            Event::WaitDisconnected
            | Event::Rejected { .. }
            | Event::Dismissed
            | Event::Answered
            | Event::Undelivered(_)
            | Event::SecondOpinion(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use clawmux_core::Millis;

    use super::*;

    fn snapshot(state: State) -> Snapshot {
        let mut s = Snapshot::new(Millis(0));
        s.state = state;
        s
    }

    #[test]
    fn every_rest_outside_processing_is_counted() {
        let mut p = Pulse::new(State::Processing);
        p.saw(&Event::WaitConnected, &snapshot(State::Idle));
        p.saw(&Event::WaitDisconnected, &snapshot(State::Processing));
        assert_eq!((p.state, p.rests), (State::Processing, 1));
        p.saw(&Event::Interrupted, &snapshot(State::Processing));
        assert_eq!(p.rests, 1, "working on is no rest");
        assert!(p.interrupted);
    }

    #[test]
    fn an_agent_held_by_the_usage_limit_is_never_reminded_one_that_failed_otherwise_is() {
        let mut p = Pulse::new(State::Processing);
        let failed = |need| {
            let mut s = snapshot(State::Processing);
            s.attention = Some(clawmux_core::Attention {
                need,
                reason: "x".into(),
                tool_use_id: None,
                tool_name: None,
                since: Millis(1),
                notice: false,
            });
            s
        };
        p.saw(&Event::WaitDisconnected, &failed(Need::RateLimited));
        assert!(p.needs_user, "a reminder would only hit the limit again");
        p.saw(&Event::WaitDisconnected, &failed(Need::Error));
        assert!(
            !p.needs_user,
            "after an API error, a reminder brings it back"
        );
        // Found so at a hub's start: the same.
        assert!(Pulse::of(&failed(Need::RateLimited)).needs_user);
        assert!(Pulse::of(&failed(Need::Permission)).needs_user);
        assert!(!Pulse::of(&snapshot(State::Processing)).needs_user);
    }
}
