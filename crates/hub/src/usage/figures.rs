//! The latest figures of each agent and of the account, and the rules that move them: a sample is kept
//! when a figure moved, with what it added since the agent's sample before; the account's limits are the
//! latest any agent reported, with the first reading of each window's current period for its pace; an agent
//! is rate-limited from a `rate_limit` failure until the window at its limit resets or it works again,
//! and, when the user opted it in, planned to continue after the reset (`resume.rs`).
//!
//! The state under the lock and its rules are `state.rs`; here, what reads and records through it.

use std::sync::{Mutex, MutexGuard};

use clawmux_core::usage::{Account, AgentUsage, Limited, Sample, Used};
use clawmux_core::Millis;
use clawmux_store::{Store, StoreError, UsageDelta};

use super::resume::{Due, Plan, Resumes};
use state::{answer_delta, empty, State};

mod state;

/// What recording a sample did.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// The agent's figures now.
    pub agent: AgentUsage,
    /// What to keep in history: `Some` when a figure moved.
    pub keep: Option<UsageDelta>,
    /// The account's limits, when they moved.
    pub account: Option<Account>,
    /// Agents held by the limit whose reset the new figures moved, with their new plans.
    pub held: Vec<(AgentUsage, Option<Plan>)>,
    /// The agent's sample before this one (what a threshold is crossed from).
    pub earlier: Option<Sample>,
}

/// The figures (one per hub).
#[derive(Default)]
pub struct Figures {
    state: Mutex<State>,
    /// Held from a recording until its row is stored (or it is undone): one at a time, so that an undo
    /// never takes back another's figures.
    writing: tokio::sync::Mutex<()>,
}

