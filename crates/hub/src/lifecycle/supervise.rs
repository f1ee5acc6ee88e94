//! One task per running agent: it notices the process ending (a pidfd, no polling), an agent that does not
//! reach its first `clawmux wait` in time, and an agent that fell out of the loop, and it reminds the
//! latter a bounded number of times before it asks the user. It sleeps until the next of those deadlines
//! or the next event; an agent that is idle or busy with a tool costs nothing.

use std::future::Future;

use clawmux_core::State;
use tokio::time::Instant;

use super::deadlines::{Deadlines, Due, Limits};
use super::process;
use super::pulse::Pulse;
use crate::lifecycle::Lifecycle;

/// What the supervisor acts on: the lifecycle, in life; a recorder in the tests.
pub(crate) trait Supervised {
    /// The agent is idle: whatever problem it had is over.
    fn idle(&self);
    /// Its process ended (or cannot be watched): record it.
    fn ended(&self) -> impl Future<Output = ()> + Send;
    /// A deadline passed: report a slow start, remind it, or tell the user.
    fn due(&self, due: Due) -> impl Future<Output = ()> + Send;
}

/// The lifecycle, as the supervisor of its agent `name`.
struct Agent {
    lifecycle: Lifecycle,
    name: String,
}

impl Supervised for Agent {
    fn idle(&self) {
        self.lifecycle.states.set_problem(&self.name, None);
    }

    async fn ended(&self) {
        self.lifecycle.process_ended(&self.name).await;
    }

    async fn due(&self, due: Due) {
        match due {
            Due::SlowStart => self.lifecycle.report_slow_start(&self.name).await,
            Due::Nudge(n) => self.lifecycle.nudge(&self.name, n).await,
            Due::GiveUp => self.lifecycle.report_out_of_loop(&self.name).await,
        }
    }
}

/// Watches agent `name`, whose process is `pid`, until that process ends and its end is recorded.
pub(crate) async fn supervise(lifecycle: Lifecycle, name: String, pid: u32) {
    let Ok(live) = lifecycle.states.live(&name) else {
        return;
    };
    let opts = &lifecycle.options;
    let limits = Limits {
        start_timeout: opts.start_timeout,
        nudge_quiet: opts.nudge_quiet,
        nudge_after_interrupt: opts.nudge_after_interrupt,
        nudge_max: opts.nudge_max,
    };
    let pulse = live.run.pulse.subscribe();
    let agent = Agent {
        lifecycle: lifecycle.clone(),
        name: name.clone(),
    };
    let exit = async move {
        if let Err(e) = process::exited(pid).await {
            tracing::warn!(agent = %name, error = %e, "cannot watch the agent's process");
        }
    };
    watch(limits, pulse, exit, &agent).await;
}

