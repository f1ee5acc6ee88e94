//! The part of an agent's live state its lifecycle owns: its process, whether its end was asked for, its
//! latest sign of life, and what the user must know about it.

use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, MutexGuard};

use clawmux_core::State;
use tokio::sync::{watch, Notify};

use super::pulse::Pulse;
use clawmux_core::sync::Locked;

/// One agent's run.
pub(crate) struct Running {
    /// The latest sign of life, for the supervisor of a running agent.
    pub(crate) pulse: watch::Sender<Pulse>,
    /// The pid of the agent's process in tmux, while the hub runs it.
    process: Mutex<Option<u32>>,
    /// The user asked for the running process to end: its end is not a crash.
    pub(crate) ending: AtomicBool,
    /// Told when the agent's process has ended: a `clawmux wait` still connected for it is closed.
    pub(crate) ended: Notify,
    /// Held while the agent's process is started or its end is handled: one at a time.
    pub(crate) lifecycle: tokio::sync::Mutex<()>,
    /// What the user must know about the agent now (it did not start, it stopped, it left the loop);
    /// cleared when the agent is back in `clawmux wait`.
    problem: Mutex<Option<String>>,
    /// Its terminal's screen (with its colours) as its process left it, for the terminal viewers still
    /// showing it: tmux clears a viewer's screen as the session closes.
    last_screen: Mutex<Option<String>>,
}

impl Running {
    pub(crate) fn new(state: State) -> Running {
        Running {
            pulse: watch::channel(Pulse::new(state)).0,
            process: Mutex::new(None),
            ending: AtomicBool::new(false),
            ended: Notify::new(),
            lifecycle: tokio::sync::Mutex::new(()),
            problem: Mutex::new(None),
            last_screen: Mutex::new(None),
        }
    }

    pub(crate) fn process(&self) -> MutexGuard<'_, Option<u32>> {
        self.process.locked()
    }

    pub(crate) fn problem(&self) -> MutexGuard<'_, Option<String>> {
        self.problem.locked()
    }

    pub(crate) fn last_screen(&self) -> MutexGuard<'_, Option<String>> {
        self.last_screen.locked()
    }
}
