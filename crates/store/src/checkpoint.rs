//! Keeping the WAL bounded without putting a checkpoint on any write's path.
//!
//! The writer never checkpoints (`wal_autocheckpoint=0`): a checkpoint syncs and copies, and it would land
//! on whichever commit happened to cross SQLite's threshold, a pause in that hook's agent. This task does
//! it instead, on a connection of its own, shortly after writes and never while nothing is written.
//!
//! How shortly depends on how many come. Under a steady stream (hooks by the thousand a second) a
//! checkpoint follows [`EVERY`] after a write, so that each finds little to sync and copy. A write that
//! comes alone, as a real agent's do (a hook, a line of its transcript, its status line, a few a second),
//! waits up to [`ALONE`] for company: each checkpoint syncs the WAL and the database file (two
//! `fdatasync`), and when one followed every lone write it was the larger part of the hub's CPU in a
//! working agent's turn. Commits never sync (`synchronous=NORMAL`): a commit is safe from a crash of the
//! hub either way; only a power cut within [`ALONE`] of a lone write can lose it (the operating system
//! writes it back by itself within half a minute otherwise).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use sqlx::{Connection, SqliteConnection};
use tokio::sync::{Mutex, Notify};

use crate::Writer;

/// How long after a write the WAL is checkpointed into the database file under a steady stream of writes,
/// off the writer's path. Short, so that each checkpoint finds little to sync and copy: under sustained
/// hooks the WAL grows ~40 MB a second, and a checkpoint's pass slows the hooks that meet it (they share
/// the machine's two cores and its disk with it), by more the longer it is. Measured under the
/// sustained-hooks benchmark: passes every second took 25-35 ms and met hooks of up to 34 ms; every 250 ms,
/// 10-13 ms passes met the 0.1 % slowest hooks (2.3-2.7 ms); every 100 ms, 5 ms passes.
pub(crate) const EVERY: Duration = Duration::from_millis(100);

/// A steady stream: this many writes within [`EVERY`] of the first.
const STEADY: u64 = 16;

/// How long writes that come alone wait for a checkpoint, from the first of them.
pub(crate) const ALONE: Duration = Duration::from_secs(1);

/// How long after the first write since the last checkpoint the next one begins, given how many writes came
/// within [`EVERY`] of it.
fn wait(writes: u64) -> Duration {
    if writes >= STEADY {
        EVERY
    } else {
        ALONE
    }
}

/// What the writer tells the checkpointer: that it wrote (and how often since the last checkpoint), or
/// that the store is gone; and the checkpoints begun, counted.
#[derive(Debug, Default)]
pub(crate) struct Writes {
    notify: Notify,
    since: AtomicU64,
    checkpoints: AtomicU64,
}

impl Writes {
    /// The writer was taken to write.
    pub(crate) fn wrote(&self) {
        self.since.fetch_add(1, Ordering::Relaxed);
        self.notify.notify_one();
    }

    /// The writer is gone: the checkpointer wakes to see it and ends.
    pub(crate) fn ended(&self) {
        self.notify.notify_one();
    }

    /// The checkpoints begun so far.
    pub(crate) fn checkpoints(&self) -> u64 {
        self.checkpoints.load(Ordering::Relaxed)
    }
}

