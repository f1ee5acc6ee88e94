//! The hub: the handle every transport holds (the HTTP/WebSocket API, the private socket, the desktop
//! window's IPC), so each transport is a thin translation and nothing is written twice.
//!
//! The hub is the one owner of the store and of each agent's live data (its waiter, its inbox lock). A
//! `Hub` is a cheap-clone handle; the state behind it is shared by all connections.
//!
//! The hub is opened, each feature made once, in `open.rs`.

mod open;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Arc, Mutex};

use clawmux_core::{Event, Millis, Source};
use clawmux_store::Store;
use tokio::sync::broadcast;

use crate::clock::now;
use crate::config::Options;
use crate::error::HubError;
use crate::lifecycle::tmux::Tmux;
use crate::live::Live;
use crate::metrics::SharedMetrics;
use crate::states::States;
use crate::ui_event::UiEvent;
use clawmux_core::sync::Locked;

/// How many UI events a slow UI may fall behind before it must resynchronise from the store.
const UI_BACKLOG: usize = 4096;
/// How long, after the hub starts, the `clawmux wait`s of IDLE agents have to reconnect before those agents
/// are taken to have left their wait while the hub was down.
pub const WAIT_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// A handle to the hub.
#[derive(Clone)]
pub struct Hub {
    inner: Arc<Inner>,
}

struct Inner {
    store: Store,
    token: String,
    data_dir: PathBuf,
    /// The agents' states: every event stored and heard of, every message appended (`states.rs`).
    states: States,
    /// Every UI event, in order (the UI's subscriptions start here).
    ui: broadcast::Sender<UiEvent>,
    /// Time in state and transition counts, for `/metrics`.
    metrics: SharedMetrics,
    /// When this hub started.
    started_at: Millis,
    /// Each agent's unread messages and how they reach it (`inbox/`).
    inbox: crate::inbox::Inbox,
    /// Where every hook is received (`hooks/`).
    hooks: crate::hooks::Hooks,
    /// What the user says hands-free (`hands_free/`).
    hands_free: crate::hands_free::HandsFree,
    /// How agents are started and looked after.
    options: Arc<Options>,
    /// The agents' terminals.
    tmux: Tmux,
    /// The port the hub serves on (0 until it serves): agents are told it.
    port: Arc<AtomicU16>,
    /// Starting the agents and looking after them (`lifecycle/`).
    lifecycle: crate::lifecycle::Lifecycle,
    /// Voice: the recordings kept, the settings, speech to text on the device (`voice/`).
    voice: crate::voice::Voice,
    /// The files users attach to their messages (`attachments/`).
    attachments: crate::attachments::Attachments,
    phone: crate::phone::Phone,
    /// Claude Code's own view of each session (`opinion/`).
    opinion: crate::opinion::SecondOpinion,
    /// The agents' worktrees and the conflict forecast between them (`worktree/`).
    worktrees: crate::worktree::Worktrees,
    /// What each agent costs and the account's limits (`usage/`).
    usage: crate::usage::Usage,
    /// The other machines, followed over ssh (`machines/`).
    machines: crate::machines::Machines,
    /// The hub's own tasks, stopped when it stops serving.
    tasks: crate::tasks::Tasks,
    /// Finding anything ever said (`search/`).
    search: crate::search::Search,
    /// Bringing in an original installation's conversations (`import.rs`).
    import: crate::import::Import,
    /// Why an indicator says what it says, and the case files (`explain.rs`).
    explain: crate::explain::Explain,
    /// Answering what an agent needs from the app (`asks/`).
    requests: crate::asks::Requests,
    /// What passes between agents: the rules of a send, the asks' answers, the threads.
    between: crate::between::Between,
    /// The shared board.
    board: crate::board::Board,
    /// Sending and reading messages (`messages.rs`).
    messages: crate::messages::Messages,
    /// The agents' rows as clients read them (`roster.rs`).
    roster: crate::roster::Roster,
    /// The leads.
    leads: crate::lead::Leads,
    /// What the features found for the state machine, until `serve` takes it to record it.
    found: Mutex<Option<tokio::sync::mpsc::UnboundedReceiver<crate::found::ForHub>>>,
    /// What the features ask of the lifecycle, until `serve` takes it to carry it out.
    errands: Mutex<Option<tokio::sync::mpsc::UnboundedReceiver<crate::usage::Errand>>>,
}

/// What a slot held, taken out once (a channel's receiving half, for the task that serves it).
fn take_once<T>(slot: &Mutex<Option<T>>) -> Option<T> {
    slot.locked().take()
}

impl Hub {
    /// The install's API token.
    pub fn token(&self) -> &str {
        &self.inner.token
    }

    /// The metrics page (`GET /metrics`).
    pub async fn metrics_text(&self) -> Result<String, HubError> {
        let agents = self.store().agents().await?;
        let mut text = self
            .inner
            .metrics
            .render(&agents, now(), self.inner.started_at);
        crate::metrics::status_reports(&mut text, &self.opinion().tally());
        Ok(text)
    }

    /// How agents are started and looked after.
    pub fn options(&self) -> &Options {
        &self.inner.options
    }

    /// Voice: the recordings kept, the settings, speech to text on the device.
    pub fn voice(&self) -> &crate::voice::Voice {
        &self.inner.voice
    }

