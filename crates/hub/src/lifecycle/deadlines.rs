//! The supervisor's deadlines, as a pure function of the agent's pulse, what the supervisor did so far, and
//! the time: when to report a slow start, when to remind an agent that fell out of its loop, and when to
//! stop reminding and tell the user. `supervise.rs` sleeps until [`Deadlines::next`] and acts on what
//! [`Deadlines::fire`] says; the rules are tested here without a clock.

use std::time::Duration;

use clawmux_core::State;
use tokio::time::Instant;

use super::pulse::Pulse;

/// The limits, from the hub's options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    /// How long an agent may take to reach its first `clawmux wait`.
    pub(crate) start_timeout: Duration,
    /// Silence after which a working agent with no tool running is reminded.
    pub(crate) nudge_quiet: Duration,
    /// The same, right after the user interrupted it (it most likely sits at its prompt).
    pub(crate) nudge_after_interrupt: Duration,
    /// Reminders before the user is told instead.
    pub(crate) nudge_max: u32,
}

/// What is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Due {
    /// The agent did not reach its first wait in time.
    SlowStart,
    /// Remind the agent (the n-th time).
    Nudge(u32),
    /// Reminders did not help: tell the user.
    GiveUp,
}

/// What the supervisor did so far for one run of an agent.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadlines {
    limits: Limits,
    started: Instant,
    start_reported: bool,
    nudges: u32,
    last_nudge: Option<Instant>,
    gave_up: bool,
    /// The pulse's `rests` when the reminders last started over.
    rests: u64,
}

impl Deadlines {
    /// A run that started at `started`.
    pub(crate) fn new(limits: Limits, started: Instant) -> Deadlines {
        Deadlines {
            limits,
            started,
            start_reported: false,
            nudges: 0,
            last_nudge: None,
            gave_up: false,
            rests: 0,
        }
    }

    /// Takes in the agent's latest pulse: out of PROCESSING, or back from a rest the supervisor did not
    /// see, the reminders start over.
    pub(crate) fn saw(&mut self, p: &Pulse) {
        if p.state != State::Processing || p.rests != self.rests {
            self.rests = p.rests;
            self.nudges = 0;
            self.last_nudge = None;
            self.gave_up = false;
        }
    }

    /// When something is next due for an agent whose pulse is `p`, if anything is.
    pub(crate) fn next(&self, p: &Pulse) -> Option<Instant> {
        match p.state {
            State::Starting if !self.start_reported => {
                Some(self.started + self.limits.start_timeout)
            }
            State::Processing if !p.tool_running && !p.needs_user && !self.gave_up => {
                let quiet = if p.interrupted {
                    self.limits.nudge_after_interrupt
                } else {
                    self.limits.nudge_quiet
                };
                Some(self.last_nudge.map_or(p.last, |n| n.max(p.last)) + quiet)
            }
            State::Starting | State::Processing | State::Idle | State::Compacting | State::Dead => {
                None
            }
        }
    }

    /// The deadline of [`Deadlines::next`] passed at `now`: what to do, recorded as done.
    pub(crate) fn fire(&mut self, p: &Pulse, now: Instant) -> Option<Due> {
        match p.state {
            State::Starting => {
                self.start_reported = true;
                Some(Due::SlowStart)
            }
            State::Processing if self.nudges < self.limits.nudge_max => {
                self.nudges += 1;
                self.last_nudge = Some(now);
                Some(Due::Nudge(self.nudges))
            }
            State::Processing => {
                self.gave_up = true;
                Some(Due::GiveUp)
            }
            State::Idle | State::Compacting | State::Dead => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEC: Duration = Duration::from_secs(1);

    fn limits() -> Limits {
        Limits {
            start_timeout: 90 * SEC,
            nudge_quiet: 60 * SEC,
            nudge_after_interrupt: 5 * SEC,
            nudge_max: 3,
        }
    }

    fn pulse(state: State, last: Instant) -> Pulse {
        Pulse {
            state,
            tool_running: false,
            interrupted: false,
            needs_user: false,
            last,
            rests: 0,
        }
    }

    #[test]
    fn a_slow_start_is_reported_once_at_its_timeout() {
        let t0 = Instant::now();
        let mut d = Deadlines::new(limits(), t0);
        let p = pulse(State::Starting, t0);
        assert_eq!(d.next(&p), Some(t0 + 90 * SEC));
        assert_eq!(d.fire(&p, t0 + 90 * SEC), Some(Due::SlowStart));
        assert_eq!(d.next(&p), None, "reported once");
    }

    #[test]
    fn a_silent_agent_is_reminded_three_times_each_after_its_quiet_time_then_the_user_is_told() {
        let t0 = Instant::now();
        let mut d = Deadlines::new(limits(), t0);
        let p = pulse(State::Processing, t0);
        let mut now = t0;
        for n in 1..=3 {
            let at = d.next(&p).unwrap();
            assert_eq!(at, now + 60 * SEC, "reminder {n} after a quiet minute");
            now = at;
            assert_eq!(d.fire(&p, now), Some(Due::Nudge(n)));
        }
        now = d.next(&p).unwrap();
        assert_eq!(d.fire(&p, now), Some(Due::GiveUp));
        assert_eq!(d.next(&p), None, "nothing more once the user was told");
        // Back in its loop, a later silence starts over.
        d.saw(&pulse(State::Idle, now));
        let later = pulse(State::Processing, now + 10 * SEC);
        d.saw(&later);
        assert_eq!(d.next(&later), Some(now + 70 * SEC));
        assert_eq!(d.fire(&later, now + 70 * SEC), Some(Due::Nudge(1)));
    }

    #[test]
    fn expected_silences_have_no_deadline_and_an_interrupt_shortens_it() {
        let t0 = Instant::now();
        let d = Deadlines::new(limits(), t0);
        let mut p = pulse(State::Processing, t0);
        p.tool_running = true;
        assert_eq!(d.next(&p), None, "a long command runs");
        p.tool_running = false;
        p.needs_user = true;
        assert_eq!(d.next(&p), None, "it waits for the user");
        p.needs_user = false;
        p.interrupted = true;
        assert_eq!(d.next(&p), Some(t0 + 5 * SEC));
        for state in [State::Idle, State::Compacting, State::Dead] {
            assert_eq!(d.next(&pulse(state, t0)), None, "{state:?}");
        }
    }

    #[test]
    fn a_sign_of_life_after_a_reminder_moves_the_next_one() {
        let t0 = Instant::now();
        let mut d = Deadlines::new(limits(), t0);
        let p = pulse(State::Processing, t0);
        d.fire(&p, t0 + 60 * SEC);
        let alive = pulse(State::Processing, t0 + 100 * SEC);
        assert_eq!(d.next(&alive), Some(t0 + 160 * SEC));
    }
}
