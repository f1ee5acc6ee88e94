//! The rule over time for a second opinion: what each side says of an agent, the disagreement under way,
//! and when it has lasted long enough to record (once per episode). Plain state over `Instant`s, with unit
//! tests of its own; the watcher that feeds it is `opinion/mod.rs`.
//!
//! Claude Code speaks of an agent in two ways: its session file, and the status reports an agent in the
//! terminal bridge sends. Once an agent has reported, its reports are Claude Code's view of it (exact and
//! at once, where the file lags); the file still counts for agents that never report (observed sessions,
//! versions before the protocol). The time the reports and ours agree is tallied: the figure that says
//! how far the indicator can be trusted.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clawmux_core::opinion::{disagreement, ClaudeStatus, Opinion, OpinionSource};
use clawmux_core::{Attention, Snapshot, State};
use tokio::time::Instant;

/// A status of Claude Code's, with what it waits for.
type Theirs = (ClaudeStatus, Option<String>);

/// What the two sides say of one agent, and the disagreement under way.
#[derive(Debug, Default)]
struct Sides {
    ours: Option<Snapshot>,
    /// What its session file says.
    file: Option<Theirs>,
    /// What its last status report says.
    reported: Option<Theirs>,
    episode: Option<Episode>,
    /// Since when the reports and ours have said what they say now, while both are known (whether they
    /// agree, and why not, is the episode's).
    tally_since: Option<Instant>,
}

impl Sides {
    /// Claude Code's view: its reports once it has reported, else its file.
    fn theirs(&self) -> Option<(&Theirs, OpinionSource)> {
        match (&self.reported, &self.file) {
            (Some(r), _) => Some((r, OpinionSource::StatusReport)),
            (None, Some(f)) => Some((f, OpinionSource::SessionFile)),
            (None, None) => None,
        }
    }
}

/// How long the status reports and our indicator agreed and disagreed, over every agent, and each
/// disagreement's reason with how often and how long.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    pub(crate) agreed: Duration,
    pub(crate) disagreed: Duration,
    /// Reports heard.
    pub(crate) reports: u64,
    /// Why they disagreed: stretches and their time.
    pub(crate) why: std::collections::BTreeMap<String, (u32, Duration)>,
}

impl Tally {
    /// Adds a stretch of `lasted` that agreed, or disagreed for `why`.
    fn add(&mut self, lasted: Duration, why: Option<&str>) {
        match why {
            None => self.agreed += lasted,
            Some(why) => {
                self.disagreed += lasted;
                self.why.entry(why.to_owned()).or_default().1 += lasted;
            }
        }
    }
}

#[derive(Debug)]
struct Episode {
    id: u64,
    why: String,
    since: Instant,
    recorded: bool,
}

/// A disagreement to look at again when it may have lasted long enough.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Due {
    pub(crate) agent: String,
    pub(crate) episode: u64,
    pub(crate) at: Instant,
}

/// The rule over time: a disagreement is recorded once it has lasted `after`, once per episode.
#[derive(Debug)]
pub(crate) struct Judge {
    after: Duration,
    agents: HashMap<String, Sides>,
    next: u64,
    /// Finished stretches of the tally (the one under way is added when asked).
    tally: Tally,
}

impl Judge {
    pub(crate) fn new(after: Duration) -> Judge {
        Judge {
            after,
            agents: HashMap::new(),
            next: 1,
            tally: Tally::default(),
        }
    }

    /// The agreement of the reports with ours so far, the stretches under way included.
    pub(crate) fn tally(&self, now: Instant) -> Tally {
        let mut t = self.tally.clone();
        for sides in self.agents.values() {
            if let Some(since) = sides.tally_since {
                let why = sides.episode.as_ref().map(|e| e.why.as_str());
                t.add(now.saturating_duration_since(since), why);
            }
        }
        t
    }

    /// Claude Code's view of `agent` now.
    pub(crate) fn theirs(&self, agent: &str) -> Option<ClaudeStatus> {
        self.agents.get(agent)?.theirs().map(|((s, _), _)| *s)
    }

    /// Whether our side of `agent` is known.
    pub(crate) fn knows_ours(&self, agent: &str) -> bool {
        self.agents.get(agent).is_some_and(|s| s.ours.is_some())
    }

