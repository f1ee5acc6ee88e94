//! The "needs you" overlay: what the user must do for an agent, beside its canonical state.
//!
//! Claude Code's dialogs add waiting states (permission, an answer, a plan approval) and its API errors an
//! error mark to the five canonical states (`docs/STATE-MACHINE.md`). They are kept as a separate field of
//! the snapshot, so the five-state table is untouched: an agent waiting for permission is still PROCESSING
//! (its turn is not over), and the sidebar paints "Needs you" over it.
//!
//! Waiting is sticky. A PermissionRequest starts it; only the end of that tool call (PostToolUse or
//! PostToolUseFailure with its tool_use_id, or the transcript's tool_result for it), a prompt from the user,
//! an interrupt, the end of the turn or of the process ends it. Everything else that says "working"
//! (another PreToolUse, an assistant line, a subagent's events) leaves it as it is: that is the bug that kept
//! indicators wrong the longest.

use serde::{Deserialize, Serialize};

use crate::time::Millis;

/// The `error` of a StopFailure at the account's usage limit.
pub const RATE_LIMIT: &str = "rate_limit";

/// What the user is needed for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Need {
    /// A tool waits for the user's permission.
    Permission,
    /// Claude asked the user a question (AskUserQuestion).
    Answer,
    /// Claude waits for its plan to be approved (ExitPlanMode).
    PlanApproval,
    /// The turn failed on an API error: StopFailure.
    Error,
    /// The turn failed at the account's usage limit (StopFailure `rate_limit`): nothing to do but wait for
    /// the reset (or continue then), which the window says distinctly from an error.
    RateLimited,
    /// A message the agent sent another agent cannot be delivered (the other is not running, has not taken
    /// it for minutes, or their thread reached its hourly count): the user decides what happens to it.
    Undelivered,
}

impl Need {
    /// Every need.
    pub const ALL: [Need; 6] = [
        Need::Permission,
        Need::Answer,
        Need::PlanApproval,
        Need::Error,
        Need::RateLimited,
        Need::Undelivered,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Need::Permission => "permission",
            Need::Answer => "answer",
            Need::PlanApproval => "plan_approval",
            Need::Error => "error",
            Need::RateLimited => "rate_limited",
            Need::Undelivered => "undelivered",
        }
    }

    /// The need a PermissionRequest for `tool` creates.
    pub fn for_tool(tool: &str) -> Need {
        match tool {
            "ExitPlanMode" => Need::PlanApproval,
            "AskUserQuestion" => Need::Answer,
            _ => Need::Permission,
        }
    }

    /// Whether this is one of the sticky waiting needs: a dialog of Claude Code's is open.
    pub fn is_waiting(self) -> bool {
        match self {
            Need::Permission | Need::Answer | Need::PlanApproval => true,
            Need::Error | Need::RateLimited | Need::Undelivered => false,
        }
    }

    /// Whether this marks a failed turn (an error, or the usage limit).
    pub fn is_failure(self) -> bool {
        match self {
            Need::Error | Need::RateLimited => true,
            Need::Permission | Need::Answer | Need::PlanApproval | Need::Undelivered => false,
        }
    }
}

/// The user is needed: why, and for which tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attention {
    /// What for.
    pub need: Need,
    /// One line for the sidebar and the notification: `Permission: Running git push`, `rate_limit: ...`.
    pub reason: String,
    /// The tool call that waits (borrowed from the PreToolUse before the PermissionRequest), if known.
    pub tool_use_id: Option<String>,
    /// The tool that waits, if any.
    pub tool_name: Option<String>,
    /// When it began (source time).
    pub since: Millis,
    /// Raised by a notice alone (a Notification, which no later hook closes): the user may dismiss it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub notice: bool,
}

/// How a decision changed the overlay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "change", rename_all = "lowercase")]
pub enum AttentionChange {
    /// The agent now needs the user.
    Set(Attention),
    /// It no longer does (what it had needed).
    Cleared {
        /// The need that ended.
        need: Need,
    },
}

/// The main agent's latest tool call, remembered so a PermissionRequest (which has no tool_use_id) can
/// borrow the id of the PreToolUse just before it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolRef {
    /// `tool_use_id`.
    pub id: Option<String>,
    /// `tool_name`.
    pub name: String,
}
