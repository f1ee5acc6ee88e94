//! The one database of a ClawMux hub: an embedded SQLite file, opened only by the hub.
//!
//! Why SQLite and why this shape: the original product rewrote a whole `history.json` on every message,
//! so hook latency grew with history. Here every stream (messages, agent events, decisions, inbox
//! hand-overs) is an append-only table whose integer key is the cursor clients resume from, so an append
//! and a "what follows" query cost the same at ten messages as at a million.
//!
//! Durability: WAL with `synchronous=NORMAL`. A commit that returned is in the WAL file, in the operating
//! system's hands, so it survives the hub being killed (`kill -9`, a crash); only a power cut or kernel
//! panic can lose the last commits, never corrupt the file. That trade keeps an append well under 100 µs.
//!
//! One writer: all writes go through a pool of exactly one connection, so transactions never race each
//! other for SQLite's write lock and "read the snapshot, step the machine, write the decision" is atomic
//! without retries. Reads use their own pool and never wait for the writer (WAL readers see the last commit).

mod agents;
mod error;
mod events;
mod import;
mod inbox;
mod messages;

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

pub use agents::AgentRow;
pub use error::StoreError;
pub use events::{Applied, Incoming, StoredDecision, StoredEvent};
pub use import::Imported;
pub use inbox::Channel;
pub use messages::{Appended, NewMessage};

/// How long a connection waits for a lock before giving up. Only the writer can hold one, and its
/// transactions are short; a wait this long means something is wrong, and the caller gets an error.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Read connections: enough for the hub's concurrent readers on a small machine.
const READERS: u32 = 4;

/// A handle to the store. Cheap to clone: both pools are reference-counted.
#[derive(Clone, Debug)]
pub struct Store {
    writer: SqlitePool,
    reader: SqlitePool,
}

impl Store {
    /// Opens (creating if needed) the database file at `path` and brings its schema up to date.
    pub async fn open(path: &Path) -> Result<Store, StoreError> {
        let base = SqliteConnectOptions::from_str("sqlite://")?
            .filename(path)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(BUSY_TIMEOUT)
            .foreign_keys(true);
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .min_connections(1)
            .idle_timeout(None)
            .max_lifetime(None)
            .connect_with(base.clone().create_if_missing(true))
            .await?;
        sqlx::migrate!("./migrations").run(&writer).await?;
        let reader = SqlitePoolOptions::new()
            .max_connections(READERS)
            .min_connections(1)
            .idle_timeout(None)
            .max_lifetime(None)
            .connect_with(base.read_only(true))
            .await?;
        Ok(Store { writer, reader })
    }

    /// Closes both pools, waiting for running queries to finish.
    pub async fn close(&self) {
        self.reader.close().await;
        self.writer.close().await;
    }
}
