//! Agents' worktrees as clients read them: where one came from, what it holds, what it changed, the
//! repository a folder is in, and a merge's result.

use std::path::PathBuf;

use clawmux_core::changes::{Changes, MergeMode};
use serde::{Deserialize, Serialize};

/// Where an agent's worktree came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorktreeSpec {
    /// The top folder of the checkout the agent was started from.
    pub repo: PathBuf,
    /// The agent's own branch.
    pub branch: String,
    /// The base as the user named it (a branch, a tag, a commit).
    pub base: String,
    /// The commit the base named when the worktree was made: the fork point if the base goes away.
    pub base_commit: String,
}

/// A worktree as `clawmux worktree list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Held {
    /// Whether its folder is still there.
    pub exists: bool,
    /// Files changed or new and not committed (ClawMux's own aside).
    pub uncommitted: Vec<String>,
    /// Commits on the agent's branch that no other branch, tag or remote branch has.
    pub unmerged: u32,
    /// Bytes its files take on disk (git's shared objects aside).
    pub disk_bytes: u64,
}

impl Held {
    /// Whether removing it would lose work.
    pub fn unsaved(&self) -> bool {
        !self.uncommitted.is_empty() || self.unmerged > 0
    }
}

/// A merge done.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Merged {
    /// The branch that moved.
    pub base: String,
    /// Its commit now.
    pub commit: String,
    /// How.
    pub mode: MergeMode,
}

/// An agent's changes and the diff of each file the panel shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ChangesReply {
    /// The agent.
    pub session_id: String,
    /// Its commits and changed files.
    #[serde(flatten)]
    pub changes: Changes,
    /// The unified diff of each shown file, by path.
    pub patches: std::collections::BTreeMap<String, String>,
    /// What a merge's message is prefilled with: the agent's own summary of its work and its commits.
    pub message: String,
}

/// The repository a folder is in, as the new-agent form offers a worktree in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Repository {
    /// Its top folder.
    pub top: PathBuf,
    /// The branch checked out there (the default base); none for a detached HEAD.
    pub branch: Option<String>,
    /// The agents that work in it already, in its checkout or a worktree of it.
    pub agents: Vec<String>,
}

/// An agent's worktree in `clawmux worktree list`: where it came from, where it is, what it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Listed {
    /// The agent.
    pub session_id: String,
    /// Its folder.
    pub path: PathBuf,
    /// Its repository, branch and base.
    #[serde(flatten)]
    pub spec: WorktreeSpec,
    /// Whether the agent runs in it now.
    pub running: bool,
    /// What it holds.
    #[serde(flatten)]
    pub held: Held,
}
