//! Search as clients ask it: what to look for and where, and what was found.

use clawmux_core::search::{Found, FoundInSession};
use clawmux_core::wire::Kind;
use serde::{Deserialize, Serialize};

/// Who spoke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Who {
    /// The user (typed or spoken).
    User,
    /// The agents: their answers and their messages to each other.
    Agents,
}

/// `search`: what to look for, and where.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    /// The user's words.
    pub query: String,
    /// Only this agent's conversation.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Only what the user, or the agents, said.
    #[serde(default)]
    pub who: Option<Who>,
    /// Only messages from this time on (ms since the epoch).
    #[serde(default)]
    pub since: Option<i64>,
    /// The next page: results before this one's `seq`.
    #[serde(default)]
    pub before: Option<i64>,
    /// At most this many (default 20, at most 200).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// `search`'s answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchReply {
    /// The messages found, newest first.
    pub results: Vec<Found>,
    /// Older messages not indexed yet (a store from before search): they are not found until they are.
    pub indexing: i64,
    /// Lines of the user's own Claude Code sessions found, newest first (when they opted in, and the
    /// search is not of one agent).
    pub sessions: Vec<FoundInSession>,
    /// Whether the user opted in to searching their Claude Code sessions.
    pub sessions_searched: bool,
    /// Items of the shared board with the words in their title or body, newest first (on a search's
    /// first page that names no agent).
    #[serde(default)]
    pub tasks: Vec<clawmux_core::board::Task>,
}

impl Who {
    /// Both, as the wire names them.
    pub const ALL: [Who; 2] = [Who::User, Who::Agents];

    /// The kinds of message each speaks in.
    pub fn kinds(self) -> Vec<Kind> {
        match self {
            Who::User => vec![Kind::User],
            Who::Agents => vec![Kind::Assistant, Kind::Agent],
        }
    }
}
