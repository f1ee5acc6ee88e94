//! The commands of other machines: the list, adding and forgetting one, and a command forwarded to one.

use serde::{Deserialize, Serialize};

/// The other machines, their links and their agents as last seen.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Machines {}

/// Adds another machine, reached over the user's ssh, and follows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineAdd {
    /// Its name here.
    pub name: String,
    /// `ssh://[user@]host[:port]`.
    pub url: String,
}

/// Forgets a machine (its hub and agents go on there).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineRemove {
    /// Its name.
    pub name: String,
}

/// A command of this surface for another machine's hub, forwarded whole; its answer as that hub gave it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnMachine {
    /// The machine.
    pub machine: String,
    /// The command, as it would be sent to that hub (a command of this surface: one this hub does not
    /// know is refused here, typed at the boundary).
    pub forward: Box<crate::commands::Command>,
}
