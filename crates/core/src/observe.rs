//! Observers of decisions: logging and metrics.
//!
//! The machine itself only returns decisions; whoever owns an agent hands each one to [`Observers`], which
//! passes it to every subscriber. Observers never fail and never block an agent. (The UI's live feed is
//! the hub's own broadcast, ordered by stored event id, because only the hub knows that order.)

use std::collections::HashMap;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Event, Source};
    use crate::machine::step;
    use crate::time::Millis;

    #[test]
    fn metrics_count_time_in_state_transitions_and_suppressions() {
        let mut metrics = StateMetrics::default();
        let mut s = Snapshot::new(Millis(0));
        for (event, t) in [
            (Event::WaitConnected, 100),
            (Event::WaitConnected, 150),
            (Event::WaitDisconnected, 400),
            (Event::WaitConnected, 1000),
        ] {
            let (next, d) = step(&s, &event, Source::Wait, Millis(t));
            metrics.observe("sky", &s, &d, &next);
            s = next;
        }
        let key = |st| ("sky".to_owned(), st);
        assert_eq!(metrics.time_in_state[&key(State::Starting)], 100);
        assert_eq!(metrics.time_in_state[&key(State::Idle)], 300);
        assert_eq!(metrics.time_in_state[&key(State::Processing)], 600);
        assert_eq!(
            metrics.transitions[&("sky".to_owned(), State::Idle, State::Processing)],
            1
        );
        assert_eq!(metrics.suppressed["sky"], 1);
    }
}
