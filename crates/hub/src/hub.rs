//! The hub's command surface: every operation the HTTP/WebSocket API (and, later, the desktop window's
//! IPC) offers is one method here, so each transport is a thin translation and nothing is written twice.
//!
//! The hub is the one owner of the store and of each agent's live data (its waiter, its inbox lock). A
//! `Hub` is a cheap-clone handle; the state behind it is shared by all connections.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use clawmux_core::observe::{LogObserver, Observers};
use clawmux_core::wire::Code;
use clawmux_core::wire::{check_agent_name, Kind, Message, MsgId};
use clawmux_core::{Event, Millis, Source, State};
use clawmux_store::{Applied, Incoming, NewMessage, Store};
use sha2::{Digest, Sha256};
use tokio::sync::broadcast;

use crate::config::{load_or_create_token, make_private, Options, DB_FILE};
use crate::error::HubError;
use crate::lifecycle::launch::Launch;
use crate::lifecycle::tmux::Tmux;
use crate::live::Live;
use crate::metrics::SharedMetrics;
use crate::ui_event::{SessionInfo, UiEvent};

/// The longest message text accepted (the body limit is 1 MiB; this leaves room for JSON escaping).
pub const MAX_TEXT: usize = 512 * 1024;
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
    /// Live data per agent. A std mutex: held only to look up or insert, never across an await.
    agents: Mutex<HashMap<String, Arc<Live>>>,
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
}

/// What the UI shows of a snapshot: a change to anything else (the watermark, the last tool) is not news.
fn shown(s: &clawmux_core::Snapshot) -> (State, &str, Millis, Option<&clawmux_core::Attention>) {
    (s.state, &s.activity, s.since, s.attention.as_ref())
}

/// The wall clock, read only here at the edge: the state machine gets time handed in.
pub fn now() -> Millis {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    Millis(i64::try_from(ms).unwrap_or(i64::MAX))
}

impl Hub {
    /// Opens the hub's data folder with the options of the environment ([`Options::from_env`]).
    pub async fn open(data_dir: &Path) -> Result<Hub, HubError> {
        Hub::open_with(data_dir, Options::from_env()).await
    }

