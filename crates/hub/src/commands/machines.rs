//! The commands of other machines: the list, adding and forgetting one, and a command forwarded to one
//! (read back as the type it is paired with: nothing untyped crosses the link).

use clawmux_api::commands::machines::{MachineAdd, MachineRemove, Machines, OnMachine};
use clawmux_api::commands::Command;

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
        forward(hub.machines(), &self.machine, *self.forward).await
    }
}

/// Forwarding made from the protocol's table: a command runs on the other machine's hub and its answer is
/// read there as the type the command is paired with, as this hub's own would be, before the window has it.
macro_rules! forward {
    ($( $(#[$doc:meta])* $variant:ident($request:ty) -> $reply:ty; )*) => {
        /// Runs `command` on `machine`'s hub: its answer, typed, as the JSON the window reads.
        async fn forward(
            machines: &crate::machines::Machines,
            machine: &str,
            command: Command,
        ) -> Result<serde_json::Value, HubError> {
            match command {
                $( Command::$variant(request) => {
                    super::encode(Box::pin(machines.call(machine, request)).await?)
                } )*
            }
        }
    };
}

clawmux_api::with_commands!(forward);
