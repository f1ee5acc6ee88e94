//! The commands of the agents themselves: the list, adding, starting, stopping and steering one, the
//! hub's preferences and what this machine can run.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Every agent as the sidebar shows it. (A struct with no fields, not a unit: serde ignores unknown fields
/// on a unit, and no transport may pass those on.)
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sessions {}

/// Registers an agent (no process), with its work folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AddAgent {
    /// A plain identifier.
    pub name: String,
    /// Absolute; default `<data dir>/agents/<name>`.
    pub work_dir: Option<PathBuf>,
}

/// Ends an agent's processes; its history stays.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Terminate {
    /// The agent.
    pub session_id: String,
}

/// Starts an agent again, resuming its conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Restart {
    /// The agent.
    pub session_id: String,
}

/// Sets the model an agent runs and starts it again with it, its conversation resumed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetModel {
    /// The agent.
    pub session_id: String,
    /// Claude Code's model name or alias (`opus`, `sonnet`, `haiku`); none: its default.
    pub model: Option<String>,
}

/// Sets how hard the agent's model thinks; a running agent starts again with it, its conversation
/// resumed. Refused while it works.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetEffort {
    /// The agent.
    pub session_id: String,
    /// Claude Code's effort level; none: its default.
    pub effort: Option<crate::flags::Effort>,
}

/// The slash commands an agent knows: Claude Code's own offered here, and the user's custom ones.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlashCommands {
    /// The agent.
    pub session_id: String,
}

/// Types a slash command (`/compact`, `/clear`, a custom one, with its arguments) at the agent's prompt,
/// its wait interrupted first. Refused while it works or shows a dialog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Slash {
    /// The agent.
    pub session_id: String,
    /// `/name` and its arguments, one line.
    pub text: String,
}

/// Starts the agents found interrupted at this start (the machine or the hub stopped under them) and not
/// resumed, one every few seconds: `clawmux resume --all`. Answers the agents being resumed, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResumeInterrupted {}

/// The hub's preferences (whether interrupted agents are resumed at start).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Preferences {}

/// Saves the hub's preferences.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetPreferences {
    /// The preferences.
    pub preferences: crate::lifecycle::Preferences,
}

/// Presses Escape in the agent's terminal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Interrupt {
    /// The agent.
    pub session_id: String,
}

/// Whether Claude Code and tmux are installed (the UI offers the demo agent when Claude Code is not).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Capabilities {}

/// What `clawmux doctor` finds on the hub's machine, for the window's "Check this machine".
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Doctor {}

/// Imports the conversations of an original installation found in the data folder: what importing each
/// agent's history did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Import {}
