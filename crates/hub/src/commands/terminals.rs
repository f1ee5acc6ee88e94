//! An agent's terminal for the viewers the transports attach (the terminal WebSocket, the window's
//! `terminal_open`): not a command of the surface, but the same composition of features.

use clawmux_core::wire::{TermSize, TerminalNotice};

use crate::error::HubError;
use crate::hub::Hub;
use crate::terminal::Viewer;

impl Hub {
    /// Attaches a new viewer of `agent`'s terminal at `size`. Refuses, having started nothing, an agent that
    /// does not exist, one ClawMux did not start and one not running.
    pub async fn open_terminal(&self, agent: &str, size: TermSize) -> Result<Viewer, HubError> {
        let launch = self.roster().session(agent).await?.launch;
        self.terminals().open(agent, launch, size).await
    }

    /// What a viewer of `agent` is told once its terminal has closed, with the last screen the hub kept.
    pub async fn terminal_closed(&self, agent: &str) -> TerminalNotice {
        let screen = self
            .live(agent)
            .ok()
            .and_then(|live| live.run.last_screen().clone());
        self.terminals().closed(agent, screen).await
    }
}
