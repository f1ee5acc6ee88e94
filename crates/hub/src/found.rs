//! What a feature sends the hub, one way: events it finds for the state machine (a line of an agent's
//! transcript, Claude Code's own view of a session that disagrees with ours, a held request its hook left),
//! and agents whose status must be told again (a request opened or answered). The feature holds only the
//! sending half; a task of `serve`'s carries them out in the order they came (`States::apply_at`, the status
//! broadcast), so finding needs no hub.

use clawmux_core::{Event, Millis, Source};
use tokio::sync::mpsc;

/// One event found, and what follows its recording.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// The agent it is of.
    pub agent: String,
    /// Who reported it.
    pub source: Source,
    /// The event.
    pub event: Event,
    /// Its payload, kept with it.
    pub payload: Vec<u8>,
    /// When it happened, by its source's clock.
    pub at: Millis,
    /// Once recorded, the agent's status is told again even if the indicator did not move (an open
    /// explanation has something new to show).
    pub tell_status: bool,
}

/// One thing for the hub to do.
#[derive(Debug, Clone, PartialEq)]
pub enum ForHub {
    /// Record an event found.
    Found(Box<Found>),
    /// Tell every client this agent's status as it is now (its open request changed).
    Status(String),
}

/// The sending half: cheap to clone, one per feature that sends.
#[derive(Clone)]
pub struct Finds(mpsc::UnboundedSender<ForHub>);

impl Finds {
    /// The sending half, and the receiving half the hub records from.
    pub fn channel() -> (Finds, mpsc::UnboundedReceiver<ForHub>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Finds(tx), rx)
    }

    /// Hands `found` to the hub. The hub gone, nobody records it, and nobody is left to show it either.
    pub fn send(&self, found: Found) {
        let _ = self.0.send(ForHub::Found(Box::new(found)));
    }

    /// Asks the hub to tell every client `agent`'s status as it is now.
    pub fn tell_status(&self, agent: &str) {
        let _ = self.0.send(ForHub::Status(agent.to_owned()));
    }
}