    /// The files users attach to their messages.
    pub fn attachments(&self) -> &crate::attachments::Attachments {
        &self.inner.attachments
    }

    /// The user's phones.
    pub fn phone(&self) -> &crate::phone::Phone {
        &self.inner.phone
    }

    /// The agents' worktrees.
    pub fn worktrees(&self) -> &crate::worktree::Worktrees {
        &self.inner.worktrees
    }

    /// What each agent costs and the account's limits.
    pub fn usage(&self) -> &crate::usage::Usage {
        &self.inner.usage
    }

    /// Claude Code's own view of each session.
    pub(crate) fn opinion(&self) -> &crate::opinion::SecondOpinion {
        &self.inner.opinion
    }

    /// Answering what an agent needs from the app.
    pub fn requests(&self) -> &crate::asks::Requests {
        &self.inner.requests
    }

    /// What the features found for the state machine, for the one who records it (`serve`), once.
    pub(crate) fn take_found(
        &self,
    ) -> Option<tokio::sync::mpsc::UnboundedReceiver<crate::found::ForHub>> {
        take_once(&self.inner.found)
    }

    /// What the features ask of the lifecycle, for the one who carries it out (`serve`), once.
    pub(crate) fn take_errands(
        &self,
    ) -> Option<tokio::sync::mpsc::UnboundedReceiver<crate::usage::Errand>> {
        take_once(&self.inner.errands)
    }

    /// The hub's own tasks.
    pub fn tasks(&self) -> &crate::tasks::Tasks {
        &self.inner.tasks
    }

    /// The other machines.
    pub fn machines(&self) -> &crate::machines::Machines {
        &self.inner.machines
    }

    /// Finding anything ever said.
    pub fn search(&self) -> &crate::search::Search {
        &self.inner.search
    }

    /// Why an indicator says what it says, and the case files.
    pub fn explain(&self) -> &crate::explain::Explain {
        &self.inner.explain
    }

    /// Bringing in an original installation's conversations.
    pub fn import(&self) -> &crate::import::Import {
        &self.inner.import
    }

    /// The leads: agents the user lets answer their group's permission requests.
    pub fn leads(&self) -> &crate::lead::Leads {
        &self.inner.leads
    }

    /// The shared board.
    pub fn board(&self) -> &crate::board::Board {
        &self.inner.board
    }

    /// Sending and reading messages.
    pub fn messages(&self) -> &crate::messages::Messages {
        &self.inner.messages
    }

    /// The agents' rows as clients read them.
    pub fn roster(&self) -> &crate::roster::Roster {
        &self.inner.roster
    }

    /// What passes between agents: the rules of a send, the asks' answers, the threads.
    pub fn between(&self) -> &crate::between::Between {
        &self.inner.between
    }

    /// Each agent's unread messages and how they reach it.
    pub fn inbox(&self) -> &crate::inbox::Inbox {
        &self.inner.inbox
    }

    /// Starting the agents and looking after them.
    pub fn lifecycle(&self) -> &crate::lifecycle::Lifecycle {
        &self.inner.lifecycle
    }

    /// What the user says hands-free.
    pub fn hands_free(&self) -> &crate::hands_free::HandsFree {
        &self.inner.hands_free
    }

    /// Where every hook is received.
    pub fn hooks(&self) -> &crate::hooks::Hooks {
        &self.inner.hooks
    }

    /// The agents' states.
    pub(crate) fn states(&self) -> &States {
        &self.inner.states
    }

    /// The agents' terminals.
    pub(crate) fn terminals(&self) -> crate::terminal::Terminals<'_> {
        crate::terminal::Terminals {
            tmux: &self.inner.tmux,
            home: &self.inner.data_dir,
        }
    }

    /// Records the port the hub serves on.
    pub(crate) fn set_port(&self, port: u16) {
        self.inner.port.store(port, Ordering::SeqCst);
        // Written whole then renamed, so a hook never reads half a number.
        let file = self.inner.data_dir.join(clawmux_core::layout::PORT_FILE);
        let tmp = file.with_extension("tmp");
        if let Err(e) = crate::config::write_private(&tmp, port.to_string().as_bytes())
            .and_then(|()| std::fs::rename(&tmp, &file))
        {
            tracing::warn!(error = %e, "cannot record the hub's port in its data folder");
        }
    }

    /// The data folder.
    pub fn data_dir(&self) -> &Path {
        &self.inner.data_dir
    }

    /// The store: the hub's modules read it; nothing outside the hub writes or reads it behind its back.
    pub(crate) fn store(&self) -> &Store {
        &self.inner.store
    }

    /// Receives every UI event from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<UiEvent> {
        self.inner.ui.subscribe()
    }

    pub(crate) fn live(&self, agent: &str) -> Result<Arc<Live>, HubError> {
        self.inner.states.live(agent)
    }

    /// Stores an event that happened now, steps the agent's machine, tells the observers and the UI.
    pub async fn apply(
        &self,
        agent: &str,
        source: Source,
        event: &Event,
        payload: &[u8],
    ) -> Result<clawmux_store::Applied, HubError> {
        self.inner.states.apply(agent, source, event, payload).await
    }

    /// Dismisses a "needs you" that only a notice raised; anything else is refused and changes nothing.
    pub async fn dismiss(&self, agent: &str, source: Source) -> Result<(), HubError> {
        self.inner.states.dismiss(agent, source).await
    }
}
