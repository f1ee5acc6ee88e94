//! The record of one step of the machine: the decision log's row.

use serde::{Deserialize, Serialize};

use crate::attention::AttentionChange;
use crate::event::Source;
use crate::state::State;
use crate::time::Millis;

/// What the machine did with an event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", content = "reason", rename_all = "lowercase")]
pub enum Outcome {
    /// The state changed.
    Moved,
    /// The event is allowed here but does not move the state (it may still set the status_text).
    Stayed,
    /// The event may not act in this state; nothing changed.
    Suppressed(Reason),
}

/// Why an event was suppressed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The agent is DEAD; only a spawn brings it back.
    AgentDead,
    /// A second `clawmux wait` connected while one already waits.
    AlreadyWaiting,
    /// A wait disconnected but the agent was not IDLE.
    NotWaiting,
    /// A spawn for an agent that is already alive.
    AlreadyAlive,
    /// The transition table has no row for this event in this state.
    NotInTable,
    /// The event was malformed or had no rule; the text says which.
    Rejected(String),
    /// A subagent's event (`agent_id`): subagents never move the main agent's state.
    Subagent,
    /// A transcript line older than a decision already made: too late to overwrite it.
    Stale,
    /// A dismissal, but nothing a notice alone raised is waiting (a request ends with its tool call).
    NothingToDismiss,
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reason::AgentDead => f.write_str("the agent is dead"),
            Reason::AlreadyWaiting => f.write_str("a clawmux wait is already connected"),
            Reason::NotWaiting => f.write_str("the agent was not waiting"),
            Reason::AlreadyAlive => f.write_str("the agent is already alive"),
            Reason::NotInTable => f.write_str("no transition for this event in this state"),
            Reason::Rejected(why) => write!(f, "rejected: {why}"),
            Reason::Subagent => f.write_str("a subagent's event"),
            Reason::Stale => f.write_str("older than a decision already made"),
            Reason::NothingToDismiss => {
                f.write_str("nothing a notice alone raised was waiting to be dismissed")
            }
        }
    }
}

/// One decision: every event produces exactly one, applied or not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    /// The event's kind, e.g. `hook:PreToolUse`, `wait:connect`.
    pub trigger: String,
    /// Who reported it.
    pub source: Source,
    /// When it happened at its source.
    pub at: Millis,
    /// The state before.
    pub from: State,
    /// The state after (equal to `from` unless `outcome` is `Moved`).
    pub to: State,
    /// The status_text after, when this decision changed it.
    pub activity: Option<String>,
    /// Applied, stayed, or suppressed and why.
    #[serde(flatten)]
    pub outcome: Outcome,
    /// A short note for people reading the log (tool name, tool_use_id, compaction trigger...).
    pub detail: Option<String>,
    /// How the "needs you" overlay changed, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attention: Option<AttentionChange>,
}
