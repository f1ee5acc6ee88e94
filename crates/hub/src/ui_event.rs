//! What browsers and the desktop window receive: the event names of `docs/PROTOCOL.md`.

use clawmux_core::wire::{Kind, Message};
use clawmux_core::{Attention, Millis, Snapshot};
use serde::Serialize;
use serde_json::Value;

/// One agent as the sidebar shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionInfo {
    /// The agent's name.
    pub session_id: String,
    /// `starting|idle|processing|compacting|dead`.
    pub state: String,
    /// The status_text.
    pub activity: String,
    /// Messages from the agent the user has not read.
    pub unread_count: i64,
    /// The agent's work folder.
    pub work_dir: String,
    /// When it entered its state.
    pub since: Millis,
    /// `claude` (ClawMux runs Claude Code for it), `demo` (the built-in demo agent), `external` (it runs
    /// on its own; ClawMux cannot start or end it) or `observed` (a Claude Code session seen through the
    /// user's own hooks: its state only, no chat).
    pub launch: &'static str,
    /// What the user must know now (it did not start, it stopped by itself, it left the loop).
    pub problem: Option<String>,
    /// "Needs you": what the agent waits for the user for, if anything.
    pub needs: Option<Attention>,
}

impl SessionInfo {
    /// Builds the row from a snapshot.
    pub fn new(name: &str, work_dir: &str, s: &Snapshot, unread_count: i64) -> SessionInfo {
        SessionInfo {
            session_id: name.to_owned(),
            state: s.state.as_str().to_owned(),
            activity: s.activity.clone(),
            unread_count,
            work_dir: work_dir.to_owned(),
            since: s.since,
            launch: if s.observed { "observed" } else { "external" },
            problem: None,
            needs: s.attention.clone(),
        }
    }

    /// With how ClawMux starts the agent, if it does, and its current problem.
    pub fn with_launch(
        mut self,
        launch: Option<&crate::lifecycle::launch::Launch>,
        problem: Option<String>,
    ) -> SessionInfo {
        self.launch = match launch {
            Some(l) if l.demo => "demo",
            Some(_) => "claude",
            None => self.launch,
        };
        self.problem = problem;
        self
    }
}

/// A message as the UI receives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MessageOut {
    /// The conversation (agent) it belongs to.
    pub session_id: String,
    /// The public id.
    pub id: String,
    /// The cursor position.
    pub seq: i64,
    /// `user|assistant|agent|ack|activity|system`.
    pub kind: Kind,
    /// Who wrote it.
    pub sender: String,
    /// Who receives it.
    pub recipient: Option<String>,
    /// The text (markdown).
    pub text: String,
    /// The message it answers.
    pub parent_id: Option<String>,
    /// Spoken rather than typed.
    pub voice: bool,
    /// When it was stored.
    pub ts: Millis,
}

impl From<&Message> for MessageOut {
    fn from(m: &Message) -> MessageOut {
        MessageOut {
            session_id: m.agent.clone(),
            id: m.id.to_string(),
            seq: m.seq,
            kind: m.kind,
            sender: m.sender.clone(),
            recipient: m.recipient.clone(),
            text: m.text.clone(),
            parent_id: m.parent.as_ref().map(ToString::to_string),
            voice: m.voice,
            ts: m.at,
        }
    }
}

/// An event pushed to every connected UI.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum UiEvent {
    /// Every agent (sent first on connect).
    SessionList {
        /// The agents.
        sessions: Vec<SessionInfo>,
    },
    /// An agent's state or status_text changed.
    SessionStatus {
        /// The agent.
        session_id: String,
        /// The new state.
        state: String,
        /// The status_text.
        activity: String,
        /// The tool, when a tool call caused the change.
        tool_name: Option<String>,
        /// The tool's input, when a tool call caused the change.
        tool_input: Option<Value>,
        /// When the agent entered its state.
        since: Millis,
        /// "Needs you": what the agent waits for the user for, if anything.
        needs: Option<Attention>,
    },
    /// The user's message to an agent.
    UserText(MessageOut),
    /// An agent's message to the user.
    AssistantText(MessageOut),
    /// One agent's message to another.
    AgentMessage(MessageOut),
    /// A thumbs-up.
    UserAck(MessageOut),
    /// A tool activity row.
    ActivityText(MessageOut),
    /// Something the hub says.
    SystemText(MessageOut),
    /// How many messages wait in an agent's inbox.
    InboxUpdate {
        /// The agent.
        session_id: String,
        /// Pending messages.
        pending: i64,
    },
    /// A new agent exists.
    SessionSpawned {
        /// It.
        session: SessionInfo,
    },
    /// An agent's process ended.
    SessionTerminated {
        /// The agent.
        session_id: String,
        /// `terminated` (asked for) or `exited` (by itself).
        reason: String,
    },
    /// What the user must know about an agent changed (`None`: nothing any more).
    SessionProblem {
        /// The agent.
        session_id: String,
        /// The problem.
        problem: Option<String>,
    },
    /// The replay from the client's cursor could not be done; the client must reload its history.
    Reset {
        /// Why.
        reason: String,
    },
    /// A request sent over the socket failed.
    Error {
        /// Stable code.
        code: String,
        /// For people.
        message: String,
        /// The client's id of the request, if it gave one.
        client_id: Option<String>,
    },
}

impl UiEvent {
    /// The message event for a stored message.
    pub fn message(m: &Message) -> UiEvent {
        let out = MessageOut::from(m);
        match m.kind {
            Kind::User => UiEvent::UserText(out),
            Kind::Assistant => UiEvent::AssistantText(out),
            Kind::Agent => UiEvent::AgentMessage(out),
            Kind::Ack => UiEvent::UserAck(out),
            Kind::Activity => UiEvent::ActivityText(out),
            Kind::System => UiEvent::SystemText(out),
        }
    }

    /// The cursor of a message event; `None` for the others.
    pub fn seq(&self) -> Option<i64> {
        match self {
            UiEvent::UserText(m)
            | UiEvent::AssistantText(m)
            | UiEvent::AgentMessage(m)
            | UiEvent::UserAck(m)
            | UiEvent::ActivityText(m)
            | UiEvent::SystemText(m) => Some(m.seq),
            UiEvent::SessionList { .. }
            | UiEvent::SessionStatus { .. }
            | UiEvent::InboxUpdate { .. }
            | UiEvent::SessionSpawned { .. }
            | UiEvent::SessionTerminated { .. }
            | UiEvent::SessionProblem { .. }
            | UiEvent::Reset { .. }
            | UiEvent::Error { .. } => None,
        }
    }
}
