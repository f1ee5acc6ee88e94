//! The figures' state under their one lock, and the rules that move it: each agent's latest sample and
//! limit, each window's first and last reading of its period, the continuations planned, the answers
//! counted.

use std::collections::HashMap;

use clawmux_core::usage::{
    reached_at, Account, AgentUsage, Limit, LimitView, Limited, Sample, Tokens, Used, Window,
};
use clawmux_core::Millis;
use clawmux_store::UsageDelta;

use super::Recorded;
use crate::usage::resume::{Plan, Resumes};

#[derive(Debug, Clone, Copy)]
pub(super) struct Reading {
    pub(super) first: (Millis, Limit),
    pub(super) last: (Millis, Limit),
}

#[derive(Default)]
pub(super) struct State {
    pub(super) agents: HashMap<String, (Sample, Option<Limited>)>,
    pub(super) windows: HashMap<Window, Reading>,
    pub(super) reported_at: Option<Millis>,
    pub(super) resumes: Resumes,
    /// Each agent's last answer counted from its transcript (`message.id`).
    pub(super) answers: HashMap<String, String>,
}

/// What a status line's payload added since the agent's figures before: its cost (all of it for a new
/// session, which counts from zero). Tokens are the transcript's answers' ([`answer_delta`]).
pub(super) fn cost_delta(before: Option<&Sample>, now: &Sample) -> UsageDelta {
    let cost = now.cost_usd.unwrap_or(0.0);
    let cost = match before {
        Some(b) if !now.is_new_session(b) => (cost - b.cost_usd.unwrap_or(0.0)).max(0.0),
        _ => cost,
    };
    UsageDelta {
        cost,
        input: 0,
        output: 0,
    }
}

/// What one answer of the model added: its tokens.
pub(super) fn answer_delta(used: &Used) -> UsageDelta {
    UsageDelta {
        cost: 0.0,
        input: used.input + used.cache_read + used.cache_write,
        output: used.output,
    }
}

pub(super) fn empty(at: Millis) -> Sample {
    Sample {
        at,
        session: None,
        model: None,
        context: None,
        tokens: Tokens::default(),
        cost_usd: None,
        limits: Vec::new(),
    }
}

impl State {
    pub(super) fn view(&self, agent: &str) -> Option<AgentUsage> {
        self.agents
            .get(agent)
            .map(|(sample, limited)| self.view_of(agent, sample, *limited))
    }

    pub(super) fn view_of(
        &self,
        agent: &str,
        sample: &Sample,
        limited: Option<Limited>,
    ) -> AgentUsage {
        AgentUsage {
            session_id: agent.to_owned(),
            line: sample.line(),
            sample: sample.clone(),
            limited,
            continues: self.resumes.is_on(agent),
        }
    }

    /// Takes in a sample of `agent`'s (see [`Figures::record`]).
    pub(super) fn record(&mut self, agent: &str, mut sample: Sample, gap: Millis) -> Recorded {
        let s = self;
        let before = s.agents.get(agent).map(|(b, _)| b);
        if let Some(b) = before.filter(|b| sample.is_stale(b)) {
            // A refresh that arrived after a later one: nothing moves.
            return Recorded {
                agent: s.view(agent).unwrap_or_else(|| s.view_of(agent, b, None)),
                keep: None,
                account: None,
                held: Vec::new(),
                earlier: Some(b.clone()),
            };
        }
        // The tokens so far are the transcript's answers'.
        let totals = before.map(|b| b.tokens).unwrap_or_default();
        (sample.tokens.input, sample.tokens.output) = (totals.input, totals.output);
        let keep = match before {
            Some(b) if !sample.differs(b) => None,
            _ => Some(cost_delta(before, &sample)),
        };
        s.recorded(agent, sample, keep, gap, true)
    }

    /// Takes in `agent`'s new figures, with what to keep of them in history; `reported` when they are a
    /// status line's report (whose limits are a reading of the account's), not a transcript's answer.
    pub(super) fn recorded(
        &mut self,
        agent: &str,
        sample: Sample,
        keep: Option<UsageDelta>,
        gap: Millis,
        reported: bool,
    ) -> Recorded {
        let s = self;
        let account_moved = reported && s.limits(&sample);
        let at = sample.at;
        let limited = s.agents.get(agent).and_then(|(_, l)| *l);
        let earlier = s
            .agents
            .insert(agent.to_owned(), (sample.clone(), limited))
            .map(|(e, _)| e);
        // The limit's figures often come just after Claude Code said it stopped: the reset is known now.
        let mut held = Vec::new();
        if account_moved {
            let free = s.free_at().filter(|t| *t > at);
            let moved: Vec<(String, Millis)> = s
                .agents
                .iter()
                .filter_map(|(a, (_, l))| {
                    l.filter(|l| l.until != free).map(|l| (a.clone(), l.since))
                })
                .collect();
            for (a, since) in moved {
                let plan = s.hold(&a, since, free, gap);
                if let Some(v) = s.view(&a) {
                    held.push((v, plan));
                }
            }
        }
        Recorded {
            agent: s
                .view(agent)
                .unwrap_or_else(|| s.view_of(agent, &sample, limited)),
            keep,
            account: account_moved.then(|| s.account()),
            held,
            earlier,
        }
    }

    /// Holds `agent` (already known) until `until`, planning its continuation if it is opted in.
    pub(super) fn hold(
        &mut self,
        agent: &str,
        since: Millis,
        until: Option<Millis>,
        gap: Millis,
    ) -> Option<Plan> {
        let plan = match until {
            Some(u) => self.resumes.plan(agent, u, gap),
            None => {
                self.resumes.drop_plan(agent);
                None
            }
        };
        if let Some((_, limited)) = self.agents.get_mut(agent) {
            *limited = Some(Limited {
                since,
                until,
                continues_at: plan.map(|p| p.at),
            });
        }
        plan
    }

    pub(super) fn account(&self) -> Account {
        let mut limits: Vec<LimitView> = self
            .windows
            .values()
            .map(|r| LimitView {
                limit: r.last.1,
                reached_at: reached_at((r.first.0, &r.first.1), (r.last.0, &r.last.1)),
            })
            .collect();
        limits.sort_by_key(|l| l.limit.window);
        Account {
            limits,
            at: self.reported_at,
        }
    }

    /// Takes in the limits of a sample; whether they moved.
    pub(super) fn limits(&mut self, sample: &Sample) -> bool {
        let mut moved = false;
        for limit in &sample.limits {
            let reading = (sample.at, *limit);
            match self.windows.get_mut(&limit.window) {
                // The same period: the first reading stays, for the pace.
                Some(r) if r.last.1.resets_at == limit.resets_at => {
                    moved |= r.last.1 != *limit;
                    r.last = reading;
                }
                _ => {
                    moved = true;
                    self.windows.insert(
                        limit.window,
                        Reading {
                            first: reading,
                            last: reading,
                        },
                    );
                }
            }
        }
        if !sample.limits.is_empty() {
            self.reported_at = Some(sample.at);
        }
        moved
    }

    /// When the account can be used again: the latest reset of the windows at their limit, else the
    /// soonest reset of any window (Claude Code said the limit was hit, and the figures lag).
    pub(super) fn free_at(&self) -> Option<Millis> {
        let full = self
            .windows
            .values()
            .filter(|r| r.last.1.percent >= 100.0)
            .map(|r| r.last.1.resets_at)
            .max();
        full.or_else(|| self.windows.values().map(|r| r.last.1.resets_at).min())
    }
}
