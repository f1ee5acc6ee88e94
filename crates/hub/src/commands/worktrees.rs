//! The commands of agents' worktrees: what one changed, the repository a folder is in, the list, removing
//! one and merging its branch.

use clawmux_api::commands::worktrees::{Changes, Merge, RemoveWorktree, Repository, Worktrees};

use super::Handle;
use crate::error::HubError;
use crate::hub::Hub;
use crate::worktree::cleanup::Held;
use crate::worktree::merge::Merged;
use crate::worktree::{ChangesReply, Listed};

impl Handle for Changes {
    async fn handle(self, hub: &Hub) -> Result<ChangesReply, HubError> {
        hub.worktrees().changes(&self.session_id).await
    }
}

impl Handle for Repository {
    async fn handle(self, hub: &Hub) -> Result<crate::worktree::Repository, HubError> {
        hub.worktrees().repository(&self.work_dir).await
    }
}

impl Handle for Worktrees {
    async fn handle(self, hub: &Hub) -> Result<Vec<Listed>, HubError> {
        hub.worktrees().list().await
    }
}

impl Handle for RemoveWorktree {
    async fn handle(self, hub: &Hub) -> Result<Held, HubError> {
        hub.worktrees().remove(&self.session_id, self.discard).await
    }
}

impl Handle for Merge {
    async fn handle(self, hub: &Hub) -> Result<Merged, HubError> {
        hub.worktrees()
            .merge(&self.session_id, self.mode, self.message)
            .await
    }
}
