//! An agent's mailbox: the part of its live state the inbox owns. Who may take the agent's messages now
//! (one consumer at a time: the waiter, a tool hook or the Stop hook), which `clawmux wait` is connected,
//! and the two flags that spare hooks a database query.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};

use clawmux_core::sync::Locked;
use tokio::sync::Notify;

/// How the hub signals a connected `clawmux wait`.
#[derive(Debug, Default)]
pub(crate) struct WaitSignals {
    /// Look at the inbox: a message may have arrived.
    pub(crate) wake: Notify,
    /// The Bash call that ran this wait has returned (Claude moved it to the background at its timeout,
    /// or ran it there): nothing it prints reaches Claude now, so it must take no message, and end.
    pub(crate) call_returned: Notify,
    /// The wait is to end printing `notice`: Claude Code queued something for the model, which it hands
    /// over only when a tool call ends, or the hub owes the model something of its own (a wake-up).
    pub(crate) noticed: Notify,
    /// The line the wait prints, and whether it is the hub's own (kept for the next wait if this one ends
    /// with messages first; what Claude Code queued it hands over itself at that end).
    notice: Mutex<Option<(String, Owed)>>,
}

/// Whose notice a wait ends with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Owed {
    /// Claude Code holds it, and hands it over itself when the wait's call ends.
    ByClaudeCode,
    /// Only the hub will tell the model: kept until a wait prints it.
    ByHub,
}

impl WaitSignals {
    /// Has the wait end with `line`.
    pub(crate) fn tell(&self, line: String, owed: Owed) {
        *self.notice.locked() = Some((line, owed));
        self.noticed.notify_one();
    }

    /// The line a wait was to end with and has not, taken.
    pub(crate) fn untold(&self) -> Option<(String, Owed)> {
        self.notice.locked().take()
    }
}

/// One agent's mailbox.
pub(crate) struct Mailbox {
    /// One inbox consumer at a time: the waiter, a tool hook or the Stop hook.
    pub(crate) consumer: Arc<tokio::sync::Mutex<()>>,
    /// Makes "change the waiter slot, then record its connect or disconnect" one step per agent. Without
    /// it, an agent that re-enters `clawmux wait` at once can have the old wait's disconnect recorded after
    /// the new wait's connect, and show PROCESSING while it waits.
    pub(crate) wait_order: tokio::sync::Mutex<()>,
    /// The connected `clawmux wait`, if any: its id and how to signal it.
    waiter: Mutex<Option<(u64, Arc<WaitSignals>)>>,
    /// A message was handed over through a hook and Claude has not been stopped-and-reminded since (the
    /// original wrote a `.hook_delivered` file into the work folder for this; nothing of ours goes there).
    pub(crate) hook_delivered: AtomicBool,
    /// Set when a message for this agent is stored, cleared by a consumer before it looks: lets hooks skip
    /// the inbox query when nothing can be pending. Never a false "nothing": set after commit, cleared before
    /// reading.
    pub(crate) maybe_pending: AtomicBool,
    /// A notice the hub owes the model and no wait has taken yet (a wake-up that fell due while the agent
    /// worked): the next wait ends with it at once.
    kept_notice: Mutex<Option<String>>,
}

impl Mailbox {
    pub(crate) fn new() -> Mailbox {
        Mailbox {
            consumer: Arc::new(tokio::sync::Mutex::new(())),
            wait_order: tokio::sync::Mutex::new(()),
            waiter: Mutex::new(None),
            hook_delivered: AtomicBool::new(false),
            maybe_pending: AtomicBool::new(true),
            kept_notice: Mutex::new(None),
        }
    }

    pub(crate) fn waiter(&self) -> MutexGuard<'_, Option<(u64, Arc<WaitSignals>)>> {
        self.waiter.locked()
    }

    pub(crate) fn has_waiter(&self) -> bool {
        self.waiter().is_some()
    }

    /// The connected wait's Bash call has returned: tell it to end.
    pub(crate) fn release_waiter(&self) {
        if let Some((_, signals)) = &*self.waiter() {
            signals.call_returned.notify_one();
        }
    }

    /// Has the connected wait end printing `line`; whether one was connected. Without one, what Claude
    /// Code holds it hands over itself at the end of the tool call under way, and what the hub owes is
    /// kept for the next wait.
    pub(crate) fn notice(&self, line: String, owed: Owed) -> bool {
        let waiter = self.waiter();
        match (&*waiter, owed) {
            (Some((_, signals)), _) => signals.tell(line, owed),
            (None, Owed::ByHub) => *self.kept_notice.locked() = Some(line),
            (None, Owed::ByClaudeCode) => {}
        }
        waiter.is_some()
    }

    /// The notice kept for the next wait, taken.
    pub(crate) fn take_kept_notice(&self) -> Option<String> {
        self.kept_notice.locked().take()
    }

    /// Keeps `line` for the next wait again (a wait that ended with messages before it told it).
    pub(crate) fn keep_notice(&self, line: String) {
        self.kept_notice.locked().get_or_insert(line);
    }

    /// Wakes the waiter, if one is connected, to look at the inbox.
    pub(crate) fn wake(&self) {
        if let Some((_, signals)) = &*self.waiter() {
            signals.wake.notify_one();
        }
    }
}
