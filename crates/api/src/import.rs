//! What importing an original installation did, agent by agent.

use serde::Serialize;

/// What importing one agent's history did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct AgentImport {
    /// The agent (its folder's name).
    pub agent: String,
    /// Messages stored now.
    pub created: usize,
    /// Messages an earlier import had stored already.
    pub skipped: usize,
    /// Why this history could not be imported (nothing of it was stored), if it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}
