//! The commands of leads, as the user gives and takes back the right to answer a group's permission
//! requests (`clawmux_core::lead` says what a lead may answer).

use serde::{Deserialize, Serialize};

/// Every grant, by member.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Leads {}

/// The user makes `lead` the lead of `members`, for `tools` (the read-only ones when none are named).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetLead {
    /// The lead.
    pub lead: String,
    /// The agents it leads.
    pub members: Vec<String>,
    /// The tools it may allow.
    #[serde(default)]
    pub tools: Option<Vec<String>>,
}

/// The user takes the right back from `lead`, at once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RevokeLead {
    /// The lead.
    pub lead: String,
}
