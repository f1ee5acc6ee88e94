//! What the hub keeps in memory about one agent, beside its stored state: one slice per feature that
//! owns it, so each feature's module is where its per-agent state is read and written.
//!
//! - [`Mailbox`] (`mailbox.rs`, used by `inbox/` and `http/wait.rs`): the inbox consumer lock, the wait
//!   slot and its ordering lock, the hand-over flags.
//! - [`Running`] (`lifecycle/running.rs`): the process, its end, its sign of life, its problem.
//! - [`Asks`] (`asks/`): the permission, question or plan request a hook holds open.
//! - the transcript being followed (`transcript.rs`), and the work in the background it told of
//!   (`transcript/background.rs`).
//! - `last_status`: the status last broadcast (`states.rs`, `States::apply`).
//!
//! Lock order, for code that holds more than one (the async locks may be held across awaits; the std
//! mutexes never are, and none is taken while holding a std mutex):
//! 1. `Running::lifecycle` (starting or ending the process),
//! 2. `Mailbox::wait_order` (a wait connecting or leaving),
//! 3. `Mailbox::consumer` (taking the inbox),
//! 4. the store's writer (inside `Store::apply`, `Store::append`),
//! 5. then any std mutex, briefly and one at a time: the hub's agent map, the wait slot, the process, the
//!    problem, the transcript, the open request, `last_status`, the observers. (`last_status` is held while
//!    its status goes on the UI channel, whose send takes tokio's own lock: statuses leave in event order.)

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

use clawmux_core::State;

use crate::asks::request::Asks;
use crate::lifecycle::running::Running;
use crate::mailbox::Mailbox;
use clawmux_core::sync::Locked;

/// The transcript an agent's task follows (`transcript.rs`); dropping it stops the task.
pub(crate) struct Watching {
    pub(crate) path: PathBuf,
    pub(crate) task: tokio::task::AbortHandle,
    /// When the watch was started: one that could not start is not tried again sooner than a moment later.
    pub(crate) since: tokio::time::Instant,
    /// Where the file ended when a hook first named it: what is written after is read, even by a watch
    /// that starts later (its task runs after the hook's reply, or a moment later when it could not start).
    pub(crate) from: u64,
}

impl Drop for Watching {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// One agent's live state.
pub(crate) struct Live {
    pub(crate) work_dir: PathBuf,
    /// The id of the last event whose status was broadcast. Events are applied in parallel (the store
    /// commits them in groups); a status computed from an older event than one already sent is stale
    /// and is not sent, so the UI never steps back.
    pub(crate) last_status: Mutex<i64>,
    /// The inbox's slice.
    pub(crate) mail: Mailbox,
    /// The lifecycle's slice.
    pub(crate) run: Running,
    /// The request a PermissionRequest hook holds open (`asks/`).
    pub(crate) asks: Asks,
    /// The transcript being watched, if a hook has named one.
    transcript: Mutex<Option<Watching>>,
    /// Claude Code's tasks in the background, from its transcript.
    pub(crate) background: crate::transcript::background::Running,
}

impl Live {
    pub(crate) fn new(work_dir: PathBuf, state: State) -> Live {
        Live {
            last_status: Mutex::new(0),
            mail: Mailbox::new(),
            run: Running::new(state),
            asks: Asks::default(),
            transcript: Mutex::new(None),
            background: crate::transcript::background::Running::default(),
            work_dir,
        }
    }

    pub(crate) fn transcript(&self) -> MutexGuard<'_, Option<Watching>> {
        self.transcript.locked()
    }
}
