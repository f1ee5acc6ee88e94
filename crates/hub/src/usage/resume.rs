//! Continuing an agent when the usage limit that stopped it resets: opt-in per agent, and staggered, so
//! that several agents stopped by the same limit do not all start again in the same second (and hit it
//! again together). Pure: the caller hands in the times; `mod.rs` sleeps until a plan is due and types
//! the prompt. Nothing is ever typed into an agent before its plan is due, and a plan ends when the agent
//! works again by itself, is no longer opted in, or is continued.

use std::collections::{HashMap, HashSet};

use clawmux_core::Millis;

/// How long after the reset the first agent continues (the account's clock and ours may differ a little).
pub const AFTER_RESET: Millis = Millis(2_000);

/// A planned continuation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// When the limit resets.
    pub reset: Millis,
    /// When this agent continues (the reset, then its place in the queue).
    pub at: Millis,
    /// Which plan of the agent's this is: a task holding an older one finds it gone.
    pub generation: u64,
}

/// What is due for an agent whose plan's time came.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Due {
    /// Type the prompt that continues it (the plan is spent).
    Continue(Plan),
    /// Not yet: the plan moved to this time.
    Later(Millis),
    /// Nothing: the plan was replaced or dropped.
    Nothing,
}

/// The agents opted in, and the plans made for those held by the limit.
#[derive(Debug, Default)]
pub struct Resumes {
    opted: HashSet<String>,
    plans: HashMap<String, Plan>,
    generations: u64,
}

impl Resumes {
    /// Opted-in agents, as kept before a restart.
    pub fn with(opted: impl IntoIterator<Item = String>) -> Resumes {
        Resumes {
            opted: opted.into_iter().collect(),
            ..Resumes::default()
        }
    }

    /// Whether `agent` continues when the limit resets.
    pub fn is_on(&self, agent: &str) -> bool {
        self.opted.contains(agent)
    }

    /// Opts `agent` in or out; out drops its plan.
    pub fn set(&mut self, agent: &str, on: bool) {
        if on {
            self.opted.insert(agent.to_owned());
        } else {
            self.opted.remove(agent);
            self.plans.remove(agent);
        }
    }

    /// Plans `agent`'s continuation after a limit that resets at `reset`, `gap` after the agent before it
    /// in the queue of that reset; `None` when it is not opted in. Planning again for the same reset keeps
    /// its place.
    pub fn plan(&mut self, agent: &str, reset: Millis, gap: Millis) -> Option<Plan> {
        if !self.is_on(agent) {
            return None;
        }
        if let Some(p) = self.plans.get(agent).filter(|p| p.reset == reset) {
            return Some(*p);
        }
        let first = Millis(reset.0 + AFTER_RESET.0);
        let taken: HashSet<i64> = self
            .plans
            .iter()
            .filter(|(a, p)| a.as_str() != agent && p.reset == reset)
            .map(|(_, p)| p.at.0)
            .collect();
        let at = (0..)
            .map(|n: i64| Millis(first.0 + n * gap.0.max(0)))
            .find(|t| !taken.contains(&t.0))
            .unwrap_or(first);
        self.generations += 1;
        let plan = Plan {
            reset,
            at,
            generation: self.generations,
        };
        self.plans.insert(agent.to_owned(), plan);
        Some(plan)
    }

    /// `agent`'s current plan.
    pub fn planned(&self, agent: &str) -> Option<Plan> {
        self.plans.get(agent).copied()
    }

    /// Drops `agent`'s plan (it works again, or it is gone).
    pub fn drop_plan(&mut self, agent: &str) {
        self.plans.remove(agent);
    }

    /// Forgets `agent` (removed).
    pub fn forget(&mut self, agent: &str) {
        self.set(agent, false);
    }

    /// The time of plan `generation` of `agent`'s came at `now`: what to do.
    pub fn due(&mut self, agent: &str, generation: u64, now: Millis) -> Due {
        match self.plans.get(agent) {
            Some(p) if p.generation == generation && p.at.0 <= now.0 => {
                let plan = *p;
                self.plans.remove(agent);
                Due::Continue(plan)
            }
            Some(p) if p.generation == generation => Due::Later(p.at),
            Some(_) | None => Due::Nothing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAP: Millis = Millis(20_000);

    #[test]
    fn only_an_opted_in_agent_is_planned_and_each_in_its_own_slot() {
        let mut r = Resumes::default();
        assert_eq!(r.plan("sky", Millis(1_000_000), GAP), None);
        for a in ["sky", "moon", "sun"] {
            r.set(a, true);
        }
        let reset = Millis(1_000_000);
        let at = |r: &mut Resumes, a| r.plan(a, reset, GAP).unwrap().at.0;
        assert_eq!(at(&mut r, "sky"), 1_002_000);
        assert_eq!(at(&mut r, "moon"), 1_022_000);
        assert_eq!(at(&mut r, "sun"), 1_042_000);
        // Planning again for the same reset keeps the place; a freed slot is taken by the next.
        assert_eq!(at(&mut r, "moon"), 1_022_000);
        r.drop_plan("sky");
        r.set("star", true);
        assert_eq!(at(&mut r, "star"), 1_002_000);
        // Another reset has its own queue.
        assert_eq!(
            r.plan("sky", Millis(5_000_000), GAP).unwrap().at.0,
            5_002_000
        );
    }

    #[test]
    fn a_plan_is_spent_once_and_never_early() {
        let mut r = Resumes::with(["sky".to_owned()]);
        let p = r.plan("sky", Millis(1_000), GAP).unwrap();
        assert_eq!(
            r.due("sky", p.generation, Millis(2_999)),
            Due::Later(Millis(3_000))
        );
        assert_eq!(r.due("sky", p.generation, Millis(3_000)), Due::Continue(p));
        assert_eq!(r.due("sky", p.generation, Millis(9_000)), Due::Nothing);
    }

    #[test]
    fn a_replaced_or_dropped_plan_does_nothing() {
        let mut r = Resumes::with(["sky".to_owned()]);
        let old = r.plan("sky", Millis(1_000), GAP).unwrap();
        // The figures moved: the reset is later than first thought.
        let new = r.plan("sky", Millis(50_000), GAP).unwrap();
        assert_eq!(r.due("sky", old.generation, Millis(60_000)), Due::Nothing);
        assert_eq!(
            r.due("sky", new.generation, Millis(60_000)),
            Due::Continue(new)
        );
        // Opted out, or working again by itself: nothing is typed.
        let p = r.plan("sky", Millis(70_000), GAP).unwrap();
        r.set("sky", false);
        assert_eq!(r.due("sky", p.generation, Millis(99_000)), Due::Nothing);
        assert!(!r.is_on("sky"));
    }
}
