//! Another machine as the window lists it.

use clawmux_core::Millis;
use serde::Serialize;

/// A machine as the window lists it.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct MachineInfo {
    /// Its name.
    pub name: String,
    /// Where it is (`ssh://...`).
    pub url: String,
    /// Whether its feed is followed now.
    pub up: bool,
    /// When anything was last heard from it.
    pub last_seen: Option<Millis>,
    /// Why it is not reached, in words that say what to do.
    pub error: Option<String>,
    /// Its agents as last seen (its hub's `session_list`, then kept up to date by its events).
    pub sessions: Vec<crate::session::SessionInfo>,
}
