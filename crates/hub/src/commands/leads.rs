//! The commands of leads: the grants listed, given and taken back by the user. The feature carries them
//! out (`crate::lead`).

use clawmux_api::commands::leads::{Leads, RevokeLead, SetLead};
use clawmux_core::lead::Grant;

use super::Handle;
use crate::error::HubError;
use crate::hub::Hub;

impl Handle for Leads {
    async fn handle(self, hub: &Hub) -> Result<Vec<Grant>, HubError> {
        hub.leads().list().await
    }
}

impl Handle for SetLead {
    async fn handle(self, hub: &Hub) -> Result<Vec<Grant>, HubError> {
        hub.leads()
            .set(&self.lead, &self.members, self.tools.as_deref())
            .await
    }
}

impl Handle for RevokeLead {
    async fn handle(self, hub: &Hub) -> Result<Vec<Grant>, HubError> {
        hub.leads().revoke(&self.lead).await
    }
}
