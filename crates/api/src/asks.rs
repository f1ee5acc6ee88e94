//! The user's answer to what an agent asks: a permission, a question, a plan.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::flags::PlanMode;

/// What the user decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::EnumIter)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Let the tool run (approve the plan; send the answers).
    Allow,
    /// Let it run, and add the rule Claude suggested so it does not ask again.
    AllowAlways,
    /// Refuse it (keep planning); the message tells Claude why.
    Deny,
}

/// The `answer` command: an agent, the request meant, and the user's answer. The hook that holds the
/// request is handed it whole.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerRequest {
    /// The agent.
    pub session_id: String,
    /// The request (`needs.request.id`); an answer meant for an earlier one answers nothing.
    pub request_id: Option<String>,
    /// Allow, allow always, or deny.
    pub decision: Verdict,
    /// Words for Claude: a denial's reason, a plan's feedback.
    pub message: Option<String>,
    /// A question's answers: each question's text to the chosen label (labels, or free text).
    pub answers: Option<Map<String, Value>>,
    /// For `allow_always`: which of the suggested rules (`needs.request.suggestions`, by place); the
    /// first when not given.
    pub suggestion: Option<usize>,
    /// For an approved plan: the permission mode to carry on in (Claude Code's own default when not given).
    pub mode: Option<PlanMode>,
}

impl AnswerRequest {
    /// Whether the answer raises the agent's permission mode (a plan approved into more than asking).
    pub fn raises_mode(&self) -> bool {
        self.mode.is_some_and(|m| m != PlanMode::Default)
    }
}
