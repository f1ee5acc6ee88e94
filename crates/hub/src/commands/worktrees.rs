//! The commands of agents' worktrees: what one changed, the repository a folder is in, the list, removing
//! one and merging its branch.

use std::path::PathBuf;

use clawmux_core::changes::MergeMode;
use serde::{Deserialize, Serialize};

use super::Handle;
use crate::error::HubError;
use crate::hub::Hub;
use crate::worktree::cleanup::Held;
use crate::worktree::merge::Merged;
use crate::worktree::{ChangesReply, Listed};

/// What an agent with a worktree of its own changed: its commits and files since its branch left its
/// base, with each shown file's diff (`clawmux diff`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Changes {
    /// The agent.
    pub session_id: String,
}

impl Handle for Changes {
    async fn handle(self, hub: &Hub) -> Result<ChangesReply, HubError> {
        hub.worktrees().changes(&self.session_id).await
    }
}

/// The git repository a folder is in, its checked-out branch and the agents working in it: the new-agent
/// form offers a worktree of its own there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Repository {
    /// The folder.
    pub work_dir: PathBuf,
}

impl Handle for Repository {
    async fn handle(self, hub: &Hub) -> Result<crate::worktree::Repository, HubError> {
        hub.worktrees().repository(&self.work_dir).await
    }
}

/// Every agent's worktree with what it holds (`clawmux worktree list`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Worktrees {}

impl Handle for Worktrees {
    async fn handle(self, hub: &Hub) -> Result<Vec<Listed>, HubError> {
        hub.worktrees().list().await
    }
}

/// Removes an agent's worktree and branch (`clawmux worktree remove`): refused while the agent runs, and,
/// unless `discard`, when it holds work that is nowhere else. Answers what the worktree held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RemoveWorktree {
    /// The agent.
    pub session_id: String,
    /// Lose what is not committed and the commits no other branch has.
    #[serde(default)]
    pub discard: bool,
}

impl Handle for RemoveWorktree {
    async fn handle(self, hub: &Hub) -> Result<Held, HubError> {
        hub.worktrees().remove(&self.session_id, self.discard).await
    }
}

/// Merges an agent's branch into its base (`clawmux merge`): nothing is written if anything is in the way
/// (a conflict, work not committed, changes in the base's checkout). Answers the base's new commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Merge {
    /// The agent.
    pub session_id: String,
    /// A merge commit (the default), one squashed commit, or the commits rebased onto the base.
    #[serde(default)]
    pub mode: MergeMode,
    /// The commit's message; none or blank: the one `changes` suggests.
    pub message: Option<String>,
}

impl Handle for Merge {
    async fn handle(self, hub: &Hub) -> Result<Merged, HubError> {
        hub.worktrees()
            .merge(&self.session_id, self.mode, self.message)
            .await
    }
}
