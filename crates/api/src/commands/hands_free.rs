//! Hands-free's command: an utterance's words, decided by the hub.

use serde::{Deserialize, Serialize};

/// Hands-free: what the user said (its words), understood without a model: a question the app answers,
/// words for an agent (named first, else the one shown), or the answer to the open request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hear {
    /// The words heard.
    pub text: String,
    /// The agent on screen, if any.
    pub shown: Option<String>,
    /// The client's id for this utterance: a retry with it stores no second message.
    pub client_id: Option<String>,
    /// What the app said last: its own speech heard back is not the user's.
    pub said: Option<String>,
}
