//! A worktree per agent: several agents in one repository each edit a checkout of their own, on a branch of
//! their own (`clawmux/<agent>`), and the user sees what each changed.
//!
//! Git is the user's own `git` ([`git`]: their config, hooks and signing apply). The worktrees live in the
//! hub's data folder, `<data dir>/worktrees/<agent>` ([`spec::path_of`]). Where an agent's worktree came
//! from is kept with its launch ([`spec::WorktreeSpec`]), so a restart resumes in the same worktree. What
//! git does for a worktree ([`repo`]) needs no hub and is tested on real repositories; the handle here
//! finds an agent's worktree for the router.

pub(crate) mod git;
pub(crate) mod repo;
pub mod spec;

use std::path::PathBuf;

use clawmux_core::changes::Changes;
use clawmux_core::wire::Code;
use serde::Serialize;

use crate::error::HubError;
use crate::hub::Hub;
use crate::lifecycle::launch::Launch;
use spec::WorktreeSpec;

/// An agent's changes and the diff of each file the panel shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangesReply {
    /// The agent.
    pub session_id: String,
    /// Its commits and changed files.
    #[serde(flatten)]
    pub changes: Changes,
    /// The unified diff of each shown file, by path.
    pub patches: std::collections::BTreeMap<String, String>,
}

/// The agents' worktrees, as the hub composes them.
#[derive(Clone, Copy)]
pub struct Worktrees<'h> {
    hub: &'h Hub,
}

impl<'h> Worktrees<'h> {
    /// The feature as `hub` composes it.
    pub fn of(hub: &'h Hub) -> Worktrees<'h> {
        Worktrees { hub }
    }
}

impl Worktrees<'_> {
    /// Agent `agent`'s worktree: where it came from and where it is.
    async fn of_agent(&self, agent: &str) -> Result<(WorktreeSpec, PathBuf), HubError> {
        let row = self.hub.store().agent(agent).await?;
        let spec = row
            .launch
            .as_deref()
            .and_then(|l| serde_json::from_str::<Launch>(l).ok())
            .and_then(|l| l.worktree);
        match spec {
            Some(spec) => Ok((spec, PathBuf::from(row.work_dir))),
            None => Err(HubError::new(
                Code::NoWorktree,
                format!(
                    "`{agent}` has no worktree of its own: it works in {}",
                    row.work_dir
                ),
            )),
        }
    }

    /// Agent `agent`'s changes against the point where its branch left its base.
    pub async fn changes(&self, agent: &str) -> Result<ChangesReply, HubError> {
        let (spec, path) = self.of_agent(agent).await?;
        let scratch = self.hub.data_dir().join("tmp");
        tokio::fs::create_dir_all(&scratch).await.map_err(|e| {
            HubError::new(
                Code::GitFailed,
                format!("cannot create {}: {e}", scratch.display()),
            )
        })?;
        let (changes, patches) = repo::changes(&spec, &path, &scratch).await?;
        Ok(ChangesReply {
            session_id: agent.to_owned(),
            changes,
            patches: patches.into_iter().collect(),
        })
    }
}
