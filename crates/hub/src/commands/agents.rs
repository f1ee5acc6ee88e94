//! The commands of the agents themselves: the list, adding, starting, stopping and steering one, the
//! hub's preferences and what this machine can run.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{Done, Handle};
use crate::error::HubError;
use crate::hub::Hub;
use crate::lifecycle::SpawnRequest;
use crate::ui_event::SessionInfo;

/// Every agent as the sidebar shows it. (A struct with no fields, not a unit: serde ignores unknown fields
/// on a unit, and no transport may pass those on.)
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sessions {}

impl Handle for Sessions {
    async fn handle(self, hub: &Hub) -> Result<Vec<SessionInfo>, HubError> {
        hub.sessions().await
    }
}

/// Registers an agent (no process), with its work folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AddAgent {
    /// A plain identifier.
    pub name: String,
    /// Absolute; default `<data dir>/agents/<name>`.
    pub work_dir: Option<PathBuf>,
}

impl Handle for AddAgent {
    async fn handle(self, hub: &Hub) -> Result<SessionInfo, HubError> {
        hub.add_agent(&self.name, self.work_dir.as_deref()).await
    }
}

impl Handle for SpawnRequest {
    async fn handle(self, hub: &Hub) -> Result<SessionInfo, HubError> {
        hub.lifecycle().spawn(self).await
    }
}

/// Ends an agent's processes; its history stays.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Terminate {
    /// The agent.
    pub session_id: String,
}

impl Handle for Terminate {
    async fn handle(self, hub: &Hub) -> Result<SessionInfo, HubError> {
        hub.lifecycle().terminate(&self.session_id).await?;
        hub.session(&self.session_id).await
    }
}

/// Starts an agent again, resuming its conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Restart {
    /// The agent.
    pub session_id: String,
}

impl Handle for Restart {
    async fn handle(self, hub: &Hub) -> Result<SessionInfo, HubError> {
        hub.lifecycle().restart(&self.session_id).await?;
        hub.session(&self.session_id).await
    }
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

impl Handle for SetModel {
    async fn handle(self, hub: &Hub) -> Result<SessionInfo, HubError> {
        hub.lifecycle()
            .set_model(&self.session_id, self.model.as_deref())
            .await?;
        hub.session(&self.session_id).await
    }
}

/// Sets how hard the agent's model thinks; a running agent starts again with it, its conversation
/// resumed. Refused while it works.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetEffort {
    /// The agent.
    pub session_id: String,
    /// Claude Code's effort level; none: its default.
    pub effort: Option<crate::lifecycle::flags::Effort>,
}

impl Handle for SetEffort {
    async fn handle(self, hub: &Hub) -> Result<SessionInfo, HubError> {
        hub.lifecycle()
            .set_effort(&self.session_id, self.effort)
            .await?;
        hub.session(&self.session_id).await
    }
}

/// The slash commands an agent knows: Claude Code's own offered here, and the user's custom ones.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlashCommands {
    /// The agent.
    pub session_id: String,
}

impl Handle for SlashCommands {
    async fn handle(
        self,
        hub: &Hub,
    ) -> Result<Vec<crate::lifecycle::slash::SlashCommand>, HubError> {
        hub.lifecycle().slash_commands(&self.session_id).await
    }
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

impl Handle for Slash {
    async fn handle(self, hub: &Hub) -> Result<Done, HubError> {
        hub.lifecycle().slash(&self.session_id, &self.text).await?;
        Ok(Done {})
    }
}

/// Starts the agents found interrupted at this start (the machine or the hub stopped under them) and not
/// resumed, one every few seconds: `clawmux resume --all`. Answers the agents being resumed, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResumeInterrupted {}

impl Handle for ResumeInterrupted {
    async fn handle(self, hub: &Hub) -> Result<Vec<String>, HubError> {
        Ok(hub.lifecycle().resume_interrupted())
    }
}

/// The hub's preferences (whether interrupted agents are resumed at start).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Preferences {}

impl Handle for Preferences {
    async fn handle(self, hub: &Hub) -> Result<crate::lifecycle::resume::Preferences, HubError> {
        Ok(hub.lifecycle().preferences())
    }
}

/// Saves the hub's preferences.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetPreferences {
    /// The preferences.
    pub preferences: crate::lifecycle::resume::Preferences,
}

impl Handle for SetPreferences {
    async fn handle(self, hub: &Hub) -> Result<crate::lifecycle::resume::Preferences, HubError> {
        hub.lifecycle().set_preferences(self.preferences)
    }
}

/// Presses Escape in the agent's terminal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Interrupt {
    /// The agent.
    pub session_id: String,
}

impl Handle for Interrupt {
    async fn handle(self, hub: &Hub) -> Result<Done, HubError> {
        hub.lifecycle().interrupt(&self.session_id).await?;
        Ok(Done {})
    }
}

/// Whether Claude Code and tmux are installed (the UI offers the demo agent when Claude Code is not).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Capabilities {}

impl Handle for Capabilities {
    async fn handle(self, hub: &Hub) -> Result<crate::lifecycle::Capabilities, HubError> {
        Ok(hub
            .lifecycle()
            .capabilities(hub.import().not_imported())
            .await)
    }
}

/// Imports the conversations of an original installation found in the data folder: what importing each
/// agent's history did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Import {}

impl Handle for Import {
    async fn handle(self, hub: &Hub) -> Result<Vec<crate::import::AgentImport>, HubError> {
        Ok(hub.import().original().await)
    }
}
