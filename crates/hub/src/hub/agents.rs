//! The hub's agents as the UI lists them, and registering one.

use std::path::{Path, PathBuf};

use clawmux_core::wire::{check_agent_name, Code};

use super::{now, Hub};
use crate::error::HubError;
use crate::lifecycle::launch::Launch;
use crate::ui_event::{Needs, SessionInfo, UiEvent};

impl Hub {
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
        let live = self.live(&row.name).ok();
        let problem = live.as_ref().and_then(|l| l.run.problem().clone());
        let mut info = SessionInfo::new(&row.name, &row.work_dir, &row.snapshot, unread)
            .with_launch(launch.as_ref().map(Launch::kind), problem);
        info.needs = Needs::of(
            row.snapshot.attention.as_ref(),
            live.and_then(|l| l.asks.current()),
        );
        Ok(info)
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
        self.work_dir_for(name, work_dir)
    }

    /// Registers an agent (STARTING, no process) with its work folder, created if missing. The default
    /// folder is `<data dir>/agents/<name>`.
    pub async fn add_agent(
        &self,
        name: &str,
        work_dir: Option<&Path>,
    ) -> Result<SessionInfo, HubError> {
        let (work_dir, work_str) = self.check_new_agent(name, work_dir)?;
        std::fs::create_dir_all(&work_dir).map_err(|e| cannot_create(&work_dir, &e))?;
        let row = self.inner.store.add_agent(name, &work_str, now()).await?;
        self.insert_live(name, work_dir);
        let info = SessionInfo::new(&row.name, &row.work_dir, &row.snapshot, 0);
        self.broadcast(UiEvent::SessionSpawned {
            session: info.clone(),
        });
        Ok(info)
    }
}

/// A work folder that could not be made.
pub(crate) fn cannot_create(dir: &Path, e: &std::io::Error) -> HubError {
    HubError::new(
        Code::BadWorkDir,
        format!("cannot create the work folder {}: {e}", dir.display()),
    )
}
