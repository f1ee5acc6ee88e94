//! The hub's own tasks, each with an owner that stops it.
//!
//! A feature that runs work of its own (a machine's relay, a watch on Claude Code's files, an agent's
//! supervision, an errand due later) spawns it through the [`Tasks`] it was made with, never with a bare
//! `tokio::spawn`. The composition root makes one `Tasks` per hub and `serve` stops it on the way out:
//! every task is told to stop, and `serve` waits for them to end. Without an owner, a hub served inside the
//! window's process (the app) left its tasks running after it stopped: a relay to another machine went on
//! dialling it, and its ssh went on with it.

use std::future::Future;
use std::time::Duration;

use tokio::task::AbortHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// The tasks of one hub.
#[derive(Clone, Default)]
pub struct Tasks {
    tracker: TaskTracker,
    stop: CancellationToken,
}

impl Tasks {
    /// Runs `work` until it ends or the hub stops, whichever comes first (a stopped task is dropped at the
    /// point it waits, as an aborted one is).
    pub fn spawn(&self, work: impl Future<Output = ()> + Send + 'static) -> AbortHandle {
        let stop = self.stop.clone();
        self.tracker
            .spawn(async move {
                tokio::select! {
                    biased;
                    () = stop.cancelled() => {}
                    () = work => {}
                }
            })
            .abort_handle()
    }

    /// Whether the hub is stopping: a task about to start more work leaves it.
    pub fn stopping(&self) -> bool {
        self.stop.is_cancelled()
    }

    /// The tasks still running.
    pub fn running(&self) -> usize {
        self.tracker.len()
    }

    /// Tells every task to stop and waits, at most `within`, for them to end; whether they all did. A task
    /// spawned after this is stopped at once.
    pub async fn stop(&self, within: Duration) -> bool {
        self.stop.cancel();
        self.tracker.close();
        tokio::time::timeout(within, self.tracker.wait())
            .await
            .is_ok()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    use super::Tasks;

    /// Set when dropped: what a task holds (an ssh child, a file watch) goes when it stops.
    struct Held(Arc<AtomicBool>);
    impl Drop for Held {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    #[tokio::test]
    async fn stopping_ends_every_task_and_drops_what_it_holds() {
        let tasks = Tasks::default();
        let dropped = Arc::new(AtomicBool::new(false));
        let held = Held(dropped.clone());
        tasks.spawn(async move {
            let _held = held;
            std::future::pending::<()>().await;
        });
        tasks.spawn(async {});
        tokio::task::yield_now().await;
        assert_eq!(tasks.running(), 1, "the finished one is not counted");
        assert!(tasks.stop(Duration::from_secs(5)).await);
        assert_eq!(tasks.running(), 0);
        assert!(dropped.load(Ordering::SeqCst));
        assert!(tasks.stopping());
    }

    #[tokio::test]
    async fn a_task_spawned_after_the_stop_never_runs_on() {
        let tasks = Tasks::default();
        assert!(tasks.stop(Duration::from_secs(5)).await);
        let ran = Arc::new(AtomicBool::new(false));
        let marking = ran.clone();
        tasks.spawn(async move {
            tokio::task::yield_now().await;
            marking.store(true, Ordering::SeqCst);
        });
        tokio::task::yield_now().await;
        assert!(tasks.stop(Duration::from_secs(5)).await);
        assert!(
            !ran.load(Ordering::SeqCst),
            "cancelled before its first step"
        );
    }
}
