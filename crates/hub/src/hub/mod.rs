//! The hub: the handle every transport holds (the HTTP/WebSocket API, the private socket, the desktop
//! window's IPC), so each transport is a thin translation and nothing is written twice.
//!
//! The hub is the one owner of the store and of each agent's live data (its waiter, its inbox lock). A
//! `Hub` is a cheap-clone handle; the state behind it is shared by all connections.
//!
//! Long: the composition root and the agents as the UI lists them, until the lifecycle, the inbox and the hooks are made once as search and usage are.

mod apply;
mod messages;

pub use messages::MAX_TEXT;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use clawmux_core::observe::{LogObserver, Observers};
use clawmux_core::wire::{check_agent_name, Code};
use clawmux_core::{Event, Millis, Source, State};
use clawmux_store::Store;
use tokio::sync::broadcast;

use crate::agents::Agents;
use crate::clock::now;
use crate::config::{load_or_create_token, make_private, Options, DB_FILE};
use crate::error::HubError;
use crate::lifecycle::launch::Launch;
use crate::lifecycle::tmux::Tmux;
use crate::live::Live;
use crate::metrics::SharedMetrics;
use crate::ui_event::{Needs, SessionInfo, UiEvent};

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
    /// Live data per agent.
    agents: Agents,
    /// Every UI event, in order. Message events go out under `append_order`, so their seqs only grow.
    ui: broadcast::Sender<UiEvent>,
    /// Serialises "append a message, then broadcast it": a UI that has seen seq N has seen all below it.
    append_order: tokio::sync::Mutex<()>,
    /// Logging and metrics of every decision.
    observers: Mutex<Observers>,
    /// Time in state and transition counts, for `/metrics`.
    metrics: SharedMetrics,
    /// When this hub started.
    started_at: Millis,
    next_waiter: AtomicU64,
    /// How agents are started and looked after.
    options: Options,
    /// The agents' terminals.
    tmux: Tmux,
    /// The port the hub serves on (0 until it serves): agents are told it.
    port: AtomicU16,
    /// Voice: the recordings kept, the settings, speech to text on the device (`voice/`).
    voice: crate::voice::Voice,
    /// Claude Code's own view of each session (`opinion/`).
    opinion: crate::opinion::SecondOpinion,
    /// The agents' worktrees and the conflict forecast between them (`worktree/`).
    worktrees: crate::worktree::Worktrees,
    /// What each agent costs and the account's limits (`usage/`).
    usage: crate::usage::Usage,
    /// The other machines, followed over ssh (`machines/`).
    machines: crate::machines::Machines,
    /// Finding anything ever said (`search/`).
    search: crate::search::Search,
    /// Bringing in an original installation's conversations (`import.rs`).
    import: crate::import::Import,
    /// Why an indicator says what it says, and the case files (`explain.rs`).
    explain: crate::explain::Explain,
    /// Following the agents' transcripts (`transcript.rs`).
    transcripts: crate::transcript::Transcripts,
    /// Answering what an agent needs from the app (`asks/`).
    requests: crate::asks::Requests,
    /// What the features found for the state machine, until `serve` takes it to record it.
    found: Mutex<Option<tokio::sync::mpsc::UnboundedReceiver<crate::found::ForHub>>>,
    /// What the features ask of the lifecycle, until `serve` takes it to carry it out.
    errands: Mutex<Option<tokio::sync::mpsc::UnboundedReceiver<crate::usage::Errand>>>,
}

/// What a slot held, taken out once (a channel's receiving half, for the task that serves it).
fn take_once<T>(slot: &Mutex<Option<T>>) -> Option<T> {
    slot.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take()
}

impl Hub {
    /// Opens the hub's data folder with the options of the environment ([`Options::from_env`]).
    pub async fn open(data_dir: &Path) -> Result<Hub, HubError> {
        Hub::open_with(data_dir, Options::from_env()).await
    }

