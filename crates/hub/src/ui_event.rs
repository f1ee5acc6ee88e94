//! What browsers and the desktop window receive: the event names of `docs/PROTOCOL.md`.

use clawmux_core::changes::Overlap;
pub use clawmux_core::wire::MessageOut;
use clawmux_core::wire::{Code, Kind, Message};

use clawmux_core::status::AgentStatus;
use clawmux_core::{Attention, Millis, Snapshot, State};

use clawmux_core::usage::{Account, AgentUsage};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How an agent runs, as far as ClawMux is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LaunchKind {
    /// ClawMux runs Claude Code for it.
    Claude,
    /// The built-in demo agent.
    Demo,
    /// It runs on its own; ClawMux cannot start or end it.
    External,
    /// A Claude Code session seen through the user's own hooks: its state only, no chat.
    Observed,
}

impl LaunchKind {
    /// Every launch kind.
    pub const ALL: [LaunchKind; 4] = [
        LaunchKind::Claude,
        LaunchKind::Demo,
        LaunchKind::External,
        LaunchKind::Observed,
    ];
}

/// Why an agent's process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The user asked for it.
    Terminated,
    /// It ended by itself.
    Exited,
}

impl EndReason {
    /// Every reason.
    pub const ALL: [EndReason; 2] = [EndReason::Terminated, EndReason::Exited];
}

/// How a download stands, on the UI feed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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

/// A request as clients see it, under the agent's `needs`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// Its id: an answer names it, so a click meant for an earlier request answers nothing.
    pub id: String,
    /// The tool that asks (`Bash`, `Edit`, `AskUserQuestion`, `ExitPlanMode`, ...).
    pub tool_name: String,
    /// What it will do: its input as Claude Code sent it (a question's options are in it).
    pub tool_input: Value,
    /// The rules Claude Code suggests for "always allow" (`permission_suggestions`), if any.
    pub suggestions: Vec<Value>,
}

/// One agent as the sidebar shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionInfo {
    /// The agent's name.
    pub session_id: String,
    /// Its state.
    pub state: State,
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
    pub launch: LaunchKind,
    /// What the user must know now (it did not start, it stopped by itself, it left the loop).
    pub problem: Option<String>,
    /// "Needs you": what the agent waits for the user for, if anything.
    pub needs: Option<Needs>,
    /// Its own branch (`clawmux/<name>`) when it works in a worktree of its own: the window offers its
    /// Changes panel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The conflict forecast: what its work has in common with other agents' in the same repository.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overlaps: Vec<Overlap>,
    /// What it costs and how full its context is, once its status line reported (`usage/`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Box<AgentUsage>>,
}

/// "Needs you" as clients see it: what for, and the request the app can answer, if one is open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Needs {
    /// What for, and since when.
    #[serde(flatten)]
    pub attention: Attention,
    /// The open request (a permission, a question, a plan), if the app can answer it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<Request>,
}

impl Needs {
    /// The overlay of a snapshot, with the agent's open request.
    pub fn of(attention: Option<&Attention>, request: Option<Request>) -> Option<Needs> {
        attention.map(|a| Needs {
            attention: a.clone(),
            request,
        })
    }

    /// An agent's status as the tray, the notices, the pushes and hands-free read it. A permission's
    /// request can be answered from a notification itself; a question or a plan needs the window.
    pub fn status(agent: &str, state: State, needs: Option<&Needs>) -> AgentStatus {
        AgentStatus {
            agent: agent.to_owned(),
            state,
            needs: needs.map(|n| n.attention.clone()),
            permission: needs
                .filter(|n| n.attention.need == clawmux_core::Need::Permission)
                .and_then(|n| n.request.as_ref())
                .map(|r| r.id.clone()),
        }
    }
}

impl SessionInfo {
    /// The agent's status, read by the same predicates wherever the user is told about it.
    pub fn status(&self) -> AgentStatus {
        Needs::status(&self.session_id, self.state, self.needs.as_ref())
    }

    /// Builds the row from a snapshot.
    pub fn new(name: &str, work_dir: &str, s: &Snapshot, unread_count: i64) -> SessionInfo {
        SessionInfo {
            session_id: name.to_owned(),
            state: s.state,
            activity: clawmux_core::state::activity(s),
            unread_count,
            work_dir: work_dir.to_owned(),
            since: s.since,
            launch: if s.observed {
                LaunchKind::Observed
            } else {
                LaunchKind::External
            },
            problem: None,
            needs: Needs::of(s.attention.as_ref(), None),
            branch: None,
            overlaps: Vec::new(),
            usage: None,
        }
    }

    /// With how ClawMux starts the agent, if it does (`None`: it does not), and its current problem.
    pub fn with_launch(
        mut self,
        launch: Option<LaunchKind>,
        problem: Option<String>,
    ) -> SessionInfo {
        if let Some(kind) = launch {
            self.launch = kind;
        }
        self.problem = problem;
        self
    }
}

/// An event pushed to every connected UI. Its `type` names, as [`UiEventType`], are the list the UI's
/// `names.js` is checked against.
#[derive(Debug, Clone, Serialize, strum::EnumDiscriminants)]
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
        /// The event.
        event: Value,
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
        model: clawmux_voice::local::LocalModel,
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
        voice: clawmux_voice::piper::LocalVoice,
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
            | UiEvent::ModelDownload { .. }
            | UiEvent::VoiceDownload { .. }
            | UiEvent::Changes { .. }
            | UiEvent::Forecast { .. }
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
