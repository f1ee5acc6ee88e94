//! The commands of agents' worktrees: what one changed, the repository a folder is in, the list, removing
//! one and merging its branch.

use std::path::PathBuf;

use clawmux_core::changes::MergeMode;
use serde::{Deserialize, Serialize};

/// What an agent with a worktree of its own changed: its commits and files since its branch left its
/// base, with each shown file's diff (`clawmux diff`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Changes {
    /// The agent.
    pub session_id: String,
}

/// The git repository a folder is in, its checked-out branch and the agents working in it: the new-agent
/// form offers a worktree of its own there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Repository {
    /// The folder.
    pub work_dir: PathBuf,
}

/// Every agent's worktree with what it holds (`clawmux worktree list`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Worktrees {}

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
