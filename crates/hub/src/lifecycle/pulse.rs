//! What the supervisor of a running agent needs to know of its recent events: its state, whether a tool
//! is running, whether the user just interrupted it, and when it last gave a sign of life.

use clawmux_core::hook::HookKind;
use clawmux_core::{Event, Snapshot, State};
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
    /// When the last event arrived.
    pub last: Instant,
}

impl Pulse {
    /// The pulse of an agent in `state`, as of now.
    pub fn new(state: State) -> Pulse {
        Pulse {
            state,
            tool_running: false,
            interrupted: false,
            last: Instant::now(),
        }
    }

    /// Takes in an applied event and the snapshot it led to.
    pub fn saw(&mut self, event: &Event, after: &Snapshot) {
        self.state = after.state;
        self.last = Instant::now();
        match event {
            Event::Hook(hook) => match &hook.kind {
                HookKind::PreToolUse(_) => {
                    self.tool_running = true;
                    self.interrupted = false;
                }
                HookKind::PostToolUse { .. }
                | HookKind::PostToolUseFailure { .. }
                | HookKind::Stop { .. } => self.tool_running = false,
                HookKind::SessionStart { .. }
                | HookKind::PreCompact { .. }
                | HookKind::Notification { .. } => {}
            },
            Event::WaitConnected | Event::Spawned | Event::Terminated => {
                self.tool_running = false;
                self.interrupted = false;
            }
            Event::WaitDisconnected | Event::Rejected { .. } => {}
        }
    }
}