/// Checkpoints the WAL after writes until the store is dropped, keeping it bounded without putting a
/// checkpoint's copying and syncs on any write's path.
///
/// [`EVERY`] after a write of a steady stream, [`ALONE`] after a lone one (`wrote`, told by whoever takes
/// the writer to write; nothing at all while the hub is idle) a PASSIVE checkpoint on a connection of its
/// own copies the WAL into the database file and syncs both; it never waits for, nor blocks, the writer or
/// readers. SQLite starts the WAL over (writes it
/// again from its start, so it stops growing) when a write begins after a checkpoint that copied all of it,
/// and under steady writes a PASSIVE checkpoint never gets there: frames keep coming while it copies. So
/// once the WAL holds more than [`WAL_LIMIT`], more PASSIVE checkpoints catch up without the writer, each
/// copying what came during the one before; then the writer is held only while one last PASSIVE checkpoint
/// copies the few pages left (about 1-8 ms here, against the 120-200 ms of the TRUNCATE it replaces, which
/// synced and truncated the whole WAL under the writer). With no write under way it copies everything but
/// what a reader of an older snapshot may still read (readers are short; it never waits for them, and what
/// it leaves is copied at the next one), and the next write starts the WAL over. On the checkpointer's own
/// connection while the writer is held, no write can find the WAL started over under it. Nothing is
/// truncated: the file keeps the size it reached (the limit and what comes in a checkpoint's interval).
/// Durability against a crash is unchanged: a checkpoint syncs the WAL before copying and the database
/// before the WAL is started over.
pub(crate) async fn run(
    mut conn: SqliteConnection,
    wrote: Arc<Writes>,
    writer: Weak<Mutex<Writer>>,
) {
    let page: i64 = sqlx::query_scalar("PRAGMA page_size")
        .fetch_one(&mut conn)
        .await
        .unwrap_or(4096);
    loop {
        wrote.notify.notified().await;
        let first = tokio::time::Instant::now();
        tokio::time::sleep(EVERY).await;
        if writer.strong_count() == 0 {
            break;
        }
        tokio::time::sleep_until(first + wait(wrote.since.load(Ordering::Relaxed))).await;
        let Some(writer) = writer.upgrade() else {
            break;
        };
        wrote.since.store(0, Ordering::Relaxed);
        wrote.checkpoints.fetch_add(1, Ordering::Relaxed);
        // How much the WAL holds: its frames, not its file, which keeps the size it once reached.
        let frames = match passive(&mut conn).await {
            Ok(frames) => frames,
            Err(e) => {
                tracing::warn!(error = %e, "WAL checkpoint failed");
                continue;
            }
        };
        if frames.saturating_mul(page + WAL_FRAME_HEADER) <= WAL_LIMIT {
            continue;
        }
        let mut seen = frames;
        for _ in 0..CATCH_UP_PASSES {
            match passive(&mut conn).await {
                Ok(now) if now.saturating_sub(seen) > CATCH_UP_FRAMES => seen = now,
                Ok(_) | Err(_) => break,
            }
        }
        // Taken without telling `wrote`: this pass writes nothing of its own to checkpoint later.
        let held = writer.lock().await;
        let last = passive(&mut conn).await;
        drop(held);
        if let Err(e) = last {
            tracing::warn!(error = %e, "WAL checkpoint failed");
        }
    }
    let _ = conn.close().await;
}

/// The bytes each WAL frame adds to its page.
const WAL_FRAME_HEADER: i64 = 24;

/// At most this many PASSIVE checkpoints catch up before the writer is held for the last pages.
const CATCH_UP_PASSES: usize = 4;

/// Caught up: fewer frames than this came in during the last pass.
const CATCH_UP_FRAMES: i64 = 64;

/// A PASSIVE checkpoint; the frames the WAL held when it began.
async fn passive(conn: &mut SqliteConnection) -> Result<i64, sqlx::Error> {
    let (_, frames, _): (i64, i64, i64) = sqlx::query_as("PRAGMA wal_checkpoint(PASSIVE)")
        .fetch_one(conn)
        .await?;
    Ok(frames)
}

/// The WAL's size past which the checkpointer makes sure it is started over.
const WAL_LIMIT: i64 = 8 * 1024 * 1024;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_steady_stream_is_checkpointed_at_once_and_writes_alone_wait_for_company() {
        assert_eq!(wait(1), ALONE);
        assert_eq!(wait(STEADY - 1), ALONE);
        assert_eq!(wait(STEADY), EVERY);
        assert_eq!(wait(1_000), EVERY);
        assert!(EVERY < ALONE);
    }

    #[tokio::test]
    async fn the_checkpoints_are_counted_and_follow_writes() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::Store::open(&dir.path().join("clawmux.db"))
            .await
            .unwrap();
        let before = store.checkpoints();
        store
            .add_agent("a1", "/w", clawmux_core::Millis(1))
            .await
            .unwrap();
        // The checkpointer's own pace (a second for a lone write); bounded well past it.
        let end = std::time::Instant::now() + Duration::from_secs(20);
        while store.checkpoints() == before {
            assert!(
                std::time::Instant::now() < end,
                "no checkpoint after a write"
            );
            tokio::task::yield_now().await;
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}
