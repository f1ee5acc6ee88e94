//! Observers of decisions: logging, metrics and a broadcast for the UI.
//!
//! The machine itself only returns decisions; whoever owns an agent hands each one to [`Observers`], which
//! passes it to every subscriber. Observers never fail and never block: a UI that lags behind misses old
//! broadcasts (and resynchronises from the store), it never slows an agent down.

use std::collections::HashMap;

use serde::Serialize;
use tokio::sync::broadcast;

use crate::decision::{Decision, Outcome};
use crate::state::{Snapshot, State};

/// Something that wants to hear about every decision.
pub trait Observer: Send {
    /// Called once per decision, with the snapshot before and after.
    fn observe(&mut self, agent: &str, before: &Snapshot, decision: &Decision, after: &Snapshot);
}

/// The subscribers of one hub, called in subscription order.
#[derive(Default)]
pub struct Observers {
    list: Vec<Box<dyn Observer>>,
}

impl Observers {
    /// Adds an observer.
    pub fn subscribe(&mut self, observer: Box<dyn Observer>) {
        self.list.push(observer);
    }

    /// Hands a decision to every observer.
    pub fn notify(
        &mut self,
        agent: &str,
        before: &Snapshot,
        decision: &Decision,
        after: &Snapshot,
    ) {
        for o in &mut self.list {
            o.observe(agent, before, decision, after);
        }
    }
}

/// Logs every decision through `tracing`: moves at info, the rest at debug.
pub struct LogObserver;

impl Observer for LogObserver {
    fn observe(&mut self, agent: &str, before: &Snapshot, d: &Decision, _after: &Snapshot) {
        match &d.outcome {
            Outcome::Moved => tracing::info!(
                agent,
                from = %d.from,
                to = %d.to,
                trigger = %d.trigger,
                source = d.source.as_str(),
                in_state_ms = d.at.since(before.since),
                "state changed"
            ),
            Outcome::Stayed => {
                tracing::debug!(agent, state = %d.from, trigger = %d.trigger, activity = ?d.activity, "event applied")
            }
            Outcome::Suppressed(reason) => {
                tracing::debug!(agent, state = %d.from, trigger = %d.trigger, %reason, "event suppressed")
            }
        }
    }
}

/// Time spent in each state and transition counts, per agent.
#[derive(Debug, Default, Clone)]
pub struct StateMetrics {
    /// Milliseconds spent in each state, completed stays only.
    pub time_in_state: HashMap<(String, State), u64>,
    /// How often each `(from, to)` transition happened.
    pub transitions: HashMap<(String, State, State), u64>,
    /// How many events were suppressed.
    pub suppressed: HashMap<String, u64>,
}

impl Observer for StateMetrics {
    fn observe(&mut self, agent: &str, before: &Snapshot, d: &Decision, _after: &Snapshot) {
        match &d.outcome {
            Outcome::Moved => {
                *self
                    .time_in_state
                    .entry((agent.to_owned(), d.from))
                    .or_default() += d.at.since(before.since);
                *self
                    .transitions
                    .entry((agent.to_owned(), d.from, d.to))
                    .or_default() += 1;
            }
            Outcome::Stayed => {}
            Outcome::Suppressed(_) => *self.suppressed.entry(agent.to_owned()).or_default() += 1,
        }
    }
}

/// A decision as the UI receives it.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    /// The agent.
    pub agent: String,
    /// The decision.
    pub decision: Decision,
    /// The agent's snapshot after it.
    pub snapshot: Snapshot,
}

/// Broadcasts every decision that changed something visible (state or status_text).
pub struct BroadcastObserver {
    tx: broadcast::Sender<Change>,
}

impl BroadcastObserver {
    /// A broadcaster holding up to `capacity` changes for slow receivers.
    pub fn new(capacity: usize) -> (BroadcastObserver, broadcast::Receiver<Change>) {
        let (tx, rx) = broadcast::channel(capacity.max(1));
        (BroadcastObserver { tx }, rx)
    }

    /// Another receiver.
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.tx.subscribe()
    }
}

impl Observer for BroadcastObserver {
    fn observe(&mut self, agent: &str, _before: &Snapshot, d: &Decision, after: &Snapshot) {
        let visible = match d.outcome {
            Outcome::Moved => true,
            Outcome::Stayed => d.activity.is_some(),
            Outcome::Suppressed(_) => false,
        };
        if visible {
            // No receiver is not an error: nobody is watching.
            let _ = self.tx.send(Change {
                agent: agent.to_owned(),
                decision: d.clone(),
                snapshot: after.clone(),
            });
        }
    }
}
