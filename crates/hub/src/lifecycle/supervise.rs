//! One task per running agent: it notices the process ending (a pidfd, no polling), an agent that does not
//! reach its first `clawmux wait` in time, and an agent that fell out of the loop, and it reminds the
//! latter a bounded number of times before it asks the user. It sleeps until the next of those deadlines
//! or the next event; an agent that is idle or busy with a tool costs nothing.

use clawmux_core::State;
use tokio::time::Instant;

use super::process;
use crate::hub::Hub;

/// Watches agent `name`, whose process is `pid`, until that process ends and its end is recorded.
pub(crate) async fn supervise(hub: Hub, name: String, pid: u32) {
    let Ok(live) = hub.live(&name) else { return };
    let opts = hub.options().clone();
    let mut pulse = live.run.pulse.subscribe();
    let exit = process::exited(pid);
    tokio::pin!(exit);
    let started = Instant::now();
    let mut start_reported = false;
    let mut nudges = 0u32;
    let mut last_nudge: Option<Instant> = None;
    let mut gave_up = false;
    loop {
        let p = *pulse.borrow_and_update();
        if p.state != State::Processing {
            nudges = 0;
            last_nudge = None;
            gave_up = false;
        }
        if p.state == State::Idle {
            hub.set_problem(&name, None);
        }
        let deadline = match p.state {
            State::Starting if !start_reported => Some(started + opts.start_timeout),
            State::Processing if !p.tool_running && !p.needs_user && !gave_up => {
                let quiet = if p.interrupted {
                    opts.nudge_after_interrupt
                } else {
                    opts.nudge_quiet
                };
                Some(last_nudge.map_or(p.last, |n| n.max(p.last)) + quiet)
            }
            State::Starting | State::Processing | State::Idle | State::Compacting | State::Dead => {
                None
            }
        };
        let sleep = async {
            match deadline {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            ended = &mut exit => {
                if let Err(e) = ended {
                    tracing::warn!(agent = %name, error = %e, "cannot watch the agent's process");
                }
                hub.process_ended(&name).await;
                return;
            }
            changed = pulse.changed() => {
                if changed.is_err() {
                    return;
                }
            }
            () = sleep => match p.state {
                State::Starting => {
                    start_reported = true;
                    hub.report_slow_start(&name).await;
                }
                State::Processing if nudges < opts.nudge_max => {
                    nudges += 1;
                    last_nudge = Some(Instant::now());
                    hub.nudge(&name, nudges).await;
                }
                State::Processing => {
                    gave_up = true;
                    hub.report_out_of_loop(&name).await;
                }
                State::Idle | State::Compacting | State::Dead => {}
            },
        }
    }
}
