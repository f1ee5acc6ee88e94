//! Usage as clients read it: every agent's figures, the account's limits and the use per day.

use clawmux_core::usage::{Account, AgentUsage, DayUsage};
use serde::Serialize;

/// `usage`: every agent's figures, the account's limits, and what was used per day and agent.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct UsageReply {
    /// Each agent's latest figures.
    pub agents: Vec<AgentUsage>,
    /// The account's limits.
    pub account: Account,
    /// What each agent used on each day asked for, oldest first.
    pub days: Vec<DayUsage>,
}
