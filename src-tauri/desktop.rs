//! The desktop app's state, shared by its commands: the hub it runs, the agent the window shows and the
//! push-to-talk recorder. (The terminal panels' viewers are state of their own, `terminals.rs`.)

use std::sync::{Arc, Mutex};

use clawmux_core::wire::Code;
use clawmux_hub::{Hub, HubError};

use crate::recorder::Recorder;

/// The app's state: the hub if it started, or why it did not.
pub struct Desktop {
    /// The running hub.
    pub hub: Result<Hub, String>,
    /// Its port.
    pub port: Option<u16>,
    /// The agent the window shows, when the window has focus (no notification for it).
    pub viewing: Mutex<Option<String>>,
    /// Push-to-talk.
    pub recorder: Arc<Recorder>,
}

impl Desktop {
    /// The hub, or the error every command answers when it did not start.
    pub fn running(&self) -> Result<&Hub, HubError> {
        self.hub
            .as_ref()
            .map_err(|why| HubError::new(Code::HubUnavailable, why.clone()))
    }
}
