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