    /// Opens the hub's data folder: creates it, the token and the database if needed, and loads the agents.
    pub async fn open_with(data_dir: &Path, options: Options) -> Result<Hub, HubError> {
        let internal = |what: &str, e: &dyn std::fmt::Display| {
            HubError::new(Code::Startup, format!("{what}: {e}"))
        };
        make_private(data_dir)
            .map_err(|e| internal(&format!("cannot make {} private", data_dir.display()), &e))?;
        let token = load_or_create_token(data_dir)
            .map_err(|e| internal(&format!("cannot use {}", data_dir.display()), &e))?;
        let store = Store::open(&data_dir.join(DB_FILE)).await?;
        let mut agents = HashMap::new();
        for row in store.agents().await? {
            agents.insert(
                row.name,
                Arc::new(Live::new(PathBuf::from(row.work_dir), row.snapshot.state)),
            );
        }
        let mut observers = Observers::default();
        observers.subscribe(Box::new(LogObserver));
        let metrics = SharedMetrics::default();
        observers.subscribe(Box::new(metrics.clone()));
        Ok(Hub {
            inner: Arc::new(Inner {
                store,
                token,
                data_dir: data_dir.to_owned(),
                agents: Mutex::new(agents),
                ui: broadcast::channel(UI_BACKLOG).0,
                append_order: tokio::sync::Mutex::new(()),
                observers: Mutex::new(observers),
                metrics,
                started_at: now(),
                next_waiter: AtomicU64::new(1),
                tmux: Tmux::new(options.tmux.clone(), data_dir),
                options,
                port: AtomicU16::new(0),
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

    pub(crate) fn tmux(&self) -> &Tmux {
        &self.inner.tmux
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
        self.agents().insert(
            agent.to_owned(),
            Arc::new(Live::new(work_dir, State::Starting)),
        );
    }

    pub(crate) fn remove_live(&self, agent: &str) {
        self.agents().remove(agent);
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

    /// The agents' live data (a short critical section: never held across an await).
    fn agents(&self) -> MutexGuard<'_, HashMap<String, Arc<Live>>> {
        self.inner
            .agents
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn live(&self, agent: &str) -> Result<Arc<Live>, HubError> {
        self.agents()
            .get(agent)
            .cloned()
            .ok_or_else(|| HubError::unknown_agent(agent))
    }

    /// The agent whose work folder is `cwd` (hooks without the session header).
    pub fn agent_by_work_dir(&self, cwd: &str) -> Option<String> {
        let cwd = Path::new(cwd);
        self.agents()
            .iter()
            .find(|(_, live)| live.work_dir == cwd)
            .map(|(name, _)| name.clone())
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
        let problem = self
            .live(&row.name)
            .ok()
            .and_then(|l| l.run.problem().clone());
        Ok(
            SessionInfo::new(&row.name, &row.work_dir, &row.snapshot, unread)
                .with_launch(launch.as_ref(), problem),
        )
    }

    /// An agent's work folder: the one asked for (absolute, UTF-8), else `<data dir>/agents/<name>`; as a
    /// path and as the text the store keeps.
    pub(crate) fn work_dir_for(
        &self,
        name: &str,
        asked: Option<&Path>,
    ) -> Result<(PathBuf, String), HubError> {
        let dir = match asked {
            Some(dir) if dir.is_absolute() => dir.to_owned(),
            Some(dir) => {
                return Err(HubError::new(
                    Code::BadWorkDir,
                    format!(
                        "the work folder must be an absolute path, not `{}`",
                        dir.display()
                    ),
                ))
            }
            None => self.inner.data_dir.join("agents").join(name),
        };
        let text = dir
            .to_str()
            .ok_or_else(|| {
                HubError::new(
                    Code::BadWorkDir,
                    "the work folder's path must be valid UTF-8",
                )
            })?
            .to_owned();
        Ok((dir, text))
    }

    /// Registers an agent (STARTING, no process) with its work folder, created if missing. The default
    /// folder is `<data dir>/agents/<name>`.
    pub async fn add_agent(
        &self,
        name: &str,
        work_dir: Option<&Path>,
    ) -> Result<SessionInfo, HubError> {
        check_agent_name(name).map_err(|e| HubError::new(Code::BadAgentName, e.to_string()))?;
        let (work_dir, work_str) = self.work_dir_for(name, work_dir)?;
        let work_str = work_str.as_str();
        if self.live(name).is_ok() {
            return Err(HubError::new(
                Code::AgentExists,
                format!("agent `{name}` already exists"),
            ));
        }
        std::fs::create_dir_all(&work_dir).map_err(|e| {
            HubError::new(
                Code::BadWorkDir,
                format!("cannot create the work folder {}: {e}", work_dir.display()),
            )
        })?;
        let row = self.inner.store.add_agent(name, work_str, now()).await?;
        self.insert_live(name, work_dir);
        let info = SessionInfo::new(&row.name, &row.work_dir, &row.snapshot, 0);
        self.broadcast(UiEvent::SessionSpawned {
            session: info.clone(),
        });
        Ok(info)
    }

    /// Stores an event that happened now, steps the agent's machine, tells the observers and the UI.
    pub async fn apply(
        &self,
        agent: &str,
        source: Source,
        event: &Event,
        payload: &[u8],
    ) -> Result<Applied, HubError> {
        self.apply_at(agent, source, event, payload, now()).await
    }

    /// [`Hub::apply`] for an event that happened at `at` by its source's clock (a transcript line).
    ///
    /// Runs to its end in a task of its own: a request dropped half way (its client went away) must not
    /// leave an event stored whose new state the observers and the UI never heard of.
    pub(crate) async fn apply_at(
        &self,
        agent: &str,
        source: Source,
        event: &Event,
        payload: &[u8],
        at: Millis,
    ) -> Result<Applied, HubError> {
        let (hub, agent, event, payload) = (
            self.clone(),
            agent.to_owned(),
            event.clone(),
            payload.to_vec(),
        );
        tokio::spawn(async move { hub.step(&agent, source, &event, &payload, at).await })
            .await
            .map_err(|e| HubError::new(Code::Internal, format!("applying the event failed: {e}")))?
    }

    /// Stores the event, steps the machine, tells the observers and the UI: [`Hub::apply_at`]'s work.
    async fn step(
        &self,
        agent: &str,
        source: Source,
        event: &Event,
        payload: &[u8],
        at: Millis,
    ) -> Result<Applied, HubError> {
        let live = self.live(agent)?;
        let applied = self
            .inner
            .store
            .apply(Incoming {
                agent,
                source,
                event,
                payload,
                at,
                received_at: now(),
            })
            .await?;
        self.inner
            .observers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .notify(agent, &applied.before, &applied.decision, &applied.after);
        live.run.pulse.send_modify(|p| p.saw(event, &applied.after));
        let mut last_status = live
            .last_status
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if shown(&applied.before) != shown(&applied.after) && applied.event_id > *last_status {
            *last_status = applied.event_id;
            let (tool_name, tool_input) = match event {
                Event::Hook(clawmux_core::Hook {
                    kind: clawmux_core::hook::HookKind::PreToolUse(call),
                    ..
                }) => (Some(call.name.clone()), Some(call.input.clone())),
                Event::Hook(_)
                | Event::WaitConnected
                | Event::WaitDisconnected
                | Event::Spawned
                | Event::Terminated
                | Event::Interrupted
                | Event::Transcript(_)
                | Event::Rejected { .. } => (None, None),
            };
            self.broadcast(UiEvent::SessionStatus {
                session_id: agent.to_owned(),
                state: applied.after.state,
                activity: applied.after.activity.clone(),
                tool_name,
                tool_input,
                since: applied.after.since,
                needs: applied.after.attention.clone(),
            });
        }
        Ok(applied)
    }

    /// Appends a message and broadcasts it, in seq order with every other append.
    pub(crate) async fn append(&self, m: &NewMessage<'_>) -> Result<Message, HubError> {
        let _order = self.inner.append_order.lock().await;
        let appended = self.inner.store.append(m).await?;
        if appended.created {
            self.broadcast(UiEvent::message(&appended.message));
        }
        Ok(appended.message)
    }

    /// After a message for `agent`'s inbox was stored: flag it, wake the waiter, tell the UI.
    async fn announce_pending(&self, agent: &str) -> Result<(), HubError> {
        let live = self.live(agent)?;
        live.mail.maybe_pending.store(true, Ordering::SeqCst);
        live.mail.wake();
        self.inbox_changed(agent).await;
        Ok(())
    }

    /// The user's message to an agent (typed, or transcribed speech when `voice`). `client_key` makes a
    /// retried send store nothing new.
    pub async fn user_message(
        &self,
        agent: &str,
        text: &str,
        voice: bool,
        client_key: Option<&str>,
    ) -> Result<Message, HubError> {
        check_text(text)?;
        self.live(agent)?;
        let key = client_key.map(|k| format!("user:{agent}:{k}"));
        let m = self
            .append(&NewMessage {
                agent,
                kind: Kind::User,
                sender: "user",
                recipient: Some(agent),
                text,
                parent: None,
                voice,
                idem_key: key.as_deref(),
                at: now(),
            })
            .await?;
        self.announce_pending(agent).await?;
        Ok(m)
    }

    /// `clawmux send`: an agent's message to the user (or a thumbs-up with `re` and no text) or to another
    /// agent. Without a client key, a retry of the same content by the same agent in the same turn (before
    /// it was handed anything new) returns the first message: sends are idempotent.
    pub async fn send(
        &self,
        from: &str,
        to: &str,
        text: Option<&str>,
        re: Option<&str>,
        client_key: Option<&str>,
    ) -> Result<Message, HubError> {
        let sender = self.inner.store.agent(from).await?;
        let parent = re
            .map(|r| MsgId::parse(r).map_err(|e| HubError::new(Code::BadMessageId, e.to_string())))
            .transpose()?;
        let text = text.unwrap_or_default();
        let (agent, kind, recipient) = if to == "user" {
            match (text.trim().is_empty(), &parent) {
                (true, Some(_)) => (from, Kind::Ack, "user"),
                (true, None) => {
                    return Err(HubError::new(
                        Code::EmptyMessage,
                        "nothing to send: give a message, or --re ID for a thumbs-up",
                    ))
                }
                (false, _) => (from, Kind::Assistant, "user"),
            }
        } else {
            self.live(to)?;
            (to, Kind::Agent, to)
        };
        if kind != Kind::Ack {
            check_text(text)?;
        }
        let key = match client_key {
            Some(k) => format!("send:{from}:{k}"),
            None => {
                let mut h = Sha256::new();
                for part in [to, re.unwrap_or_default(), text] {
                    h.update(part.len().to_le_bytes());
                    h.update(part.as_bytes());
                }
                let digest: String = h
                    .finalize()
                    .iter()
                    .take(16)
                    .map(|b| format!("{b:02x}"))
                    .collect();
                format!("send:{from}:turn{}:{digest}", sender.inbox_cursor)
            }
        };
        let m = self
            .append(&NewMessage {
                agent,
                kind,
                sender: from,
                recipient: Some(recipient),
                text,
                parent: parent.as_ref(),
                voice: false,
                idem_key: Some(&key),
                at: now(),
            })
            .await?;
        if kind == Kind::Agent {
            self.announce_pending(to).await?;
        }
        Ok(m)
    }

    /// Marks `agent`'s conversation read up to message `up_to`.
    pub async fn mark_read(&self, agent: &str, up_to: &MsgId) -> Result<(), HubError> {
        let m = self
            .inner
            .store
            .message(up_to)
            .await?
            .filter(|m| m.agent == agent)
            .ok_or_else(|| {
                HubError::new(
                    Code::UnknownCursor,
                    format!("no message {up_to} in {agent}"),
                )
            })?;
        self.inner.store.mark_read(agent, m.seq).await?;
        Ok(())
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
}

fn check_text(text: &str) -> Result<(), HubError> {
    if text.trim().is_empty() {
        return Err(HubError::new(Code::EmptyMessage, "the message is empty"));
    }
    if text.len() > MAX_TEXT {
        return Err(HubError::new(
            Code::MessageTooLarge,
            format!("a message may be at most {MAX_TEXT} bytes"),
        ));
    }
    Ok(())
}