    /// Opens the hub's data folder: creates it, the token and the database if needed, and loads the agents.
    /// Long: the composition root: each feature made once, in the order they name each other.
    pub async fn open_with(data_dir: &Path, options: Options) -> Result<Hub, HubError> {
        let internal = |what: &str, e: &dyn std::fmt::Display| {
            HubError::new(Code::Startup, format!("{what}: {e}"))
        };
        make_private(data_dir)
            .map_err(|e| internal(&format!("cannot make {} private", data_dir.display()), &e))?;
        let token = load_or_create_token(data_dir)
            .map_err(|e| internal(&format!("cannot use {}", data_dir.display()), &e))?;
        let store = Store::open(&data_dir.join(DB_FILE)).await?;
        let agents = Agents::default();
        for row in store.agents().await? {
            agents.insert(&row.name, PathBuf::from(row.work_dir), row.snapshot.state);
        }
        let mut observers = Observers::default();
        observers.subscribe(Box::new(LogObserver));
        let metrics = SharedMetrics::default();
        observers.subscribe(Box::new(metrics.clone()));
        let options_second_opinion = options.second_opinion_after;
        let ui = broadcast::channel(UI_BACKLOG).0;
        let opinions: crate::opinion::judge::Opinions = std::sync::Arc::new(std::sync::Mutex::new(
            crate::opinion::judge::Judge::new(options_second_opinion),
        ));
        let voice = crate::voice::Voice::new(
            data_dir.to_owned(),
            crate::voice::device::DeviceVoice::new(
                data_dir.join("models"),
                options.models_url.clone(),
                ui.clone(),
            ),
        );
        let (errands, errands_in) = tokio::sync::mpsc::unbounded_channel();
        let usage = crate::usage::Usage::new(
            store.clone(),
            agents.clone(),
            ui.clone(),
            crate::usage::figures::Figures::restore(&store).await?,
            errands,
            &options,
        );
        let machines = crate::machines::Machines::new(
            data_dir.to_owned(),
            options.ssh_config.clone(),
            ui.clone(),
        );
        let (finds, found) = crate::found::Finds::channel();
        let transcripts = crate::transcript::Transcripts::new(
            agents.clone(),
            usage.clone(),
            finds.clone(),
            options.reorder_window,
        );
        let opinion = crate::opinion::SecondOpinion::new(
            store.clone(),
            ui.clone(),
            opinions.clone(),
            finds.clone(),
        );
        let requests = crate::asks::Requests::new(agents.clone(), finds.clone());
        let search = crate::search::Search::new(
            store.clone(),
            agents.clone(),
            ui.clone(),
            crate::usage::bridge::claude_dir(),
        );
        let import = crate::import::Import::new(
            data_dir.to_owned(),
            store.clone(),
            agents.clone(),
            ui.clone(),
        );
        let worktrees = crate::worktree::Worktrees::new(
            store.clone(),
            agents.clone(),
            data_dir.to_owned(),
            ui.clone(),
        );
        let explain = crate::explain::Explain::new(
            store.clone(),
            agents.clone(),
            opinions.clone(),
            options.start_timeout,
            data_dir,
        );
        Ok(Hub {
            inner: Arc::new(Inner {
                store,
                token,
                data_dir: data_dir.to_owned(),
                agents,
                ui,
                append_order: tokio::sync::Mutex::new(()),
                observers: Mutex::new(observers),
                metrics,
                started_at: now(),
                next_waiter: AtomicU64::new(1),
                tmux: Tmux::new(options.tmux.clone(), data_dir),
                options,
                port: AtomicU16::new(0),
                voice,
                opinion,
                worktrees,
                usage,
                machines,
                search,
                import,
                explain,
                transcripts,
                requests,
                found: Mutex::new(Some(found)),
                errands: Mutex::new(Some(errands_in)),
            }),
        })
    }

    /// The install's API token.
    pub fn token(&self) -> &str {
        &self.inner.token
    }

    /// The metrics page (`GET /metrics`).
    pub async fn metrics_text(&self) -> Result<String, HubError> {
        let agents = self.store().agents().await?;
        Ok(self.inner.metrics.render(&agents, now(), self.started_at()))
    }

    /// When this hub started.
    pub fn started_at(&self) -> Millis {
        self.inner.started_at
    }

    /// How agents are started and looked after.
    pub fn options(&self) -> &Options {
        &self.inner.options
    }

