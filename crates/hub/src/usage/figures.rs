//! The latest figures of each agent and of the account, and the rules that move them: a sample is kept
//! when a figure moved, with what it added since the agent's sample before; the account's limits are the
//! latest any agent reported, with the first reading of each window's current period for its pace; an agent
//! is rate-limited from a `rate_limit` failure until the window at its limit resets or it works again,
//! and, when the user opted it in, planned to continue after the reset (`resume.rs`).
//!
//! Long: the figures' state and every rule that moves it, kept under one lock.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use clawmux_core::usage::{
    reached_at, Account, AgentUsage, Limit, LimitView, Limited, Sample, Tokens, Used, Window,
};
use clawmux_core::Millis;
use clawmux_store::{Store, StoreError, UsageDelta};

use super::resume::{Due, Plan, Resumes};

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

#[derive(Debug, Clone, Copy)]
struct Reading {
    first: (Millis, Limit),
    last: (Millis, Limit),
}

#[derive(Default)]
struct State {
    agents: HashMap<String, (Sample, Option<Limited>)>,
    windows: HashMap<Window, Reading>,
    reported_at: Option<Millis>,
    resumes: Resumes,
    /// Each agent's last answer counted from its transcript (`message.id`).
    answers: HashMap<String, String>,
}

/// The figures (one per hub).
#[derive(Default)]
pub struct Figures {
    state: Mutex<State>,
    /// Held from a recording until its row is stored (or it is undone): one at a time, so that an undo
    /// never takes back another's figures.
    writing: tokio::sync::Mutex<()>,
}