impl Figures {
    /// Waits for the recordings before to be stored; hold it while recording and storing one.
    pub async fn writing(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.writing.lock().await
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The figures kept before a restart: each agent's latest sample, and who continues after a reset.
    pub async fn restore(store: &Store) -> Result<Figures, StoreError> {
        let figures = Figures::default();
        figures.state().resumes = Resumes::with(store.usage_continues().await?);
        for (agent, json) in store.latest_usage().await? {
            match serde_json::from_str::<Sample>(&json) {
                Ok(sample) => figures.load(&agent, sample),
                Err(e) => tracing::warn!(%agent, error = %e, "a stored usage sample does not read"),
            }
        }
        Ok(figures)
    }

    /// Takes in a stored sample after a restart: nothing to keep again, nothing to tell.
    pub fn load(&self, agent: &str, sample: Sample) {
        let mut s = self.state();
        s.limits(&sample);
        s.agents.insert(agent.to_owned(), (sample, None));
    }

    /// Takes in a sample of `agent`'s; `gap` staggers the continuations a moved reset plans again.
    pub fn record(&self, agent: &str, sample: Sample, gap: Millis) -> Recorded {
        self.state().record(agent, sample, gap)
    }

    /// An answer of the model in `agent`'s transcript, at `at`: its tokens counted once (its lines repeat
    /// its id), whether or not a status line reports the agent. `None` when not counted.
    pub fn answered(&self, agent: &str, used: &Used, at: Millis, gap: Millis) -> Option<Recorded> {
        let mut s = self.state();
        if s.answers.get(agent) == Some(&used.message_id) {
            return None;
        }
        let earlier = s.agents.get(agent).map(|(sample, _)| sample);
        let sample = Sample::with_answer(earlier, used, at);
        s.answers.insert(agent.to_owned(), used.message_id.clone());
        Some(s.recorded(agent, sample, Some(answer_delta(used)), gap, false))
    }

    /// Puts back `agent`'s figures before a recording whose row could not be stored: the figures and the
    /// history move together or not at all. `answer` is the transcript's answer that recording counted.
    pub fn undo(&self, agent: &str, earlier: Option<Sample>, answer: Option<&str>) {
        let mut s = self.state();
        match earlier {
            Some(e) => {
                if let Some((sample, _)) = s.agents.get_mut(agent) {
                    *sample = e;
                }
            }
            None => {
                s.agents.remove(agent);
            }
        }
        if answer.is_some() && s.answers.get(agent).map(String::as_str) == answer {
            s.answers.remove(agent);
        }
    }

    /// Claude Code stopped `agent` at the account's limit (`StopFailure` `rate_limit`), at `now`: held
    /// until the reset, and planned to continue `gap` after the agents before it if it is opted in.
    pub fn limited(&self, agent: &str, now: Millis, gap: Millis) -> (AgentUsage, Option<Plan>) {
        let mut s = self.state();
        let until = s.free_at().filter(|t| *t > now);
        let sample = s
            .agents
            .entry(agent.to_owned())
            .or_insert_with(|| (empty(now), None))
            .0
            .clone();
        let plan = s.hold(agent, now, until, gap);
        let limited = Some(Limited {
            since: now,
            until,
            continues_at: plan.map(|p| p.at),
        });
        (s.view_of(agent, &sample, limited), plan)
    }

    /// `agent` works again: it is no longer held, and nothing will be typed into it. `Some` when that
    /// changed something.
    pub fn working(&self, agent: &str) -> Option<AgentUsage> {
        let mut s = self.state();
        s.resumes.drop_plan(agent);
        let (_, limited) = s.agents.get_mut(agent)?;
        limited.take()?;
        s.view(agent)
    }

    /// Opts `agent` in or out of being continued after a reset, at `now`; a held agent is planned (or not)
    /// now. An agent with no figures yet gets empty ones, so the choice shows.
    pub fn set_continue(
        &self,
        agent: &str,
        on: bool,
        now: Millis,
        gap: Millis,
    ) -> (AgentUsage, Option<Plan>) {
        let mut s = self.state();
        s.resumes.set(agent, on);
        s.agents
            .entry(agent.to_owned())
            .or_insert_with(|| (empty(now), None));
        let plan = match s.agents.get(agent).and_then(|(_, l)| *l) {
            Some(l) => s.hold(agent, l.since, l.until, gap),
            None => None,
        };
        let (sample, limited) = s.agents.get(agent).cloned().unwrap_or((empty(now), None));
        (s.view_of(agent, &sample, limited), plan)
    }

    /// The time of plan `generation` of `agent`'s came at `now`: what to do. A plan of an agent no
    /// longer held is nothing.
    pub fn due(&self, agent: &str, generation: u64, now: Millis) -> Due {
        let mut s = self.state();
        let held = s.agents.get(agent).is_some_and(|(_, l)| l.is_some());
        if !held {
            s.resumes.drop_plan(agent);
            return Due::Nothing;
        }
        let due = s.resumes.due(agent, generation, now);
        if let (Due::Continue(_), Some((_, Some(l)))) = (due, s.agents.get_mut(agent)) {
            l.continues_at = None;
        }
        due
    }

    /// Whether `agent` is held by the limit now.
    pub fn is_limited(&self, agent: &str) -> bool {
        self.state()
            .agents
            .get(agent)
            .is_some_and(|(_, l)| l.is_some())
    }

    /// One agent's figures.
    pub fn agent(&self, agent: &str) -> Option<AgentUsage> {
        self.state().view(agent)
    }

    /// Every agent's figures, by name.
    pub fn agents(&self) -> Vec<AgentUsage> {
        let s = self.state();
        let mut names: Vec<&String> = s.agents.keys().collect();
        names.sort();
        names.into_iter().filter_map(|a| s.view(a)).collect()
    }

    /// The account's limits.
    pub fn account(&self) -> Account {
        self.state().account()
    }

    /// Forgets an agent (removed).
    pub fn forget(&self, agent: &str) {
        let mut s = self.state();
        s.agents.remove(agent);
        s.resumes.forget(agent);
    }
}

#[cfg(test)]
mod tests;
