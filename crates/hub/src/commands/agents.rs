//! The commands of the agents themselves: the list, adding, starting, stopping and steering one, the
//! hub's preferences and what this machine can run.

use clawmux_api::commands::agents::{
    AddAgent, Capabilities, Doctor, Import, Interrupt, Preferences, Restart, ResumeInterrupted,
    Sessions, SetEffort, SetModel, SetPreferences, Slash, SlashCommands, Terminate,
};

use super::{Done, Handle};
use crate::error::HubError;
use crate::hub::Hub;
use crate::lifecycle::SpawnRequest;
use crate::ui_event::SessionInfo;

impl Handle for Sessions {
    async fn handle(self, hub: &Hub) -> Result<Vec<SessionInfo>, HubError> {
        hub.roster().sessions().await
    }
}

impl Handle for AddAgent {
    async fn handle(self, hub: &Hub) -> Result<SessionInfo, HubError> {
        hub.roster()
            .add_agent(&self.name, self.work_dir.as_deref())
            .await
    }
}

impl Handle for SpawnRequest {
    async fn handle(self, hub: &Hub) -> Result<SessionInfo, HubError> {
        hub.lifecycle().spawn(self).await
    }
}

impl Handle for Terminate {
    async fn handle(self, hub: &Hub) -> Result<SessionInfo, HubError> {
        hub.lifecycle().terminate(&self.session_id).await?;
        hub.roster().session(&self.session_id).await
    }
}

impl Handle for Restart {
    async fn handle(self, hub: &Hub) -> Result<SessionInfo, HubError> {
        hub.lifecycle().restart(&self.session_id).await?;
        hub.roster().session(&self.session_id).await
    }
}

impl Handle for SetModel {
    async fn handle(self, hub: &Hub) -> Result<SessionInfo, HubError> {
        hub.lifecycle()
            .set_model(&self.session_id, self.model.as_deref())
            .await?;
        hub.roster().session(&self.session_id).await
    }
}

impl Handle for SetEffort {
    async fn handle(self, hub: &Hub) -> Result<SessionInfo, HubError> {
        hub.lifecycle()
            .set_effort(&self.session_id, self.effort)
            .await?;
        hub.roster().session(&self.session_id).await
    }
}

impl Handle for SlashCommands {
    async fn handle(
        self,
        hub: &Hub,
    ) -> Result<Vec<crate::lifecycle::slash::SlashCommand>, HubError> {
        hub.lifecycle().slash_commands(&self.session_id).await
    }
}

impl Handle for Slash {
    async fn handle(self, hub: &Hub) -> Result<Done, HubError> {
        hub.lifecycle().slash(&self.session_id, &self.text).await?;
        Ok(Done {})
    }
}

impl Handle for ResumeInterrupted {
    async fn handle(self, hub: &Hub) -> Result<Vec<String>, HubError> {
        Ok(hub.lifecycle().resume_interrupted())
    }
}

impl Handle for Preferences {
    async fn handle(self, hub: &Hub) -> Result<crate::lifecycle::resume::Preferences, HubError> {
        Ok(hub.lifecycle().preferences())
    }
}

impl Handle for SetPreferences {
    async fn handle(self, hub: &Hub) -> Result<crate::lifecycle::resume::Preferences, HubError> {
        hub.lifecycle().set_preferences(self.preferences).await
    }
}

impl Handle for Interrupt {
    async fn handle(self, hub: &Hub) -> Result<Done, HubError> {
        hub.lifecycle().interrupt(&self.session_id).await?;
        Ok(Done {})
    }
}

impl Handle for Doctor {
    async fn handle(self, hub: &Hub) -> Result<Vec<clawmux_api::doctor::Check>, HubError> {
        hub.lifecycle().doctor().await
    }
}

impl Handle for Capabilities {
    async fn handle(self, hub: &Hub) -> Result<crate::lifecycle::Capabilities, HubError> {
        Ok(hub
            .lifecycle()
            .capabilities(hub.import().not_imported())
            .await)
    }
}

impl Handle for Import {
    async fn handle(self, hub: &Hub) -> Result<Vec<crate::import::AgentImport>, HubError> {
        Ok(hub.import().original().await)
    }
}
