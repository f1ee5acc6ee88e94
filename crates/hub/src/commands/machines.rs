//! The commands of other machines: the list, adding and forgetting one, and a command forwarded to one.

use clawmux_api::commands::machines::{MachineAdd, MachineRemove, Machines, OnMachine};

use super::Handle;
use crate::error::HubError;
use crate::hub::Hub;
use crate::machines::MachineInfo;

impl Handle for Machines {
    async fn handle(self, hub: &Hub) -> Result<Vec<MachineInfo>, HubError> {
        Ok(hub.machines().list())
    }
}

impl Handle for MachineAdd {
    async fn handle(self, hub: &Hub) -> Result<Vec<MachineInfo>, HubError> {
        hub.machines().add(&self.name, &self.url)
    }
}

impl Handle for MachineRemove {
    async fn handle(self, hub: &Hub) -> Result<Vec<MachineInfo>, HubError> {
        hub.machines().remove(&self.name)
    }
}

impl Handle for OnMachine {
    async fn handle(self, hub: &Hub) -> Result<serde_json::Value, HubError> {
        hub.machines().forward(&self.machine, &self.forward).await
    }
}