    /// Claude Code's file says `status` now.
    pub(crate) fn their_view(
        &mut self,
        agent: &str,
        status: ClaudeStatus,
        waiting_for: Option<String>,
        now: Instant,
    ) -> Option<Due> {
        self.agents.entry(agent.to_owned()).or_default().file = Some((status, waiting_for));
        self.judge(agent, now)
    }

    /// The agent's status report says `status` now.
    pub(crate) fn reported(
        &mut self,
        agent: &str,
        status: ClaudeStatus,
        waiting_for: Option<String>,
        now: Instant,
    ) -> Option<Due> {
        self.tally.reports += 1;
        self.agents.entry(agent.to_owned()).or_default().reported = Some((status, waiting_for));
        self.judge(agent, now)
    }

    /// Our indicator shows `ours` now.
    pub(crate) fn our_view(&mut self, agent: &str, ours: Snapshot, now: Instant) -> Option<Due> {
        self.agents.entry(agent.to_owned()).or_default().ours = Some(ours);
        self.judge(agent, now)
    }

    /// Our indicator moved: its state and "needs you" now. Nothing to do until Claude Code has said
    /// something of the agent (its first word brings our whole snapshot, `our_view`).
    pub(crate) fn our_status(
        &mut self,
        agent: &str,
        state: State,
        attention: Option<Attention>,
        now: Instant,
    ) -> Option<Due> {
        let ours = self.agents.get_mut(agent)?.ours.as_mut()?;
        ours.state = state;
        ours.attention = attention;
        self.judge(agent, now)
    }

    fn judge(&mut self, agent: &str, now: Instant) -> Option<Due> {
        let sides = self.agents.get_mut(agent)?;
        let why = match (&sides.ours, sides.theirs()) {
            (Some(ours), Some(((theirs, _), from))) => {
                disagreement(ours, *theirs).map(|why| format!("{why} ({} says so)", from.words()))
            }
            _ => None,
        };
        // The tally: the stretch that ends now is counted under the episode it was in, and the next starts.
        if let Some(since) = sides.tally_since.take() {
            let was = sides.episode.as_ref().map(|e| e.why.as_str());
            self.tally.add(now.saturating_duration_since(since), was);
        }
        if sides.ours.is_some() && sides.reported.is_some() {
            sides.tally_since = Some(now);
        }
        match (why, &sides.episode) {
            (None, _) => {
                sides.episode = None;
                None
            }
            (Some(why), Some(e)) if e.why == why => None,
            (Some(why), _) => {
                // A disagreement is counted once, however often either side speaks while it lasts.
                if sides.tally_since.is_some() {
                    self.tally.why.entry(why.clone()).or_default().0 += 1;
                }
                let id = self.next;
                self.next += 1;
                sides.episode = Some(Episode {
                    id,
                    why,
                    since: now,
                    recorded: false,
                });
                Some(Due {
                    agent: agent.to_owned(),
                    episode: id,
                    at: now + self.after,
                })
            }
        }
    }

    /// The disagreement to record, if episode `due` is still under way, has lasted long enough and was
    /// not recorded yet.
    pub(crate) fn take_due(&mut self, due: &Due, now: Instant) -> Option<Opinion> {
        let sides = self.agents.get_mut(&due.agent)?;
        let ((status, waiting_for), from) = sides.theirs().map(|(t, from)| (t.clone(), from))?;
        let episode = sides.episode.as_mut()?;
        let lasted = now.saturating_duration_since(episode.since);
        if episode.id != due.episode || episode.recorded || lasted < self.after {
            return None;
        }
        episode.recorded = true;
        Some(Opinion {
            status,
            from,
            waiting_for,
            for_ms: u64::try_from(lasted.as_millis()).unwrap_or(u64::MAX),
            why: episode.why.clone(),
        })
    }
}

/// The feature as the hub holds it.
pub(crate) type Opinions = Arc<Mutex<Judge>>;

#[cfg(test)]
mod tests {
    use super::*;
    use clawmux_core::Millis;

    fn snap(state: State) -> Snapshot {
        let mut s = Snapshot::new(Millis(0));
        s.state = state;
        s
    }

