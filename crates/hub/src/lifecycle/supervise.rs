//! One task per running agent: it notices the process ending (a pidfd, no polling), an agent that does not
//! reach its first `clawmux wait` in time, and an agent that fell out of the loop, and it reminds the
//! latter a bounded number of times before it asks the user. It sleeps until the next of those deadlines
//! or the next event; an agent that is idle or busy with a tool costs nothing.

use clawmux_core::State;
use tokio::time::Instant;

use super::deadlines::{Deadlines, Due, Limits};
use super::process;
use crate::hub::Hub;

/// Watches agent `name`, whose process is `pid`, until that process ends and its end is recorded.
pub(crate) async fn supervise(hub: Hub, name: String, pid: u32) {
    let Ok(live) = hub.live(&name) else { return };
    let opts = hub.options().clone();
    let mut pulse = live.run.pulse.subscribe();
    let exit = process::exited(pid);
    tokio::pin!(exit);
    let limits = Limits {
        start_timeout: opts.start_timeout,
        nudge_quiet: opts.nudge_quiet,
        nudge_after_interrupt: opts.nudge_after_interrupt,
        nudge_max: opts.nudge_max,
    };
    let mut deadlines = Deadlines::new(limits, Instant::now());
    loop {
        let p = *pulse.borrow_and_update();
        deadlines.saw(&p);
        if p.state == State::Idle {
            hub.set_problem(&name, None);
        }
        let deadline = deadlines.next(&p);
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
            () = sleep => match deadlines.fire(&p, Instant::now()) {
                Some(Due::SlowStart) => hub.report_slow_start(&name).await,
                Some(Due::Nudge(n)) => hub.nudge(&name, n).await,
                Some(Due::GiveUp) => hub.report_out_of_loop(&name).await,
                None => {}
            },
        }
    }
}
