//! The commands of what agents ask of the user: why the indicator says what it says, and a notice's
//! "needs you" dismissed. (The answer itself is `asks::AnswerRequest`; the case file `explain`.)

use serde::{Deserialize, Serialize};

/// Why the agent's indicator says what it says (`clawmux explain`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Explain {
    /// The agent.
    pub session_id: String,
}

/// Dismisses a "needs you" that only a notice raised (no later hook would close it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dismiss {
    /// The agent.
    pub session_id: String,
}
