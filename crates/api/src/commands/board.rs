//! The commands of the shared board, as the window (and the phone) use it: the items listed, one added by
//! the user, and one moved (given to an agent, finished, given back).

use clawmux_core::board::{Move, TaskState};
use serde::{Deserialize, Serialize};

/// The items of the board, the newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Board {
    /// In this state only.
    #[serde(default)]
    pub state: Option<TaskState>,
    /// Held by this agent only.
    #[serde(default)]
    pub owner: Option<String>,
    /// With these words in the title or the body.
    #[serde(default)]
    pub text: Option<String>,
    /// At most this many (default [`BOARD_PAGE`]).
    #[serde(default)]
    pub limit: Option<i64>,
}

/// The items a [`Board`] lists when it names no limit.
pub const BOARD_PAGE: i64 = 500;

/// The user adds an item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskAdd {
    /// One line.
    pub title: String,
    /// What it asks.
    #[serde(default)]
    pub body: String,
}

/// The user hands an agent's work to another: its branch and a summary of its work as one message, and
/// the items it held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandOver {
    /// The agent whose work it is.
    pub from: String,
    /// The agent that takes it.
    pub to: String,
}

/// A hand-over's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandedOver {
    /// The message the new owner received.
    pub message: clawmux_core::wire::MsgId,
    /// The items it received.
    pub items: Vec<i64>,
    /// The first agent's branch, when it worked in a worktree.
    pub branch: Option<String>,
}

/// The user moves an item: gives it to an agent, finishes it, gives it back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskMove {
    /// The item.
    pub id: i64,
    /// What is done to it.
    pub what: Move,
}