/// What a status line's payload added since the agent's figures before: its cost (all of it for a new
/// session, which counts from zero). Tokens are the transcript's answers' ([`answer_delta`]).
fn cost_delta(before: Option<&Sample>, now: &Sample) -> UsageDelta {
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
fn answer_delta(used: &Used) -> UsageDelta {
    UsageDelta {
        cost: 0.0,
        input: used.input + used.cache_read + used.cache_write,
        output: used.output,
    }
}

fn empty(at: Millis) -> Sample {
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
    fn view(&self, agent: &str) -> Option<AgentUsage> {
        self.agents
            .get(agent)
            .map(|(sample, limited)| self.view_of(agent, sample, *limited))
    }

    fn view_of(&self, agent: &str, sample: &Sample, limited: Option<Limited>) -> AgentUsage {
        AgentUsage {
            session_id: agent.to_owned(),
            line: sample.line(),
            sample: sample.clone(),
            limited,
            continues: self.resumes.is_on(agent),
        }
    }

    /// Takes in a sample of `agent`'s (see [`Figures::record`]).
    fn record(&mut self, agent: &str, mut sample: Sample, gap: Millis) -> Recorded {
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
    fn recorded(
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
    fn hold(
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

    fn account(&self) -> Account {
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
    fn limits(&mut self, sample: &Sample) -> bool {
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
    fn free_at(&self) -> Option<Millis> {
        let full = self
            .windows
            .values()
            .filter(|r| r.last.1.percent >= 100.0)
            .map(|r| r.last.1.resets_at)
            .max();
        full.or_else(|| self.windows.values().map(|r| r.last.1.resets_at).min())
    }
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
mod tests {
    use super::*;
    use clawmux_core::usage::{Context, Tokens};

    const HOUR: i64 = 3_600_000;
    const GAP: Millis = Millis(20_000);

    fn sample(at: i64, cost: f64, input: u64, five_hour: Option<(f64, i64)>) -> Sample {
        Sample {
            at: Millis(at),
            session: Some("c1".into()),
            model: Some("Opus 5.5".into()),
            context: Some(Context {
                used: input,
                size: 200_000,
                percent: 10,
            }),
            tokens: Tokens::default(),
            cost_usd: Some(cost),
            limits: five_hour
                .map(|(percent, resets)| Limit {
                    window: Window::FiveHour,
                    percent,
                    resets_at: Millis(resets),
                })
                .into_iter()
                .collect(),
        }
    }

    #[test]
    fn a_sample_is_kept_only_when_a_figure_moved_with_what_it_added() {
        let f = Figures::default();
        let first = f.record("sky", sample(0, 0.5, 1000, None), GAP);
        assert_eq!(
            first.keep,
            Some(UsageDelta {
                cost: 0.5,
                input: 0,
                output: 0
            })
        );
        assert_eq!(first.agent.line, "10% · 1k/200k · $0.50");
        assert_eq!(f.record("sky", sample(5, 0.5, 1000, None), GAP).keep, None);
        let more = f
            .record("sky", sample(9, 0.75, 1500, None), GAP)
            .keep
            .unwrap();
        assert_eq!((more.cost, more.input, more.output), (0.25, 0, 0));
        // A new Claude Code session counts from zero: what it reports is what it added.
        let mut other = sample(12, 0.1, 200, None);
        other.session = Some("c2".into());
        let again = f.record("sky", other, GAP).keep.unwrap();
        assert_eq!(again.cost, 0.1);
        // Another agent's figures are its own.
        assert_eq!(
            f.record("moon", sample(13, 0.2, 200, None), GAP)
                .keep
                .unwrap()
                .cost,
            0.2
        );
        assert_eq!(f.agents().len(), 2);
    }

    #[test]
    fn a_late_older_refresh_moves_nothing() {
        let f = Figures::default();
        f.record("sky", sample(0, 0.0749, 1000, None), GAP);
        f.record("sky", sample(5, 0.674, 2000, None), GAP);
        // The refresh taken before the last one arrives after it.
        let late = f.record("sky", sample(6, 0.0749, 1000, None), GAP);
        assert_eq!(late.keep, None, "nothing added to the history");
        assert_eq!(late.agent.sample.cost_usd, Some(0.674));
        assert_eq!(f.agent("sky").unwrap().sample.cost_usd, Some(0.674));
        assert_eq!(f.agent("sky").unwrap().sample.context.unwrap().used, 2000);
        // The next real refresh adds only what it added.
        let next = f.record("sky", sample(7, 0.7, 2100, None), GAP);
        assert!((next.keep.unwrap().cost - 0.026).abs() < 1e-9);
    }

    #[test]
    fn each_answer_counts_its_tokens_once_beside_the_status_lines_figures() {
        let f = Figures::default();
        let used = |id: &str| Used {
            message_id: id.into(),
            model: Some("claude-opus-5-5".into()),
            input: 1200,
            output: 321,
            cache_read: 45_000,
            cache_write: 300,
        };
        let mut kept = Vec::new();
        for (i, id) in ["m1", "m2", "m3"].into_iter().enumerate() {
            let at = i64::try_from(i).unwrap() * 10;
            kept.extend(f.answered("sky", &used(id), Millis(at), GAP).unwrap().keep);
            // The status line after each answer: its totals are that answer's, and count nothing.
            let mut s = sample(at + 1, 0.1 * (at as f64 + 1.0), 46_500, None);
            (s.tokens.input, s.tokens.output) = (46_500, 321);
            kept.extend(f.record("sky", s, GAP).keep);
        }
        let figures = f.agent("sky").unwrap().sample;
        assert_eq!(
            (figures.tokens.input, figures.tokens.output),
            (139_500, 963)
        );
        assert_eq!(
            figures.model.as_deref(),
            Some("Opus 5.5"),
            "the status line's name"
        );
        let (input, output) = kept
            .iter()
            .fold((0, 0), |(i, o), d| (i + d.input, o + d.output));
        assert_eq!((input, output), (139_500, 963), "the history says the same");
        // An answer is no reading of the account's limits: when they were last reported stays.
        let f = Figures::default();
        f.record("sky", sample(5, 0.1, 1, Some((20.0, HOUR))), GAP);
        f.answered("sky", &used("m9"), Millis(50), GAP);
        assert_eq!(f.account().at, Some(Millis(5)));
    }

    #[test]
    fn an_undone_recording_leaves_the_figures_as_they_were() {
        let f = Figures::default();
        f.record("sky", sample(0, 0.5, 1000, None), GAP);
        let r = f.record("sky", sample(1, 0.9, 1000, None), GAP);
        f.undo("sky", r.earlier, None);
        assert_eq!(f.agent("sky").unwrap().sample.cost_usd, Some(0.5));
        let used = Used {
            message_id: "m1".into(),
            model: None,
            input: 1,
            output: 1,
            cache_read: 0,
            cache_write: 0,
        };
        let r = f.answered("moon", &used, Millis(2), GAP).unwrap();
        f.undo("moon", r.earlier, Some("m1"));
        assert!(f.agent("moon").is_none());
        assert!(
            f.answered("moon", &used, Millis(3), GAP).is_some(),
            "counted again"
        );
    }

    #[test]
    fn the_account_keeps_each_periods_first_reading_for_its_pace() {
        let f = Figures::default();
        let reset = 5 * HOUR;
        assert!(f
            .record("sky", sample(0, 0.0, 1, None), GAP)
            .account
            .is_none());
        let a = f
            .record("sky", sample(0, 0.1, 2, Some((20.0, reset))), GAP)
            .account
            .unwrap();
        assert_eq!(a.limits[0].reached_at, None, "one reading has no pace");
        // Another agent's report of the same account moves the same figures.
        let b = f
            .record("moon", sample(HOUR, 0.1, 2, Some((40.0, reset))), GAP)
            .account
            .unwrap();
        assert_eq!(b.limits[0].limit.percent, 40.0);
        assert_eq!(b.limits[0].reached_at, Some(Millis(4 * HOUR)));
        assert_eq!(b.at, Some(Millis(HOUR)));
        // The same figures again: the account did not move.
        assert!(f
            .record("moon", sample(HOUR + 1, 0.2, 3, Some((40.0, reset))), GAP)
            .account
            .is_none());
        // A new period starts a new pace.
        let c = f
            .record("sky", sample(6 * HOUR, 0.2, 3, Some((5.0, 11 * HOUR))), GAP)
            .account
            .unwrap();
        assert_eq!(c.limits[0].reached_at, None);
    }

    #[test]
    fn rate_limited_until_the_full_window_resets_or_it_works_again() {
        let f = Figures::default();
        let reset = 2 * HOUR;
        f.record("sky", sample(0, 0.1, 1, Some((100.0, reset))), GAP);
        let (held, plan) = f.limited("sky", Millis(HOUR), GAP);
        assert_eq!(
            held.limited,
            Some(Limited {
                since: Millis(HOUR),
                until: Some(Millis(reset)),
                continues_at: None,
            })
        );
        assert_eq!(plan, None, "not opted in");
        assert!(f.is_limited("sky"));
        // A sample meanwhile does not end it: only working again does, once.
        assert!(f
            .record("sky", sample(HOUR + 5, 0.1, 1, Some((100.0, reset))), GAP)
            .agent
            .limited
            .is_some());
        assert!(f.working("sky").is_some_and(|u| u.limited.is_none()));
        assert_eq!(f.working("sky"), None);
        // With no figures of the account's limits, held with no known end; an agent never sampled too.
        let g = Figures::default();
        assert_eq!(
            g.limited("moon", Millis(3), GAP).0.limited,
            Some(Limited {
                since: Millis(3),
                until: None,
                continues_at: None,
            })
        );
    }

    #[test]
    fn an_opted_in_agent_is_planned_after_the_reset_once_the_figures_say_when() {
        let f = Figures::default();
        f.record("sky", sample(0, 0.1, 1, Some((90.0, 2 * HOUR))), GAP);
        f.record("moon", sample(0, 0.1, 1, None), GAP);
        f.set_continue("sky", true, Millis(0), GAP);
        assert!(f.set_continue("moon", true, Millis(0), GAP).0.continues);
        // An agent with no figures yet: the choice shows all the same.
        let star = f.set_continue("star", true, Millis(7), GAP).0;
        assert!(star.continues && star.line.is_empty() && star.limited.is_none());
        assert!(!f.set_continue("star", false, Millis(8), GAP).0.continues);
        // Stopped before the figures show the window full: held until the soonest reset known.
        let (sky, plan) = f.limited("sky", Millis(HOUR), GAP);
        let plan = plan.unwrap();
        assert_eq!(sky.limited.unwrap().continues_at, Some(plan.at));
        assert_eq!(plan.at, Millis(2 * HOUR + 2_000));
        // The figures come: the 7-day window is full and resets later; both held agents move, in turn.
        let (_, moon) = f.limited("moon", Millis(HOUR), GAP);
        assert_eq!(moon.unwrap().at, Millis(2 * HOUR + 22_000));
        let mut full = sample(HOUR + 1, 0.1, 1, Some((90.0, 2 * HOUR)));
        full.limits.push(Limit {
            window: Window::SevenDay,
            percent: 100.0,
            resets_at: Millis(9 * HOUR),
        });
        let moved = f.record("sky", full, GAP).held;
        let mut at: Vec<i64> = moved.iter().map(|(_, p)| p.unwrap().at.0).collect();
        at.sort_unstable();
        assert_eq!(at, [9 * HOUR + 2_000, 9 * HOUR + 22_000]);
        // The old plan is nothing now; the new one is due once, and never before its time.
        assert_eq!(
            f.due("sky", plan.generation, Millis(10 * HOUR)),
            Due::Nothing
        );
        let (_, new) = moved.iter().find(|(u, _)| u.session_id == "sky").unwrap();
        let new = new.unwrap();
        assert_eq!(
            f.due("sky", new.generation, Millis(new.at.0 - 1)),
            Due::Later(new.at)
        );
        assert_eq!(f.due("sky", new.generation, new.at), Due::Continue(new));
        assert_eq!(f.agent("sky").unwrap().limited.unwrap().continues_at, None);
        // Moon works again by itself before its turn: nothing is typed into it.
        let (_, moon) = moved.iter().find(|(u, _)| u.session_id == "moon").unwrap();
        f.working("moon");
        assert_eq!(
            f.due("moon", moon.unwrap().generation, Millis(10 * HOUR)),
            Due::Nothing
        );
    }

    #[test]
    fn held_before_a_restart_whose_reset_passed_meanwhile_is_due_at_once() {
        let f = Figures::default();
        f.load("sky", sample(0, 0.1, 1, Some((100.0, 2 * HOUR))));
        f.set_continue("sky", true, Millis(0), GAP);
        // Held since an hour in; the hub starts again three hours in.
        let (_, plan) = f.limited("sky", Millis(HOUR), GAP);
        let plan = plan.unwrap();
        assert_eq!(plan.at, Millis(2 * HOUR + 2_000));
        assert_eq!(
            f.due("sky", plan.generation, Millis(3 * HOUR)),
            Due::Continue(plan)
        );
    }

    #[test]
    fn the_transcripts_answers_count_once_each() {
        let f = Figures::default();
        let used = |id: &str| Used {
            message_id: id.into(),
            model: None,
            input: 100,
            output: 10,
            cache_read: 0,
            cache_write: 0,
        };
        let one = f.answered("sky", &used("m1"), Millis(1), GAP).unwrap();
        assert_eq!(one.keep.unwrap().input, 100);
        assert!(
            f.answered("sky", &used("m1"), Millis(2), GAP).is_none(),
            "the same answer's next line"
        );
        let two = f.answered("sky", &used("m2"), Millis(3), GAP).unwrap();
        assert_eq!(
            (two.agent.sample.tokens.input, two.keep.unwrap().input),
            (200, 100)
        );
        f.record("sky", sample(4, 0.5, 1000, None), GAP);
        let three = f.answered("sky", &used("m3"), Millis(5), GAP).unwrap();
        assert_eq!(three.agent.sample.tokens.input, 300);
        assert_eq!(f.agent("sky").unwrap().line, "10% · 1k/200k · $0.50");
    }

    #[test]
    fn figures_loaded_after_a_restart_are_not_kept_again() {
        let f = Figures::default();
        f.load("sky", sample(0, 0.5, 1000, Some((30.0, HOUR))));
        assert_eq!(
            f.record("sky", sample(1, 0.5, 1000, Some((30.0, HOUR))), GAP)
                .keep,
            None
        );
        assert_eq!(f.account().limits.len(), 1);
    }
}
