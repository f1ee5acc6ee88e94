//! The commands of what passes between agents, as the window shows it: the threads, one thread with each
//! message's delivery, and a thread closed or reopened by the user.

use serde::{Deserialize, Serialize};

/// Every thread between two agents that has a message, the latest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Threads {}

/// The last messages of the thread between two agents, oldest first, each with its delivery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Thread {
    /// One agent.
    pub a: String,
    /// The other.
    pub b: String,
    /// How many of the last messages (default [`THREAD_PAGE`]).
    #[serde(default)]
    pub limit: Option<i64>,
}

/// The messages of a thread a [`Thread`] answers when it names no limit.
pub const THREAD_PAGE: i64 = 200;

/// The user closes a thread: neither agent may send the other anything until the user reopens it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CloseThread {
    /// One agent.
    pub a: String,
    /// The other.
    pub b: String,
}

/// The user reopens a closed thread.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReopenThread {
    /// One agent.
    pub a: String,
    /// The other.
    pub b: String,
}
