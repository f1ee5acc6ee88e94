//! The commands of other machines: the list, adding and forgetting one, and a command forwarded to one.

use serde::{Deserialize, Serialize};

use super::Handle;
use crate::error::HubError;
use crate::hub::Hub;
use crate::machines::MachineInfo;

/// The other machines, their links and their agents as last seen.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Machines {}

impl Handle for Machines {
    async fn handle(self, hub: &Hub) -> Result<Vec<MachineInfo>, HubError> {
        Ok(hub.machines().list())
    }
}

/// Adds another machine, reached over the user's ssh, and follows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineAdd {
    /// Its name here.
    pub name: String,
    /// `ssh://[user@]host[:port]`.
    pub url: String,
}

impl Handle for MachineAdd {
    async fn handle(self, hub: &Hub) -> Result<Vec<MachineInfo>, HubError> {
        hub.machines().add(&self.name, &self.url)
    }
}

/// Forgets a machine (its hub and agents go on there).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineRemove {
    /// Its name.
    pub name: String,
}

impl Handle for MachineRemove {
    async fn handle(self, hub: &Hub) -> Result<Vec<MachineInfo>, HubError> {
        hub.machines().remove(&self.name)
    }
}

/// A command of this surface for another machine's hub, forwarded whole; its answer as that hub gave it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnMachine {
    /// The machine.
    pub machine: String,
    /// The command, as it would be sent to that hub.
    pub forward: serde_json::Value,
}

impl Handle for OnMachine {
    async fn handle(self, hub: &Hub) -> Result<serde_json::Value, HubError> {
        hub.machines().forward(&self.machine, &self.forward).await
    }
}
