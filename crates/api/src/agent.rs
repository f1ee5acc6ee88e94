//! The agent protocol's own requests, beside the window's commands: what an agent's `clawmux send` posts
//! (`POST /api/send`, as the agent its `ClawMux-Session` header names), answered with the stored message.

use serde::{Deserialize, Serialize};

/// An agent's message to another agent or to the user (`clawmux send --to NAME [--re ID]`). The hub makes
/// a send idempotent (the same agent, content and turn, or the same client id), so a retry stores nothing
/// new. Unknown fields are ignored: an agent may run an older or newer `clawmux` than its hub.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Send {
    /// An agent's name, `name@machine`, or `user`.
    pub to: String,
    /// The words (none: read from the command's standard input by the client).
    pub text: Option<String>,
    /// The message this one answers.
    pub re: Option<String>,
    /// The client's id for this message: a retry with it stores nothing new.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
}

/// `clawmux ask`'s second half: wait for the first answer to the asker's message `re` (`POST /api/answer`),
/// at most `within_ms` (the hub holds a request at most [`MAX_ANSWER_WAIT_MS`]; the client asks again).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AwaitAnswer {
    /// The asker's message.
    pub re: String,
    /// How long to wait, in milliseconds.
    pub within_ms: u64,
}

/// The longest the hub holds one [`AwaitAnswer`].
pub const MAX_ANSWER_WAIT_MS: u64 = 60_000;

/// The answer, handed over to the asker (it will not come again through a wait or a hook), as the line
/// the asker's model reads; none when none came in time (it will come as a message then).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    /// The answer's id.
    pub id: Option<String>,
    /// The answer as the agent reads it: `[MSG id:.. from:..] text`.
    pub line: Option<String>,
}

/// An agent closes its thread with another (`clawmux close NAME [last word]`): the last word, if any, is
/// delivered and asks no answer; then neither may send the other anything until the user reopens it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Close {
    /// The other agent.
    pub with: String,
    /// The last word.
    pub text: Option<String>,
}

/// An agent's call on the shared board (`clawmux task ...`, `POST /api/task`), as the agent its
/// `ClawMux-Session` header names; answered with the items it concerns (`Vec<Task>`: the list, or the one
/// item as it is now).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "op")]
pub enum TaskCall {
    /// Adds an item (its creator is told when it is done).
    Add {
        /// One line.
        title: String,
        /// What it asks.
        #[serde(default)]
        body: String,
    },
    /// The items, the newest first.
    List {
        /// In this state only (`open`, `taken`, `in_review`, `done`).
        #[serde(default)]
        state: Option<clawmux_core::board::TaskState>,
        /// Held by this agent only.
        #[serde(default)]
        owner: Option<String>,
        /// With these words in the title or the body.
        #[serde(default)]
        text: Option<String>,
    },
    /// One item, whole.
    Show {
        /// The item.
        id: i64,
    },
    /// Takes an open item (one taker wins).
    Take {
        /// The item.
        id: i64,
    },
    /// Asks for a review of an item the agent has.
    Review {
        /// The item.
        id: i64,
    },
    /// Finishes an item the agent has: its watchers are told.
    Done {
        /// The item.
        id: i64,
    },
    /// Gives an item back: open, nobody's.
    Drop {
        /// The item.
        id: i64,
    },
    /// Be told when an item is done.
    Watch {
        /// The item.
        id: i64,
    },
}

/// An agent hands its own work to another (`clawmux handover NAME`, `POST /api/handover`): answered with
/// `commands::HandedOver`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandOverCall {
    /// The agent that takes it.
    pub to: String,
}

/// A lead answers a member's permission request (`clawmux allow|deny AGENT REQUEST`, `POST /api/lead`),
/// answered with `commands::Done`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeadAnswer {
    /// The member.
    pub agent: String,
    /// Its open request.
    pub request_id: String,
    /// Allow, or deny.
    pub allow: bool,
    /// A denial's reason, for the member's model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}
