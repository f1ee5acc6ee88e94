//! The agents as the UI lists them (each row joined with what the features know of it: its worktree's
//! overlaps, its usage, its open request), and registering one by hand.

use std::path::{Path, PathBuf};

use crate::clock::now;
use crate::error::HubError;
use crate::lifecycle::launch::Launch;
use crate::states::States;
use crate::ui_event::{Needs, SessionInfo, UiEvent};

/// The agents' rows as clients read them.
#[derive(Clone)]
pub struct Roster {
    states: States,
    worktrees: crate::worktree::Worktrees,
    usage: crate::usage::Usage,
    data_dir: PathBuf,
}

impl Roster {
    /// The rows of `states`' agents, joined with what `worktrees` and `usage` know; a new agent's folder
    /// is by default under `data_dir`.
    pub(crate) fn new(
        states: States,
        worktrees: crate::worktree::Worktrees,
        usage: crate::usage::Usage,
        data_dir: PathBuf,
    ) -> Roster {
        Roster {
            states,
            worktrees,
            usage,
            data_dir,
        }
    }

    /// Every agent as the sidebar shows it.
    pub async fn sessions(&self) -> Result<Vec<SessionInfo>, HubError> {
        let mut out = Vec::new();
        for row in self.states.store().agents().await? {
            out.push(self.info(&row).await?);
        }
        Ok(out)
    }

    /// One agent as the sidebar shows it.
    pub async fn session(&self, agent: &str) -> Result<SessionInfo, HubError> {
        self.info(&self.states.store().agent(agent).await?).await
    }

    async fn info(&self, row: &clawmux_store::AgentRow) -> Result<SessionInfo, HubError> {
        let unread = self.states.store().unread(&row.name).await?;
        let launch = row
            .launch
            .as_deref()
            .and_then(|l| serde_json::from_str::<Launch>(l).ok());
        let live = self.states.live(&row.name).ok();
        let problem = live.as_ref().and_then(|l| l.run.problem().clone());
        let background = live.as_ref().map_or(0, |l| l.background.count());
        let mut info = SessionInfo::new(&row.name, &row.work_dir, &row.snapshot, unread)
            .with_launch(launch.as_ref().map(Launch::kind), problem);
        info.overlaps = self.worktrees.overlaps(&row.name);
        info.usage = self.usage.of_agent(&row.name).map(Box::new);
        info.background = background;
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

    /// Registers an agent (STARTING, no process) with its work folder, created if missing. The default
    /// folder is `<data dir>/agents/<name>`.
    pub async fn add_agent(
        &self,
        name: &str,
        work_dir: Option<&Path>,
    ) -> Result<SessionInfo, HubError> {
        // A good name no agent has, and a usable work folder (given, or the default one).
        let (work_dir, work_str) =
            crate::work_dir::check_new(self.states.agents(), &self.data_dir, name, work_dir)?;
        std::fs::create_dir_all(&work_dir)
            .map_err(|e| crate::work_dir::cannot_create(&work_dir, &e))?;
        let row = self
            .states
            .store()
            .add_agent(name, &work_str, now())
            .await?;
        self.states.insert_live(name, work_dir);
        let info = SessionInfo::new(&row.name, &row.work_dir, &row.snapshot, 0);
        self.states.broadcast(UiEvent::SessionSpawned {
            session: info.clone(),
        });
        Ok(info)
    }
}
