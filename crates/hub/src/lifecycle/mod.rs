//! Real agents: spawning Claude Code in a tmux session with ClawMux's hooks, keeping it in the loop, and
//! ending it cleanly.
//!
//! Every step that can fail is checked before anything is created (the name, tmux, the `claude` program,
//! the work folder), and what was created is removed again if the start itself fails, so a failed spawn
//! leaves nothing behind. A spawn returns as soon as tmux has started the process; the agent then shows
//! STARTING until its first `clawmux wait` connects. The process is watched by [`supervise`] from start
//! to end; after an app restart the hub finds the tmux sessions again and adopts them ([`Lifecycle::adopt`]).
//!
//! Spawning is here; starting a process (its files, tmux, the supervisor) is in `start.rs`; controlling a
//! running agent in `control.rs`; what happens when one ends or strays in `ended.rs`.

mod control;
mod deadlines;
mod doctor;
mod ended;
mod errands;
pub mod flags;
pub mod instructions;
pub mod launch;
pub mod process;
pub mod pulse;
mod relay;
pub mod resume;
pub(crate) mod running;
pub mod slash;
mod start;
mod supervise;
#[cfg(test)]
mod tests;
pub mod tmux;
pub mod trust;
mod version;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::Arc;
use std::time::Duration;

use clawmux_core::wire::Code;

use crate::clock::now;
use crate::config::Options;
use crate::error::HubError;
use crate::states::States;
use crate::ui_event::{SessionInfo, UiEvent};
use crate::work_dir::cannot_create;
use crate::worktree::repo;
use crate::worktree::spec::WorktreeSpec;
pub use clawmux_api::lifecycle::{Capabilities, SpawnRequest};
pub(crate) use errands::errands;
use launch::Launch;
use tmux::{Tmux, TmuxError};

/// How long an agent has to end on SIGTERM before it is killed.
const END_GRACE: Duration = Duration::from_secs(3);

impl From<TmuxError> for HubError {
    fn from(e: TmuxError) -> HubError {
        match e {
            TmuxError::Missing { .. } => HubError::new(Code::TmuxMissing, e.to_string()),
            TmuxError::Failed { .. } => HubError::new(Code::TmuxFailed, e.to_string()),
        }
    }
}

/// Files a start wrote that did not exist before, removed again if the start fails.
#[derive(Default)]
struct Created(Vec<PathBuf>);

impl Created {
    fn undo(self) {
        for path in self.0.into_iter().rev() {
            let _ = if path.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
        }
    }
}

/// Creates `dir` and its missing parents, noting the first one created.
fn create_dir(dir: &Path, created: &mut Created) -> std::io::Result<()> {
    let mut missing = dir;
    let mut first = None;
    while !missing.exists() {
        first = Some(missing.to_owned());
        match missing.parent() {
            Some(p) => missing = p,
            None => break,
        }
    }
    std::fs::create_dir_all(dir)?;
    if let Some(first) = first {
        created.0.push(first);
    }
    Ok(())
}

/// The agents ClawMux starts: spawning, restarting, interrupting and terminating them, taking over their
/// tmux sessions after a restart of the hub, and what is done when one is slow, strays from its loop or ends.
/// Made once when the hub opens, with the agents' states, tmux, the options and the data folder; a cheap
/// clone, one per agent's supervisor.
#[derive(Clone)]
pub struct Lifecycle {
    states: States,
    tmux: Tmux,
    options: Arc<Options>,
    data_dir: Arc<Path>,
    /// The port the hub serves on (0 until it serves): agents are told it.
    port: Arc<AtomicU16>,
    /// The agents found interrupted at this start and not resumed (`was working` each), for
    /// `clawmux resume --all`.
    interrupted: Arc<std::sync::Mutex<Vec<(String, bool)>>>,
    /// The hub's preferences, read once when it opens and kept as saved.
    preferences: Arc<std::sync::Mutex<resume::Preferences>>,
    /// The agents' supervision, resumes and ends are the hub's tasks.
    tasks: crate::tasks::Tasks,
}

impl Lifecycle {
    /// The agents' lifecycle: their states in `states`, their terminals in `tmux`, started as `options`
    /// say with their files under `data_dir`, told the hub's `port` once it serves.
    pub(crate) fn new(
        states: States,
        tmux: Tmux,
        options: Arc<Options>,
        data_dir: PathBuf,
        port: Arc<AtomicU16>,
        tasks: crate::tasks::Tasks,
    ) -> Lifecycle {
        Lifecycle {
            preferences: Arc::new(std::sync::Mutex::new(resume::load_preferences(&data_dir))),
            states,
            tmux,
            options,
            data_dir: Arc::from(data_dir),
            port,
            interrupted: Arc::default(),
            tasks,
        }
    }

    /// The port the hub serves on; starting agents needs it.
    fn port(&self) -> Result<u16, HubError> {
        match self.port.load(Ordering::SeqCst) {
            0 => Err(HubError::new(
                Code::NotServing,
                "the hub is not serving yet, so agents could not reach it",
            )),
            port => Ok(port),
        }
    }
}

