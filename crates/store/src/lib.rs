//! The one database of a ClawMux hub: an embedded SQLite file, opened only by the hub.
//!
//! Why SQLite and why this shape: the original product rewrote a whole `history.json` on every message,
//! so hook latency grew with history. Here every stream (messages, agent events, decisions, inbox
//! hand-overs) is an append-only table whose integer key is the cursor clients resume from, so an append
//! and a "what follows" query cost the same at ten messages as at a million.
//!
//! Durability: WAL with `synchronous=NORMAL`. A commit that returned is in the WAL file, in the operating
//! system's hands, so it survives the hub being killed (`kill -9`, a crash); only a power cut or kernel
//! panic can lose the last commits (those since the last checkpoint: 100 ms of a steady stream, a second
//! of writes that come alone, `checkpoint.rs`), never corrupt the file. That trade keeps an append well
//! under 100 µs.
//!
//! One writer: all writes go through one connection behind an async mutex, so transactions never race each
//! other for SQLite's write lock and "read the snapshot, step the machine, write the decision" is atomic
//! without retries. Reads use their own pool and never wait for the writer (WAL readers see the last commit).
//!
//! Speed: sqlx runs each SQLite connection on a thread of its own and moves every statement and every row
//! across threads. So the writer is a bare connection, not a pool (a pool adds a round trip's worth of
//! bookkeeping per statement), appends return only the new key, and pages of messages are built inside
//! SQLite as one JSON value (`json_group_array`), so a page of a hundred rows crosses threads once. The
//! hottest writes skip the crossing altogether: the writer commits the agents' events (every hook of every
//! agent) and the messages (with their search index) on a second connection of its own, called in-process
//! (rusqlite), each commit a few tens of µs with no sync; the rarer writes stay on sqlx's.

mod agents;
mod append;
mod between;
pub use between::SENT_AWAY;
mod board;
mod checkpoint;
mod commit;
mod error;
mod events;
mod import;
mod inbox;
mod leads;
mod messages;
mod phones;
mod queue;
mod schema;
pub use schema::BACKUPS_DIR;
mod search;
mod sessions;
mod usage;

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePool, SqlitePoolOptions,
    SqliteSynchronous,
};
use sqlx::Connection;
use tokio::sync::{Mutex, MutexGuard};

pub use agents::AgentRow;
pub use board::{MoveError, NewTask, TaskFilter};
pub use commit::{Later, Submitted};
pub use error::StoreError;
pub use events::{Applied, Incoming, Span, StoredDecision, StoredEvent};
pub use import::check_history;
pub use import::Imported;
pub use inbox::Channel;
pub use messages::{Appended, NewMessage};
pub use phones::{PhoneRow, PushRow};
pub use search::{Backlog, SearchQuery};
pub use sessions::SessionRead;
pub use usage::{DayUsage, UsageDelta};

/// How long a connection waits for a lock before giving up. Only the writer can hold one, and its
/// transactions are short; a wait this long means something is wrong, and the caller gets an error.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Read connections: enough for the hub's concurrent readers on a small machine.
const READERS: u32 = 4;

/// Rows in flight from SQLite's thread to the caller: more than the largest page the API serves.
const ROW_BUFFER: usize = 1024;