    /// Voice: the recordings kept, the settings, speech to text on the device.
    pub fn voice(&self) -> &crate::voice::Voice {
        &self.inner.voice
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

    /// Following the agents' transcripts.
    pub(crate) fn transcripts(&self) -> &crate::transcript::Transcripts {
        &self.inner.transcripts
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

    /// An agent started or a session appeared: Claude Code's sessions folder may exist now.
    pub(crate) fn poke_claude_sessions(&self) {
        self.inner.opinion.poke();
    }

    pub(crate) fn tmux(&self) -> &Tmux {
        &self.inner.tmux
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
        let file = self.inner.data_dir.join(crate::config::PORT_FILE);
        let tmp = file.with_extension("tmp");
        if let Err(e) = crate::config::write_private(&tmp, port.to_string().as_bytes())
            .and_then(|()| std::fs::rename(&tmp, &file))
        {
            tracing::warn!(error = %e, "cannot record the hub's port in its data folder");
        }
    }

    /// The port the hub serves on; starting agents needs it.
    pub(crate) fn port(&self) -> Result<u16, HubError> {
        match self.inner.port.load(Ordering::SeqCst) {
            0 => Err(HubError::new(
                Code::NotServing,
                "the hub is not serving yet, so agents could not reach it",
            )),
            port => Ok(port),
        }
    }

    /// Sets (or clears) what the user must know about an agent, and tells the UI when it changes.
    pub(crate) fn set_problem(&self, agent: &str, problem: Option<String>) {
        let Ok(live) = self.live(agent) else { return };
        let mut slot = live.run.problem();
        if *slot != problem {
            slot.clone_from(&problem);
            drop(slot);
            self.broadcast(UiEvent::SessionProblem {
                session_id: agent.to_owned(),
                problem,
            });
        }
    }

    pub(crate) fn insert_live(&self, agent: &str, work_dir: PathBuf) {
        self.inner.agents.insert(agent, work_dir, State::Starting);
    }

    pub(crate) fn remove_live(&self, agent: &str) {
        self.inner.agents.remove(agent);
        self.inner.usage.forget(agent);
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

    pub(crate) fn broadcast(&self, event: UiEvent) {
        // No receiver means no UI is open: not an error.
        let _ = self.inner.ui.send(event);
    }

    pub(crate) fn live(&self, agent: &str) -> Result<Arc<Live>, HubError> {
        self.inner.agents.live(agent)
    }

    /// After a start: an agent recorded IDLE whose wait did not come back within [`WAIT_GRACE`] left its
    /// wait while the hub was down. Record that (a wait disconnect, reported by the hub), so the sidebar
    /// does not show it idle forever. Waits that reconnected are left alone.
    pub async fn settle_waits_after_start(&self) -> Result<(), HubError> {
        tokio::time::sleep(WAIT_GRACE).await;
        for row in self.inner.store.agents().await? {
            let Ok(live) = self.live(&row.name) else {
                continue;
            };
            let _order = live.mail.wait_order.lock().await;
            let idle = self.inner.store.agent(&row.name).await?.snapshot.state == State::Idle;
            if idle && !live.mail.has_waiter() {
                self.apply(&row.name, Source::Hub, &Event::WaitDisconnected, b"")
                    .await?;
            }
        }
        Ok(())
    }

    /// Whether `agent` is dead.
    pub(crate) async fn is_dead(&self, agent: &str) -> Result<bool, HubError> {
        Ok(self.inner.store.agent(agent).await?.snapshot.state == State::Dead)
    }

    pub(crate) fn next_waiter_id(&self) -> u64 {
        self.inner.next_waiter.fetch_add(1, Ordering::Relaxed)
    }

    // The agents as the UI lists them, and registering one.

    /// The agent whose work folder is `cwd` (hooks without the session header).
    pub fn agent_by_work_dir(&self, cwd: &str) -> Option<String> {
        self.inner.agents.working_in(Path::new(cwd))
    }

    /// Every agent as the sidebar shows it.
    pub async fn sessions(&self) -> Result<Vec<SessionInfo>, HubError> {
        let mut out = Vec::new();
        for row in self.inner.store.agents().await? {
            out.push(self.info(&row).await?);
        }
        Ok(out)
    }

    /// One agent as the sidebar shows it.
    pub async fn session(&self, agent: &str) -> Result<SessionInfo, HubError> {
        self.info(&self.inner.store.agent(agent).await?).await
    }

    async fn info(&self, row: &clawmux_store::AgentRow) -> Result<SessionInfo, HubError> {
        let unread = self.inner.store.unread(&row.name).await?;
        let launch = row
            .launch
            .as_deref()
            .and_then(|l| serde_json::from_str::<Launch>(l).ok());
        let live = self.live(&row.name).ok();
        let problem = live.as_ref().and_then(|l| l.run.problem().clone());
        let mut info = SessionInfo::new(&row.name, &row.work_dir, &row.snapshot, unread)
            .with_launch(launch.as_ref().map(Launch::kind), problem);
        info.overlaps = self.inner.worktrees.overlaps(&row.name);
        info.usage = self.inner.usage.of_agent(&row.name).map(Box::new);
        // A worktree removed (`clawmux worktree remove`) has no changes to show.
        info.branch = launch
            .and_then(|l| l.worktree)
            .filter(|_| Path::new(&row.work_dir).is_dir())
            .map(|w| w.branch);
        info.needs = Needs::of(
            row.snapshot.attention.as_ref(),
            live.and_then(|l| l.asks.current()),
        );
        Ok(info)
    }

    /// What registering an agent and spawning one check first: a good name no agent has, and a usable
    /// work folder (given, or the default one); returns the folder, not created yet.
    pub(crate) fn check_new_agent(
        &self,
        name: &str,
        work_dir: Option<&Path>,
    ) -> Result<(PathBuf, String), HubError> {
        check_agent_name(name).map_err(|e| HubError::new(Code::BadAgentName, e.to_string()))?;
        if self.live(name).is_ok() {
            return Err(HubError::new(
                Code::AgentExists,
                format!("agent `{name}` already exists"),
            ));
        }
        crate::work_dir::resolve(&self.inner.data_dir, name, work_dir)
    }

    /// Registers an agent (STARTING, no process) with its work folder, created if missing. The default
    /// folder is `<data dir>/agents/<name>`.
    pub async fn add_agent(
        &self,
        name: &str,
        work_dir: Option<&Path>,
    ) -> Result<SessionInfo, HubError> {
        let (work_dir, work_str) = self.check_new_agent(name, work_dir)?;
        std::fs::create_dir_all(&work_dir)
            .map_err(|e| crate::work_dir::cannot_create(&work_dir, &e))?;
        let row = self.inner.store.add_agent(name, &work_str, now()).await?;
        self.insert_live(name, work_dir);
        let info = SessionInfo::new(&row.name, &row.work_dir, &row.snapshot, 0);
        self.broadcast(UiEvent::SessionSpawned {
            session: info.clone(),
        });
        Ok(info)
    }
}
