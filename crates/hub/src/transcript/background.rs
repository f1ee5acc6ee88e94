//! An agent's work in the background: the tasks Claude Code runs for it (a command the model started with
//! `run_in_background`) that have not ended, as its transcript tells them (`clawmux_core::background`).
//! The agent's slice of its `Live`; the sidebar shows an idle agent with work running.
//! The tasks end with the process: its end clears them.

use std::collections::BTreeSet;
use std::sync::Mutex;

use clawmux_core::background::Background;
use clawmux_core::sync::Locked;

/// The most tasks remembered for one agent: a transcript that starts more and never ends them is not let
/// grow the hub's memory.
const MAX_TASKS: usize = 256;

/// The background tasks of one agent still running.
#[derive(Default)]
pub(crate) struct Running {
    tasks: Mutex<BTreeSet<String>>,
}

impl Running {
    /// Notes what a transcript line said; the number now running, if it changed.
    pub(crate) fn note(&self, what: Background) -> Option<u32> {
        let mut tasks = self.tasks.locked();
        let changed = match what {
            Background::Started(id) => tasks.len() < MAX_TASKS && tasks.insert(id),
            Background::Ended(id) => tasks.remove(&id),
        };
        changed.then(|| count(&tasks))
    }

    /// Forgets every task (the process ended, and its tasks with it); whether there were any.
    pub(crate) fn clear(&self) -> bool {
        let mut tasks = self.tasks.locked();
        let had = !tasks.is_empty();
        tasks.clear();
        had
    }

    /// How many are running.
    pub(crate) fn count(&self) -> u32 {
        count(&self.tasks.locked())
    }
}

fn count(tasks: &BTreeSet<String>) -> u32 {
    u32::try_from(tasks.len()).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn started(id: &str) -> Background {
        Background::Started(id.into())
    }

    fn ended(id: &str) -> Background {
        Background::Ended(id.into())
    }

    #[test]
    fn a_task_runs_from_its_start_to_its_end_and_each_is_counted_once() {
        let running = Running::default();
        assert_eq!(running.note(started("a")), Some(1));
        assert_eq!(running.note(started("a")), None, "read twice");
        assert_eq!(running.note(started("b")), Some(2));
        assert_eq!(running.note(ended("a")), Some(1));
        assert_eq!(running.note(ended("a")), None, "ended twice");
        assert_eq!(running.note(ended("never-started")), None);
        assert_eq!(running.count(), 1);
        assert!(running.clear());
        assert!(!running.clear());
        assert_eq!(running.count(), 0);
    }

    #[test]
    fn a_transcript_that_never_ends_its_tasks_is_not_remembered_without_bound() {
        let running = Running::default();
        for i in 0..MAX_TASKS + 10 {
            running.note(started(&format!("t{i}")));
        }
        assert_eq!(running.count() as usize, MAX_TASKS);
        assert_eq!(running.note(ended("t0")), Some(MAX_TASKS as u32 - 1));
    }
}
