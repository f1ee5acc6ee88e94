//! The store's errors: one variant per thing a caller can get wrong, each with a stable code for the wire.

use clawmux_core::wire::{BadName, Code};

/// Everything that can go wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No agent by that name.
    #[error("unknown agent `{0}`")]
    UnknownAgent(String),
    /// An agent by that name exists already.
    #[error("agent `{0}` already exists")]
    AgentExists(String),
    /// The agent name is not acceptable.
    #[error(transparent)]
    BadName(#[from] BadName),
    /// A cursor that names no message of that conversation.
    #[error("unknown cursor `{0}`: no such message in this conversation; reload the history")]
    UnknownCursor(String),
    /// A reply or acknowledgement to a message that does not exist.
    #[error("unknown parent message `{0}`")]
    UnknownParent(String),
    /// The same idempotency key sent again with different content.
    #[error("idempotency key `{0}` was already used for a different message")]
    KeyReused(String),
    /// A history file that cannot be imported; nothing was written.
    #[error("cannot import history: {0}")]
    Import(String),
    /// A stored value that the code does not understand (a newer schema, or a hand-edited file).
    #[error("corrupt row: {0}")]
    Corrupt(String),
    /// A write failed; nothing of it was committed.
    #[error("database write failed: {0}")]
    Write(String),
    /// SQLite said no.
    #[error("database error: {0}")]
    Db(#[from] sqlx::Error),
    /// SQLite said no on the writer's direct connection (the agents' events).
    #[error("database error: {0}")]
    Direct(#[from] rusqlite::Error),
    /// The file was written by a newer ClawMux, whose schema this version does not know; it was not changed.
    #[error(
        "{path} was written by a newer ClawMux (schema {written}; this version knows up to {known}) and was \
         left as it is: run that version or newer, or move the file aside to start with an empty store"
    )]
    Newer {
        /// The database file.
        path: std::path::PathBuf,
        /// The newest schema the file records.
        written: i64,
        /// The newest schema this version knows.
        known: i64,
    },
    /// The schema could not be brought up to date.
    #[error("database migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

impl StoreError {
    /// A stable, machine-readable code (`{code, message}` on the wire).
    pub fn code(&self) -> Code {
        match self {
            StoreError::UnknownAgent(_) => Code::UnknownAgent,
            StoreError::AgentExists(_) => Code::AgentExists,
            StoreError::BadName(_) => Code::BadAgentName,
            StoreError::UnknownCursor(_) => Code::UnknownCursor,
            StoreError::UnknownParent(_) => Code::UnknownParent,
            StoreError::KeyReused(_) => Code::IdempotencyConflict,
            StoreError::Import(_) => Code::BadHistory,
            StoreError::Corrupt(_) => Code::CorruptStore,
            StoreError::Write(_)
            | StoreError::Db(_)
            | StoreError::Direct(_)
            | StoreError::Migrate(_)
            | StoreError::Newer { .. } => Code::Database,
        }
    }
}
