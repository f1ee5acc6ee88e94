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

/// A message from an agent of another machine to one of this machine's, which that machine's hub carries
/// over its link (`clawmux send --to moon@box` there): stored once under its key, in the recipient's
/// conversation as from `from@machine`, and handed over like any message between agents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FromMachine {
    /// The sending machine, as it names itself.
    pub machine: String,
    /// The agent there that wrote it.
    pub from: String,
    /// The agent here it is for.
    pub to: String,
    /// The words.
    pub text: String,
    /// The sender's key: a retry under it is the same message.
    pub client_id: String,
    /// The message here it answers, if any.
    #[serde(default)]
    pub re: Option<clawmux_core::wire::MsgId>,
}

/// The answers this machine's agents sent to agents of `machine` (addressed `name@machine`), after the one
/// `after` names (from the first when none), oldest first: what that machine's hub takes to its agents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForMachine {
    /// The machine they are for, as it names itself.
    pub machine: String,
    /// The last one it took.
    #[serde(default)]
    pub after: Option<String>,
}

/// The most messages a [`ForMachine`] answers at once.
pub const FOR_MACHINE_PAGE: i64 = 100;

/// The user's word in a thread between two agents: a message to `to`, one of the pair, answering `re`, a
/// message of the thread; shown in the thread, and handed to `to` as the user's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadReply {
    /// The agent it is for.
    pub to: String,
    /// The message of the thread it answers.
    pub re: clawmux_core::wire::MsgId,
    /// The words.
    pub text: String,
    /// The client's key: a retry under it is the same message.
    pub client_id: String,
}
