//! What hands-free made of an utterance, and what it did with it.

use clawmux_core::wire::MsgId;
use serde::{Deserialize, Serialize};

use crate::asks::Verdict;

/// What the app made of an utterance: what it heard, what it says back, and what it did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Heard {
    /// The words heard, cleaned of what the recognizer makes up.
    pub heard: String,
    /// What the app says back (empty: nothing).
    pub say: String,
    /// What it did (`done`, and what it names).
    #[serde(flatten)]
    pub done: Done,
}

/// What the app did with an utterance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "done", rename_all = "snake_case")]
pub enum Done {
    /// Nothing was heard.
    Nothing,
    /// A question was answered (in `say`).
    Said,
    /// The words were stored as the user's message to an agent.
    Sent {
        /// The agent.
        session_id: String,
        /// The message.
        id: MsgId,
    },
    /// The open request was answered.
    Answered {
        /// The agent.
        session_id: String,
        /// The request.
        request_id: String,
        /// The answer.
        decision: Verdict,
    },
    /// A request is open and the words were no answer to it: it is asked again.
    AskedAgain {
        /// The agent whose request it is.
        session_id: String,
    },
    /// A name was heard that sounds like several agents': the user is asked which.
    Which {
        /// The agents it may be.
        agents: Vec<String>,
    },
    /// Stop speaking.
    Stop,
    /// Leave the current announcement (a request stays open).
    Skip,
    /// Show this agent (the next that needs the user, or one named alone).
    Show {
        /// The agent.
        session_id: String,
    },
}
