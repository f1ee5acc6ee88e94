//! The commands of usage: every agent's figures and the account's limits, and whether an agent is
//! continued when its limit resets.

use serde::{Deserialize, Serialize};

/// Every agent's figures, the account's limits and the use per day (`clawmux usage`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Usage {
    /// Days of history (default 14, at most 366).
    pub days: Option<u32>,
    /// The user's time zone, in minutes east of UTC, where days are cut (default 0).
    pub offset_minutes: Option<i32>,
}

/// Whether an agent is continued when the usage limit that stopped it resets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UsageContinue {
    /// The agent.
    pub session_id: String,
    /// On or off.
    pub on: bool,
}
