//! The choices of how Claude Code runs that the user makes and the hub passes on as its flags: the
//! permission mode (`--permission-mode`), the plan's approval mode and the effort (`--effort`). Typed here,
//! so nothing else reaches Claude Code's command line.

use serde::{Deserialize, Serialize};

/// Claude Code's permission modes, as its `--permission-mode` spells them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::EnumIter)]
#[serde(rename_all = "camelCase")]
pub enum PermissionMode {
    /// Ask before anything that changes something.
    Default,
    /// Edit files without asking; ask for the rest.
    AcceptEdits,
    /// Plan only, then ask to approve the plan.
    Plan,
    /// Claude Code's safety check decides (it needs Anthropic's servers).
    Auto,
    /// Never ask. The agent can do anything the user can, unasked.
    BypassPermissions,
}

impl PermissionMode {
    /// The flag's value.
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionMode::Default => "default",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::Plan => "plan",
            PermissionMode::Auto => "auto",
            PermissionMode::BypassPermissions => "bypassPermissions",
        }
    }
}

/// The modes a plan may be approved into: what the window offers beside its Approve. Planning again is
/// no approval, and never asking is chosen when an agent starts, never in passing: a plan's answer that
/// names either is refused where it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PlanMode {
    /// Ask before anything that changes something.
    Default,
    /// Edit files without asking; ask for the rest.
    AcceptEdits,
    /// Claude Code's safety check decides.
    Auto,
}

impl PlanMode {
    /// The permission mode it is.
    pub fn permission_mode(self) -> PermissionMode {
        match self {
            PlanMode::Default => PermissionMode::Default,
            PlanMode::AcceptEdits => PermissionMode::AcceptEdits,
            PlanMode::Auto => PermissionMode::Auto,
        }
    }
}

/// Claude Code's effort levels, as its `--effort` spells them: more thinks longer and costs more of the
/// account's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::EnumIter)]
#[serde(rename_all = "lowercase")]
pub enum Effort {
    /// The least: quick and cheap.
    Low,
    /// Between.
    Medium,
    /// Claude Code's usual.
    High,
    /// More than high.
    Xhigh,
    /// The most.
    Max,
}

impl Effort {
    /// The flag's value.
    pub fn as_str(self) -> &'static str {
        match self {
            Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High => "high",
            Effort::Xhigh => "xhigh",
            Effort::Max => "max",
        }
    }
}
