//! The agents ClawMux runs, as clients start them: a spawn's request, what this machine can run, the
//! slash commands an agent knows, and the hub's preferences.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::flags;

fn yes() -> bool {
    true
}

/// Where a command comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::EnumIter)]
#[serde(rename_all = "snake_case")]
pub enum SlashSource {
    /// Claude Code's own.
    BuiltIn,
    /// The user's (`~/.claude/commands`).
    User,
    /// The agent's folder's (`.claude/commands`).
    Project,
}

/// A command the palette offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlashCommand {
    /// Its name, without the `/` (`compact`, `review`, `frontend:test`).
    pub name: String,
    /// What it does: Claude Code's words for its own, the file's `description:` or first line for the
    /// user's.
    pub description: String,
    /// Where it comes from.
    pub source: SlashSource,
}

/// The hub's preferences the user sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Preferences {
    /// Agents that were running when the machine or the hub stopped are resumed when it starts again.
    #[serde(default = "yes")]
    pub resume_agents: bool,
}

/// A request to start a new agent.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpawnRequest {
    /// A plain identifier.
    pub name: String,
    /// Absolute; default `<data dir>/agents/<name>`.
    pub work_dir: Option<PathBuf>,
    /// `--model` for Claude Code.
    pub model: Option<String>,
    /// Claude Code's executable (default: the hub's, `claude` on PATH). Only `POST /api/spawn` takes it:
    /// on the command surface `command` is the command's own name, so a `spawn` there never carries one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Extra flags for Claude Code.
    #[serde(default)]
    pub args: Vec<String>,
    /// Run the built-in demo agent instead of Claude Code.
    #[serde(default)]
    pub demo: bool,
    /// Claude Code's permission mode, kept for restarts.
    #[serde(default)]
    pub permission_mode: Option<flags::PermissionMode>,
    /// The user trusts the work folder: recorded for Claude Code before it starts (else a folder it was
    /// never trusted with is refused with `folder_not_trusted`, to be asked).
    #[serde(default)]
    pub trust_folder: bool,
    /// Give the agent a worktree of its own of the repository `work_dir` is in, on a branch
    /// `clawmux/<name>` (see `worktree/`).
    #[serde(default)]
    pub worktree: bool,
    /// The worktree's base: a branch, tag or commit (default: the branch checked out in `work_dir`).
    #[serde(default)]
    pub base: Option<String>,
}

/// What this machine offers: the UI offers the demo agent when Claude Code cannot be found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capabilities {
    /// Claude Code's executable, if found.
    pub claude: Option<String>,
    /// Whether tmux runs.
    pub tmux: bool,
    /// The hub's own tmux server's socket (`tmux -S` to look at the agents by hand).
    pub tmux_socket: String,
    /// Agents of an original installation in the data folder not imported yet: the app offers it.
    pub to_import: usize,
}

impl Default for Preferences {
    fn default() -> Preferences {
        Preferences {
            resume_agents: true,
        }
    }
}
