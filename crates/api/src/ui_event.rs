//! What browsers and the desktop window receive: the event names of `docs/PROTOCOL.md`.

use clawmux_core::changes::Overlap;
pub use clawmux_core::wire::MessageOut;
use clawmux_core::wire::{Code, Kind, Message};

use clawmux_core::{Millis, State};

use clawmux_core::usage::{Account, AgentUsage};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::session::{EndReason, LaunchKind, Needs, Request, SessionInfo};

/// How a download stands, on the UI feed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DownloadState {
    /// Bytes are arriving.
    Running,
    /// The model is in place.
    Done,
    /// It failed; the message says why.
    Failed,
    /// The user cancelled it; the partial file is kept.
    Cancelled,
}

impl DownloadState {
    /// Every state.
    pub const ALL: [DownloadState; 4] = [
        DownloadState::Running,
        DownloadState::Done,
        DownloadState::Failed,
        DownloadState::Cancelled,
    ];
}

/// An event pushed to every connected UI. Its `type` names, as [`UiEventType`], are the list the UI's
/// `names.js` is checked against.
#[derive(Debug, Clone, Serialize, Deserialize, strum::EnumDiscriminants)]
#[serde(tag = "type", rename_all = "snake_case")]
#[strum_discriminants(
    name(UiEventType),
    doc = "The `type` of a [`UiEvent`], as the UI matches it, and as this hub reads another machine's.",
    derive(Serialize, Deserialize, strum::EnumIter),
    serde(rename_all = "snake_case")
)]
pub enum UiEvent {
    /// Another machine's link came up or went down (`machines/`).
    MachineLink {
        /// The machine.
        machine: String,
        /// Whether its feed is followed now.
        up: bool,
        /// When anything was last heard from it.
        last_seen: Option<Millis>,
        /// Why it is not reached, in words that say what to do.
        error: Option<String>,
    },
    /// An event of another machine's hub, as that hub sent it to its own window.
    MachineEvent {
        /// The machine.
        machine: String,
        /// The event, read as this hub reads its own (one this version does not read is not relayed:
        /// this hub's window is of this version too).
        event: Box<UiEvent>,
    },
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
        state: State,
        /// The status_text.
        activity: String,
        /// The tool, when a tool call caused the change.
        tool_name: Option<String>,
        /// The tool's input, when a tool call caused the change.
        tool_input: Option<Value>,
        /// When the agent entered its state.
        since: Millis,
        /// "Needs you": what the agent waits for the user for, if anything.
        needs: Option<Needs>,
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
    /// An agent's model received these messages (their ids were in its transcript): their delivery is
    /// "seen".
    Seen {
        /// The agent that received them.
        session_id: String,
        /// The messages.
        ids: Vec<clawmux_core::wire::MsgId>,
    },
    /// An item of the board was added or moved.
    Task {
        /// The item as it is now.
        task: clawmux_core::board::Task,
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
        /// Asked for, or by itself.
        reason: EndReason,
    },
    /// What the user must know about an agent changed (`None`: nothing any more).
    SessionProblem {
        /// The agent.
        session_id: String,
        /// The problem.
        problem: Option<String>,
    },
    /// An agent's worktree may have changed (one of its tool calls ended, or it was merged): a Changes
    /// panel showing it reads it again.
    Changes {
        /// The agent.
        session_id: String,
    },
    /// The conflict forecast of an agent changed: what its work has in common with other agents' in the
    /// same repository (empty: nothing now).
    Forecast {
        /// The agent.
        session_id: String,
        /// With each other agent.
        overlaps: Vec<Overlap>,
    },
    /// How many of an agent's tasks run in the background (commands Claude Code runs for it, their end
    /// told to the model even while it waits): the sidebar shows an idle agent with work running.
    Background {
        /// The agent.
        session_id: String,
        /// The tasks running (0: none now).
        running: u32,
    },
    /// An agent's figures moved: its context, tokens, cost, or whether it is rate-limited.
    Usage {
        /// The figures.
        usage: Box<AgentUsage>,
    },
    /// The account's limit windows moved.
    Limits {
        /// Each window, its reset and its pace.
        account: Account,
    },
    /// Messages stored before search came are being indexed: how many are left (0: all are).
    SearchIndex {
        /// Messages not indexed yet.
        left: i64,
    },
    /// The user's Claude Code sessions were read for search: lines added.
    SessionsRead {
        /// Lines kept by this read.
        lines: usize,
    },
    /// A speech model's download moved on, or ended.
    ModelDownload {
        /// The model.
        model: clawmux_core::models::LocalModel,
        /// Bytes downloaded.
        done: u64,
        /// Bytes in all.
        total: u64,
        /// Under way, or how it ended.
        state: DownloadState,
        /// Why it failed or stopped.
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// The device voice's download moved on, or ended.
    VoiceDownload {
        /// The voice.
        voice: clawmux_core::models::LocalVoice,
        /// Bytes downloaded.
        done: u64,
        /// Bytes in all.
        total: u64,
        /// Under way, or how it ended.
        state: DownloadState,
        /// Why it failed or stopped.
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// The replay from the client's cursor could not be done; the client must reload its history.
    Reset {
        /// Why.
        reason: String,
    },
    /// Keeps a browser's connection alive (the WebSocket only).
    Ping,
    /// A request sent over the socket failed.
    Error {
        /// Stable code.
        code: Code,
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
        self.message_out().map(|m| m.seq)
    }

    /// The message of a message event; `None` for the others.
    pub fn message_out(&self) -> Option<&MessageOut> {
        match self {
            UiEvent::UserText(m)
            | UiEvent::AssistantText(m)
            | UiEvent::AgentMessage(m)
            | UiEvent::UserAck(m)
            | UiEvent::ActivityText(m)
            | UiEvent::SystemText(m) => Some(m),
            UiEvent::SessionList { .. }
            | UiEvent::SessionStatus { .. }
            | UiEvent::InboxUpdate { .. }
            | UiEvent::Seen { .. }
            | UiEvent::Task { .. }
            | UiEvent::SessionSpawned { .. }
            | UiEvent::SessionTerminated { .. }
            | UiEvent::SessionProblem { .. }
            | UiEvent::Reset { .. }
            | UiEvent::ModelDownload { .. }
            | UiEvent::VoiceDownload { .. }
            | UiEvent::Changes { .. }
            | UiEvent::Forecast { .. }
            | UiEvent::Background { .. }
            | UiEvent::Usage { .. }
            | UiEvent::Limits { .. }
            | UiEvent::SearchIndex { .. }
            | UiEvent::SessionsRead { .. }
            | UiEvent::Ping
            | UiEvent::Error { .. }
            // Another machine's: its cursors are that hub's, not this one's.
            | UiEvent::MachineLink { .. }
            | UiEvent::MachineEvent { .. } => None,
        }
    }
}