    #[test]
    fn a_disagreement_is_recorded_once_after_it_lasted() {
        let t0 = Instant::now();
        let mut j = Judge::new(Duration::from_secs(5));
        assert_eq!(
            j.our_view("sky", snap(State::Idle), t0),
            None,
            "nothing to compare yet"
        );
        let due = j
            .their_view("sky", ClaudeStatus::Idle, None, t0)
            .expect("a spawned agent at its prompt while we say idle");
        assert_eq!(due.at, t0 + Duration::from_secs(5));
        assert_eq!(
            j.take_due(&due, t0 + Duration::from_secs(4)),
            None,
            "too soon"
        );
        let o = j.take_due(&due, t0 + Duration::from_secs(5)).unwrap();
        assert_eq!(o.status, ClaudeStatus::Idle);
        assert_eq!(o.for_ms, 5000);
        assert_eq!(j.take_due(&due, t0 + Duration::from_secs(9)), None, "once");
        // The same disagreement said again is the same episode.
        assert_eq!(
            j.their_view(
                "sky",
                ClaudeStatus::Idle,
                None,
                t0 + Duration::from_secs(10)
            ),
            None
        );
    }

    #[test]
    fn agreement_in_time_records_nothing() {
        let t0 = Instant::now();
        let mut j = Judge::new(Duration::from_secs(5));
        j.our_view("sky", snap(State::Processing), t0);
        let due = j
            .their_view(
                "sky",
                ClaudeStatus::Waiting,
                Some("permission prompt".into()),
                t0,
            )
            .unwrap();
        // Our side catches up: the permission hook arrived.
        let mut needs = snap(State::Processing);
        needs.attention = Some(Attention {
            need: clawmux_core::Need::Permission,
            reason: "Permission: x".into(),
            tool_use_id: None,
            tool_name: None,
            since: Millis(1),
            notice: false,
        });
        assert_eq!(j.our_view("sky", needs, t0 + Duration::from_secs(1)), None);
        assert_eq!(j.take_due(&due, t0 + Duration::from_secs(6)), None);
        // A new disagreement is a new episode.
        let again = j
            .their_view("sky", ClaudeStatus::Busy, None, t0 + Duration::from_secs(7))
            .unwrap();
        assert_ne!(again.episode, due.episode);
        assert_eq!(j.theirs("sky"), Some(ClaudeStatus::Busy));
        // A status alone, of an agent Claude Code said nothing of, is nothing to compare.
        assert_eq!(j.our_status("moon", State::Idle, None, t0), None);
        assert!(!j.knows_ours("moon"));
        // Our side moves to what Claude Code says: the disagreement ends.
        assert_eq!(
            j.our_status("sky", State::Processing, None, t0 + Duration::from_secs(8)),
            None
        );
        assert_eq!(j.take_due(&again, t0 + Duration::from_secs(13)), None);
    }

    #[test]
    fn reports_supersede_the_file_and_are_tallied() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut j = Judge::new(Duration::from_secs(5));
        j.our_view("sky", snap(State::Processing), t0);
        // The file lags (idle), the report is exact (working): the report is Claude Code's view.
        assert!(j.their_view("sky", ClaudeStatus::Idle, None, t0).is_some());
        assert_eq!(j.reported("sky", ClaudeStatus::Busy, None, at(1)), None);
        assert_eq!(j.theirs("sky"), Some(ClaudeStatus::Busy));
        assert_eq!(j.their_view("sky", ClaudeStatus::Idle, None, at(2)), None);
        // A report that disagrees, for long enough, is recorded as the report's.
        let due = j
            .reported("sky", ClaudeStatus::Idle, None, at(4))
            .expect("working while Claude Code says idle");
        // Said again while it lasts: the same disagreement, counted once.
        assert_eq!(j.reported("sky", ClaudeStatus::Idle, None, at(6)), None);
        let o = j.take_due(&due, at(9)).unwrap();
        assert_eq!(o.from, OpinionSource::StatusReport);
        assert!(o.why.contains("its status report says so"), "{}", o.why);
        // 1 s to 4 s agreed, 4 s to 10 s disagreed; three reports heard.
        let t = j.tally(at(10));
        assert_eq!(
            (t.agreed, t.disagreed, t.reports),
            (Duration::from_secs(3), Duration::from_secs(6), 3)
        );
        assert_eq!(
            t.why.values().collect::<Vec<_>>(),
            [&(1, Duration::from_secs(6))],
            "{:?}",
            t.why
        );
        // Working again, as it says: agreement from then on.
        assert_eq!(j.reported("sky", ClaudeStatus::Busy, None, at(10)), None);
        assert_eq!(j.tally(at(12)).agreed, Duration::from_secs(5));
    }
}