/// The supervisor's loop: it sleeps until the next deadline or the next pulse, acts on what is due, and
/// ends once `exit` has (after telling `on`).
pub(crate) async fn watch(
    limits: Limits,
    mut pulse: tokio::sync::watch::Receiver<Pulse>,
    exit: impl Future<Output = ()>,
    on: &impl Supervised,
) {
    tokio::pin!(exit);
    let mut deadlines = Deadlines::new(limits, Instant::now());
    loop {
        let p = *pulse.borrow_and_update();
        deadlines.saw(&p);
        if p.state == State::Idle {
            on.idle();
        }
        let deadline = deadlines.next(&p);
        let sleep = async {
            match deadline {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = &mut exit => {
                on.ended().await;
                return;
            }
            changed = pulse.changed() => {
                if changed.is_err() {
                    return;
                }
            }
            () = sleep => {
                if let Some(due) = deadlines.fire(&p, Instant::now()) {
                    on.due(due).await;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use tokio::sync::{oneshot, watch as channel};

    use super::*;

    const SEC: Duration = Duration::from_secs(1);

    /// What the loop did, and when (seconds of paused time since the start).
    struct Recorder {
        t0: Instant,
        heard: Mutex<Vec<(u64, String)>>,
    }

    impl Recorder {
        fn log(&self, what: String) {
            let at = (Instant::now() - self.t0).as_secs();
            self.heard.lock().unwrap().push((at, what));
        }

        fn heard(&self) -> Vec<(u64, String)> {
            self.heard.lock().unwrap().clone()
        }
    }

    impl Supervised for Recorder {
        fn idle(&self) {}

        async fn ended(&self) {
            self.log("ended".to_owned());
        }

        async fn due(&self, due: Due) {
            self.log(format!("{due:?}"));
        }
    }

    fn pulse(state: State) -> Pulse {
        Pulse::new(state)
    }

    #[tokio::test(start_paused = true)]
    async fn each_deadline_comes_on_time_and_the_process_end_ends_the_watch() {
        let limits = Limits {
            start_timeout: 90 * SEC,
            nudge_quiet: 60 * SEC,
            nudge_after_interrupt: 5 * SEC,
            nudge_max: 2,
        };
        let (pulses, heard) = channel::channel(pulse(State::Starting));
        let (end, ended) = oneshot::channel::<()>();
        let recorder = Arc::new(Recorder {
            t0: Instant::now(),
            heard: Mutex::new(Vec::new()),
        });
        let on = recorder.clone();
        let task = tokio::spawn(async move {
            let exit = async {
                let _ = ended.await;
            };
            watch(limits, heard, exit, &*on).await;
        });
        let at = |s: u64, what: &str| (s, what.to_owned());

        // It does not reach its first wait: the slow start is reported at 90 s, once.
        tokio::time::sleep(100 * SEC).await;
        assert_eq!(recorder.heard(), [at(90, "SlowStart")]);

        // Working and silent from 100 s: reminded at 160 and 220 s, then the user is told at 280 s.
        pulses.send(pulse(State::Processing)).unwrap();
        tokio::time::sleep(300 * SEC).await;
        assert_eq!(
            recorder.heard()[1..],
            [at(160, "Nudge(1)"), at(220, "Nudge(2)"), at(280, "GiveUp")]
        );

        // A tool running is silence that is expected: nothing more comes, however long.
        pulses
            .send(Pulse {
                tool_running: true,
                ..pulse(State::Processing)
            })
            .unwrap();
        tokio::time::sleep(3600 * SEC).await;
        assert_eq!(recorder.heard().len(), 4);

        // It waits (idle), then works again and the user interrupts it: the reminders start over, 5 s
        // after the interrupt instead of 60.
        pulses.send(pulse(State::Idle)).unwrap();
        tokio::time::sleep(SEC).await;
        let interrupted_at = (Instant::now() - recorder.t0).as_secs();
        pulses
            .send(Pulse {
                interrupted: true,
                ..pulse(State::Processing)
            })
            .unwrap();
        tokio::time::sleep(10 * SEC).await;
        assert_eq!(recorder.heard()[4..], [at(interrupted_at + 5, "Nudge(1)")]);

        // Told the user once more, it waits and takes the next message at once: IDLE and back faster than
        // the supervisor looks (the two pulses come together). Its rest still starts the reminders over.
        tokio::time::sleep(3600 * SEC).await;
        assert_eq!(recorder.heard().last().unwrap().1, "GiveUp");
        let resting = pulse(State::Idle);
        let back = Pulse {
            rests: resting.rests + 1,
            ..pulse(State::Processing)
        };
        pulses.send(resting).unwrap();
        pulses.send(back).unwrap();
        let back_at = (Instant::now() - recorder.t0).as_secs();
        tokio::time::sleep(61 * SEC).await;
        assert_eq!(recorder.heard().last(), Some(&at(back_at + 60, "Nudge(1)")));

        // The process ends: the end is recorded and the watch is over.
        end.send(()).unwrap();
        task.await.unwrap();
        assert_eq!(recorder.heard().last().map(|h| h.1.as_str()), Some("ended"));
    }
}
