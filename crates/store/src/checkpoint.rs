//! Keeping the WAL bounded without putting a checkpoint on any write's path.
//!
//! The writer never checkpoints (`wal_autocheckpoint=0`): a checkpoint syncs and copies, and it would land
//! on whichever commit happened to cross SQLite's threshold, a pause in that hook's agent. This task does
//! it instead, on a connection of its own, shortly after writes and never while nothing is written.

use std::sync::{Arc, Weak};
use std::time::Duration;

use sqlx::{Connection, SqliteConnection};
use tokio::sync::{Mutex, Notify};

use crate::Writer;

/// How long after a write the WAL is checkpointed into the database file, off the writer's path. Short,
/// so that each checkpoint finds little to sync and copy: under sustained hooks the WAL grows ~40 MB a
/// second, and a checkpoint's pass slows the hooks that meet it (they share the machine's two cores and
/// its disk with it), by more the longer it is. Measured under the sustained-hooks benchmark: passes every
/// second took 25-35 ms and met hooks of up to 34 ms; every 250 ms, 10-13 ms passes met the 0.1 % slowest
/// hooks (2.3-2.7 ms); every 100 ms, 5 ms passes.
pub(crate) const EVERY: Duration = Duration::from_millis(100);

/// Checkpoints the WAL after writes until the store is dropped, keeping it bounded without putting a
/// checkpoint's copying and syncs on any write's path.
///
/// [`EVERY`] after a write (`wrote`, told by whoever takes the writer to write; nothing at all while the
/// hub is idle) a PASSIVE checkpoint on a connection of its own copies the WAL into the database file and
/// syncs both; it never waits for, nor blocks, the writer or readers. SQLite starts the WAL over (writes it
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
/// Durability is unchanged: a checkpoint syncs the WAL before copying and the database before the WAL is
/// started over.
pub(crate) async fn run(
    mut conn: SqliteConnection,
    wrote: Arc<Notify>,
    writer: Weak<Mutex<Writer>>,
) {
    let page: i64 = sqlx::query_scalar("PRAGMA page_size")
        .fetch_one(&mut conn)
        .await
        .unwrap_or(4096);
    loop {
        wrote.notified().await;
        tokio::time::sleep(EVERY).await;
        let Some(writer) = writer.upgrade() else {
            break;
        };
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