/// The writer's direct connection, with the writer's settings: the file is already in WAL mode.
fn open_direct(path: &Path) -> Result<rusqlite::Connection, StoreError> {
    let conn = rusqlite::Connection::open_with_flags(
        path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.execute_batch(
        "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA wal_autocheckpoint = 0;",
    )?;
    conn.set_prepared_statement_cache_capacity(8);
    Ok(conn)
}

/// A handle to the store. Cheap to clone: the writer, the queues and the read pool are reference-counted.
#[derive(Clone, Debug)]
pub struct Store {
    /// The one connection that writes. A tokio mutex, because a transaction holds it across awaits.
    writer: std::sync::Arc<Mutex<Writer>>,
    /// Events waiting for the writer; whoever holds it commits them all in one transaction.
    queue: commit::Queue,
    /// Messages waiting for the writer, committed the same way.
    messages: append::Queue,
    reader: SqlitePool,
    /// What the writer tells the checkpointer, and the checkpoints it ran.
    writes: std::sync::Arc<checkpoint::Writes>,
}

/// The writer connection and what only the writer may know.
#[derive(Debug)]
struct Writer {
    conn: SqliteConnection,
    /// A second connection of the writer's, called in-process: the agents' events and the messages are
    /// committed on it (`commit.rs`, `append.rs`). Used only while the writer is held, so it never races
    /// `conn` for SQLite's lock.
    direct: rusqlite::Connection,
    /// Agents' snapshots as last committed, so applying an event need not read them back.
    snapshots: std::collections::HashMap<String, clawmux_core::Snapshot>,
    /// The id the next stored event gets (one writer: nobody else allocates ids).
    next_event: i64,
    /// Tells the checkpointer that the WAL may have grown: it sleeps while nothing is written.
    wrote: std::sync::Arc<checkpoint::Writes>,
}

impl Writer {
    /// Marks the writer taken to write: the checkpointer follows (`checkpoint::run`).
    fn taken(&mut self) -> &mut Self {
        self.wrote.wrote();
        self
    }
}

impl Drop for Writer {
    /// The store is gone: the checkpointer, waiting for a write, wakes to see it and ends.
    fn drop(&mut self) {
        self.wrote.ended();
    }
}

impl Store {
    /// Opens (creating if needed) the database file at `path` and brings its schema up to date, copying an
    /// older store aside first and refusing a newer one untouched (`schema.rs`).
    pub async fn open(path: &Path) -> Result<Store, StoreError> {
        let base = SqliteConnectOptions::from_str("sqlite://")?
            .filename(path)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(BUSY_TIMEOUT)
            .foreign_keys(true)
            // sqlx hands rows from its SQLite thread through a bounded channel; a page of history must
            // not ping-pong between threads every 50 rows.
            .row_buffer_size(ROW_BUFFER);
        schema::prepare(path).await?;
        // The writer never checkpoints: a checkpoint fsyncs, and it would land on whichever commit
        // happened to cross the threshold. A background connection does it instead (see `checkpoints`).
        let writer_options = base
            .clone()
            .create_if_missing(true)
            .pragma("wal_autocheckpoint", "0");
        let mut writer = SqliteConnection::connect_with(&writer_options).await?;
        schema::MIGRATOR.run(&mut writer).await?;
        let checkpointer = SqliteConnection::connect_with(&base).await?;
        let reader = SqlitePoolOptions::new()
            .test_before_acquire(false)
            .max_connections(READERS)
            .min_connections(1)
            .idle_timeout(None)
            .max_lifetime(None)
            .connect_with(base.read_only(true))
            .await?;
        let last_event: i64 = sqlx::query_scalar("SELECT COALESCE(MAX(id), 0) FROM agent_events")
            .fetch_one(&mut writer)
            .await?;
        let direct = open_direct(path)?;
        let wrote = std::sync::Arc::new(checkpoint::Writes::default());
        let writer = std::sync::Arc::new(Mutex::new(Writer {
            conn: writer,
            direct,
            wrote: wrote.clone(),
            snapshots: std::collections::HashMap::new(),
            next_event: last_event + 1,
        }));
        tokio::spawn(checkpoint::run(
            checkpointer,
            wrote.clone(),
            std::sync::Arc::downgrade(&writer),
        ));
        Ok(Store {
            writer,
            queue: commit::Queue::default(),
            messages: append::Queue::default(),
            reader,
            writes: wrote,
        })
    }

    /// How many checkpoints of the WAL have begun since the store opened.
    pub fn checkpoints(&self) -> u64 {
        self.writes.checkpoints()
    }

    /// The writer, exclusively, to write.
    async fn write(&self) -> MutexGuard<'_, Writer> {
        let mut writer = self.writer.lock().await;
        writer.taken();
        writer
    }

    /// Closes the read pool and finishes the writer's pending work (a checkpoint of the WAL).
    pub async fn close(&self) {
        self.reader.close().await;
        let mut w = self.write().await;
        if let Err(e) = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
            .execute(&mut w.conn)
            .await
        {
            tracing::debug!(error = %e, "checkpoint at close");
        }
    }
}
