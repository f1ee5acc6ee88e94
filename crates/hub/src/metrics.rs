//! `GET /metrics`: time in each state and transition counts per agent, in the Prometheus text format.
//!
//! The counts come from core's [`StateMetrics`] observer, which sees every decision the hub applies; they
//! start at zero when the hub starts, as Prometheus counters may. The time of the stay each agent is in
//! now is added when the page is rendered, so the figures are current between transitions.

use std::fmt::Write;
use std::sync::{Arc, Mutex, MutexGuard};

use clawmux_core::observe::{Observer, StateMetrics};
use clawmux_core::{Decision, Snapshot, State};

use clawmux_core::sync::Locked;
use clawmux_core::Millis;
use clawmux_store::AgentRow;

/// The metrics observer, shared between the hub's observers and the `/metrics` page.
#[derive(Clone, Default)]
pub struct SharedMetrics(Arc<Mutex<StateMetrics>>);

impl SharedMetrics {
    fn lock(&self) -> MutexGuard<'_, StateMetrics> {
        self.0.locked()
    }

    /// The metrics page for `agents` at `at`, for a hub started at `started_at`.
    pub fn render(&self, agents: &[AgentRow], at: Millis, started_at: Millis) -> String {
        let m = self.lock().clone();
        let mut out = String::new();
        time_in_state(&mut out, &m, agents, at, started_at);
        transitions(&mut out, &m);
        suppressed(&mut out, &m, agents);
        current_state(&mut out, agents);
        out
    }
}

impl Observer for SharedMetrics {
    fn observe(&mut self, agent: &str, before: &Snapshot, decision: &Decision, after: &Snapshot) {
        self.lock().observe(agent, before, decision, after);
    }
}

const STATES: [State; 5] = [
    State::Starting,
    State::Idle,
    State::Processing,
    State::Compacting,
    State::Dead,
];

/// Quotes a label value (agent names are plain identifiers, but the format is honoured anyway).
fn label(v: &str) -> String {
    v.replace('\\', r"\\")
        .replace('"', "\\\"")
        .replace('\n', r"\n")
}

fn time_in_state(
    out: &mut String,
    m: &StateMetrics,
    agents: &[AgentRow],
    at: Millis,
    started_at: Millis,
) {
    let _ = writeln!(
        out,
        "# HELP clawmux_agent_state_seconds_total Time each agent spent in each state since the hub started.\n\
         # TYPE clawmux_agent_state_seconds_total counter"
    );
    for a in agents {
        for state in STATES {
            let mut ms = m
                .time_in_state
                .get(&(a.name.clone(), state))
                .copied()
                .unwrap_or(0);
            if a.snapshot.state == state {
                ms += at.since(a.snapshot.since.max(started_at));
            }
            let _ = writeln!(
                out,
                "clawmux_agent_state_seconds_total{{agent=\"{}\",state=\"{}\"}} {:.3}",
                label(&a.name),
                state.as_str(),
                ms as f64 / 1000.0
            );
        }
    }
}

fn transitions(out: &mut String, m: &StateMetrics) {
    let _ = writeln!(
        out,
        "# HELP clawmux_agent_transitions_total State changes per agent since the hub started.\n\
         # TYPE clawmux_agent_transitions_total counter"
    );
    let mut transitions: Vec<_> = m.transitions.iter().collect();
    transitions.sort_by_key(|((agent, from, to), _)| (agent.clone(), from.as_str(), to.as_str()));
    for ((agent, from, to), n) in transitions {
        let _ = writeln!(
            out,
            "clawmux_agent_transitions_total{{agent=\"{}\",from=\"{}\",to=\"{}\"}} {n}",
            label(agent),
            from.as_str(),
            to.as_str()
        );
    }
}

fn suppressed(out: &mut String, m: &StateMetrics, agents: &[AgentRow]) {
    let _ = writeln!(
        out,
        "# HELP clawmux_agent_suppressed_events_total Events that changed nothing because a rule refused them.\n\
         # TYPE clawmux_agent_suppressed_events_total counter"
    );
    for a in agents {
        let n = m.suppressed.get(&a.name).copied().unwrap_or(0);
        let _ = writeln!(
            out,
            "clawmux_agent_suppressed_events_total{{agent=\"{}\"}} {n}",
            label(&a.name)
        );
    }
}

/// How long Claude Code's status reports and the indicator agreed and disagreed, over every agent that
/// reports (`crate::opinion`): the share agreeing is how far the indicator can be trusted.
pub(crate) fn status_reports(out: &mut String, t: &crate::opinion::Tally) {
    let _ = writeln!(
        out,
        "# HELP clawmux_status_reports_total Status reports heard from agents (OSC 7501).\n# TYPE clawmux_status_reports_total counter\nclawmux_status_reports_total {}",
        t.reports
    );
    for (name, d) in [("agreed", t.agreed), ("disagreed", t.disagreed)] {
        let _ = writeln!(
            out,
            "# HELP clawmux_status_reports_{name}_seconds Time the status reports and the indicator {name}.\n# TYPE clawmux_status_reports_{name}_seconds counter\nclawmux_status_reports_{name}_seconds {:.3}",
            d.as_secs_f64()
        );
    }
    let _ = writeln!(
        out,
        "# HELP clawmux_status_reports_disagreements Stretches of disagreement, and their seconds, by reason.\n# TYPE clawmux_status_reports_disagreements counter"
    );
    for (why, (n, d)) in &t.why {
        let why = label(why);
        let _ = writeln!(
            out,
            "clawmux_status_reports_disagreements{{why=\"{why}\"}} {n}\nclawmux_status_reports_disagreement_seconds{{why=\"{why}\"}} {:.3}",
            d.as_secs_f64()
        );
    }
}

fn current_state(out: &mut String, agents: &[AgentRow]) {
    let _ = writeln!(
        out,
        "# HELP clawmux_agent_state The state each agent is in now (1).\n\
         # TYPE clawmux_agent_state gauge"
    );
    for a in agents {
        for state in STATES {
            let _ = writeln!(
                out,
                "clawmux_agent_state{{agent=\"{}\",state=\"{}\"}} {}",
                label(&a.name),
                state.as_str(),
                u8::from(a.snapshot.state == state)
            );
        }
    }
}
