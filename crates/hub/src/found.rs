//! Events a feature finds for the state machine, sent one way: a line of an agent's transcript, Claude
//! Code's own view of a session that disagrees with ours. The feature holds only the sending half; a task
//! of `serve`'s records them in the order they were found (`Hub::apply_at`), so finding needs no hub.

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

/// The sending half: cheap to clone, one per feature that finds events.
#[derive(Clone)]
pub struct Finds(mpsc::UnboundedSender<Found>);

impl Finds {
    /// The sending half, and the receiving half the hub records from.
    pub fn channel() -> (Finds, mpsc::UnboundedReceiver<Found>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Finds(tx), rx)
    }

    /// Hands `found` to the hub. The hub gone, nobody records it, and nobody is left to show it either.
    pub fn send(&self, found: Found) {
        let _ = self.0.send(found);
    }
}