impl Lifecycle {
    /// Whether Claude Code and tmux can be found: the UI offers the demo agent when Claude Code cannot.
    /// How many agents there are `to_import` is the import's to say.
    pub async fn capabilities(&self, to_import: usize) -> Capabilities {
        let claude = launch::resolve_program(&self.options.claude);
        Capabilities {
            claude: claude.map(|p| p.display().to_string()),
            tmux: self.tmux.check().await.is_ok(),
            tmux_socket: self.tmux.socket().display().to_string(),
            to_import,
        }
    }

    /// Starts a new agent in its own tmux session. Returns once the process runs; everything after
    /// arrives as events. Refuses, having created nothing, a bad name, a taken name, a work folder that
    /// cannot be made, a missing Claude Code or a missing tmux.
    pub async fn spawn(&self, req: SpawnRequest) -> Result<SessionInfo, HubError> {
        let name = req.name.as_str();
        let (asked_dir, asked_text) = crate::work_dir::check_new(
            self.states.agents(),
            &self.data_dir,
            name,
            req.work_dir.as_deref(),
        )?;
        self.port()?;
        let program = self.program_for(&req)?;
        self.tmux.check().await?;
        let worktree = self.worktree_for(&req, &asked_dir).await?;
        let (work_dir, work_str) = match &worktree {
            Some((_, path)) => crate::work_dir::resolve(&self.data_dir, name, Some(path))?,
            None => (asked_dir.clone(), asked_text),
        };
        let launch = Launch {
            program,
            args: req.args.clone(),
            model: req.model.clone(),
            effort: None,
            demo: req.demo,
            permission_mode: req.permission_mode,
            worktree: worktree.as_ref().map(|(spec, _)| spec.clone()),
        };
        let mut created = Created::default();
        let started = self
            .spawn_in(name, &req, &work_dir, &work_str, &launch, &mut created)
            .await;
        if started.is_err() {
            created.undo();
            if let Some((spec, path)) = &worktree {
                repo::discard_new(spec, path).await;
            }
        }
        started
    }

    /// A worktree of its own for the agent `req` asks for, made in the repository `folder` is in (nothing
    /// when it asks for none). Its trust follows the repository's: a worktree of a repository Claude Code
    /// was trusted with is trusted; otherwise the user must trust it now.
    async fn worktree_for(
        &self,
        req: &SpawnRequest,
        folder: &Path,
    ) -> Result<Option<(WorktreeSpec, PathBuf)>, HubError> {
        if !req.worktree {
            if let Some(base) = &req.base {
                return Err(HubError::new(
                    Code::BadBase,
                    format!("a base (`{base}`) is for an agent with a worktree of its own"),
                ));
            }
            return Ok(None);
        }
        if req.work_dir.is_none() {
            return Err(HubError::new(
                Code::NotARepository,
                "an agent gets a worktree of a repository: name the repository's folder as its work folder",
            ));
        }
        let top = repo::top_of(folder).await?;
        let config = trust::config_file();
        if !req.demo && !req.trust_folder && !trust::trusted(&config, &top) {
            return Err(HubError::new(
                Code::FolderNotTrusted,
                format!(
                    "Claude Code has not been trusted with {}: trust it to start an agent in a worktree of it",
                    top.display()
                ),
            ));
        }
        let made = repo::create(&self.data_dir, &req.name, folder, req.base.as_deref()).await?;
        Ok(Some(made))
    }

    /// The steps of a spawn after its checks; what they create is noted in `created`, for the caller to
    /// undo if one fails.
    async fn spawn_in(
        &self,
        name: &str,
        req: &SpawnRequest,
        work_dir: &Path,
        work_str: &str,
        launch: &Launch,
        created: &mut Created,
    ) -> Result<SessionInfo, HubError> {
        create_dir(work_dir, created).map_err(|e| cannot_create(work_dir, &e))?;
        if !req.demo {
            self.check_trust(work_dir, req.trust_folder || launch.worktree.is_some())?;
        }
        let launch_json = serde_json::to_string(launch)
            .map_err(|e| HubError::new(Code::Internal, e.to_string()))?;
        let row = self
            .states
            .store()
            .add_launched_agent(name, work_str, Some(&launch_json), now())
            .await?;
        self.states.insert_live(name, work_dir.to_owned());
        if let Err(e) = self
            .start_process(
                name,
                work_dir,
                launch,
                launch::Begin::Fresh(&uuid::Uuid::new_v4().to_string()),
                created,
            )
            .await
        {
            self.states.remove_live(name);
            let _ = self.states.store().forget_new_agent(name).await;
            return Err(e);
        }
        let mut info = SessionInfo::new(&row.name, &row.work_dir, &row.snapshot, 0)
            .with_launch(Some(launch.kind()), None);
        info.branch = launch.worktree.as_ref().map(|w| w.branch.clone());
        self.states.broadcast(UiEvent::SessionSpawned {
            session: info.clone(),
        });
        Ok(info)
    }
}
