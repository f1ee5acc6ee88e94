//! Claude Code's wake-ups (`ScheduleWakeup`) for an agent that waits in `clawmux wait`.
//!
//! Claude Code fires a wake-up only at its prompt ("the harness re-invokes you when the wakeup fires"),
//! and an agent ClawMux runs never reaches it: it waits inside a tool call, its wait. Seen with the real
//! CLI 2.1.330: the wake-up's time passed and nothing came, not even a queued notice. So the hub keeps the
//! time from the tool's answer and, when it is due, ends the wait with the wake-up's prompt, or has the
//! next wait end with it when the agent is working then. A new wake-up replaces the one before, as in
//! Claude Code; `stop` cancels it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::task::AbortHandle;

use crate::agents::Agents;
use crate::tasks::Tasks;
use clawmux_core::sync::Locked;

/// The tool.
pub(crate) const TOOL: &str = "ScheduleWakeup";
/// The delays Claude Code allows, which it clamps a delay to.
const SOONEST: u64 = 60;
const LATEST: u64 = 3600;
/// The longest prompt or reason told.
const SAID_CHARS: usize = 300;

/// What a `ScheduleWakeup` call asked, read from its PostToolUse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Asked {
    /// Wake the model after this long, with this prompt, for this reason.
    At {
        /// When, from now.
        after: Duration,
        /// The prompt to fire.
        prompt: String,
        /// Why that delay.
        reason: String,
    },
    /// Cancel the wake-up.
    Stop,
}

/// Reads a `ScheduleWakeup` call from its PostToolUse payload, at `now`: the time Claude Code says it set
/// (`tool_response.scheduledFor`, as 2.1.330 answers; or "in 99s" in its words), else the delay asked for,
/// clamped as Claude Code clamps it; `None` when it reads as neither.
pub(crate) fn asked(payload: &Value, now: clawmux_core::Millis) -> Option<Asked> {
    let input = payload.get("tool_input")?;
    if input.get("stop").and_then(Value::as_bool) == Some(true) {
        return Some(Asked::Stop);
    }
    let response = payload.get("tool_response");
    let at = response
        .and_then(|r| r.get("scheduledFor"))
        .and_then(Value::as_i64)
        .map(|at| Duration::from_millis(u64::try_from(at.saturating_sub(now.0)).unwrap_or(0)));
    let in_words = || {
        let response = response?;
        let said = response
            .as_str()
            .map_or_else(|| response.to_string(), str::to_owned);
        let (_, rest) = said.split_once("(in ")?;
        let (n, _) = rest.split_once("s)")?;
        n.trim().parse::<u64>().ok().map(Duration::from_secs)
    };
    let asked = || {
        let asked = input.get("delaySeconds")?.as_f64()?;
        // Saturating: a huge or negative delay is clamped like any other.
        let seconds = (asked.max(0.0).min(LATEST as f64) as u64).clamp(SOONEST, LATEST);
        Some(Duration::from_secs(seconds))
    };
    let after = at.or_else(in_words).or_else(asked)?;
    let text = |key: &str| {
        clawmux_core::printable::one_line(
            input.get(key).and_then(Value::as_str).unwrap_or(""),
            SAID_CHARS,
        )
    };
    Some(Asked::At {
        // A wake-up is an hour away at most (and a minute more, to the whole minute Claude Code sets).
        after: after.min(Duration::from_secs(LATEST + 60)),
        prompt: text("prompt"),
        reason: text("reason"),
    })
}

/// The line the wait prints when the wake-up is due.
pub(crate) fn line(prompt: &str, reason: &str) -> String {
    let why = if reason.is_empty() {
        String::new()
    } else {
        format!(" ({reason})")
    };
    format!(
        "[CLAWMUX] The wake-up you scheduled is due{why}. Claude Code fires it only at its prompt, which you never reach inside `clawmux wait`, so here is its prompt: {prompt}. Do it, then run `clawmux wait` again."
    )
}

/// Each agent's wake-up to come.
#[derive(Clone)]
pub(crate) struct Wakeups {
    agents: Agents,
    tasks: Tasks,
    due: Arc<Mutex<HashMap<String, AbortHandle>>>,
}

impl Wakeups {
    /// Wake-ups of `agents`' agents, kept by the hub's `tasks`.
    pub(crate) fn new(agents: Agents, tasks: Tasks) -> Wakeups {
        Wakeups {
            agents,
            tasks,
            due: Arc::default(),
        }
    }

    /// `agent` called `ScheduleWakeup` (its PostToolUse payload).
    pub(crate) fn scheduled(&self, agent: &str, payload: &Value) {
        let Some(asked) = asked(payload, crate::clock::now()) else {
            tracing::debug!(agent, "a ScheduleWakeup that does not read");
            return;
        };
        let mut due = self.due.locked();
        if let Some(earlier) = due.remove(agent) {
            earlier.abort();
        }
        let Asked::At {
            after,
            prompt,
            reason,
        } = asked
        else {
            return;
        };
        let (agents, name) = (self.agents.clone(), agent.to_owned());
        let task = self.tasks.spawn(async move {
            tokio::time::sleep(after).await;
            if let Ok(live) = agents.live(&name) {
                tracing::info!(agent = name, "a wake-up is due");
                live.mail
                    .notice(line(&prompt, &reason), crate::mailbox::Owed::ByHub);
            }
        });
        due.insert(agent.to_owned(), task);
    }
}

#[cfg(test)]
mod tests {
    use clawmux_core::Millis;
    use serde_json::json;

    use super::*;

    #[test]
    fn a_wake_up_is_read_from_what_claude_code_answered_or_what_was_asked() {
        let answered = json!({"tool_name": "ScheduleWakeup",
            "tool_input": {"delaySeconds": 60, "reason": "the build", "prompt": "check\u{1b}[2J the build"},
            "tool_response": "Next wakeup scheduled for 01:07:00 (in 99s). If you owe the user ..."});
        assert_eq!(
            asked(&answered, Millis(0)),
            Some(Asked::At {
                after: Duration::from_secs(99),
                prompt: "check[2J the build".into(),
                reason: "the build".into()
            })
        );
        for (delay, seconds) in [
            (json!(5), 60),
            (json!(120.5), 120),
            (json!(1e12), 3600),
            (json!(-3), 60),
        ] {
            let asked_only = json!({"tool_input": {"delaySeconds": delay, "prompt": "p"}});
            let Some(Asked::At { after, .. }) = asked(&asked_only, Millis(0)) else {
                panic!("{asked_only}");
            };
            assert_eq!(after, Duration::from_secs(seconds), "{asked_only}");
        }
        assert_eq!(
            asked(&json!({"tool_input": {"stop": true}}), Millis(0)),
            Some(Asked::Stop)
        );
        assert_eq!(
            asked(&json!({"tool_input": {"prompt": "no delay"}}), Millis(0)),
            None
        );
        assert_eq!(asked(&json!({}), Millis(0)), None);
        // As 2.1.330 answers: the time it set, to the whole minute.
        let set = json!({"tool_input": {"delaySeconds": 60, "prompt": "p"},
            "tool_response": {"scheduledFor": 1_795_829_580_000_i64, "clampedDelaySeconds": 60, "wasClamped": false}});
        let Some(Asked::At { after, .. }) = asked(&set, Millis(1_795_829_490_000)) else {
            panic!("{set}");
        };
        assert_eq!(after, Duration::from_secs(90));
    }

    /// Due while the agent waits: the wait ends with the prompt. Due while it works: its next wait does.
    /// A wake-up scheduled again replaces the first; `stop` cancels.
    #[tokio::test]
    async fn a_due_wake_up_ends_the_wait_or_the_next_one() {
        let f = crate::states::fixture::fixture().await;
        let wakeups = Wakeups::new(f.states.agents().clone(), Tasks::default());
        let inbox = crate::inbox::Inbox::new(f.states.clone());
        // The delay Claude Code says it set (the real one is a minute at least: a second here).
        let at = |secs: u64, prompt: &str| {
            json!({"tool_input": {"delaySeconds": 60, "prompt": prompt, "reason": "later"},
                   "tool_response": format!("Next wakeup scheduled for 01:07:00 (in {secs}s).")})
        };
        let waiter = inbox.wait_open("sky").await.unwrap();
        wakeups.scheduled("sky", &at(1, "first"));
        wakeups.scheduled("sky", &at(2, "check the build"));
        let line = tokio::time::timeout(Duration::from_secs(20), waiter.notice())
            .await
            .unwrap();
        assert!(
            line.contains("due (later)")
                && line.ends_with(
                    "here is its prompt: check the build. Do it, then run `clawmux wait` again."
                ),
            "{line}"
        );
        waiter.close().await.unwrap();

        // Due while it works: kept for its next wait, which ends with it at once.
        let tasks = Tasks::default();
        let working = Wakeups::new(f.states.agents().clone(), tasks.clone());
        working.scheduled("sky", &at(1, "second"));
        // Its task ends once the wake-up is kept.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        while tasks.running() > 0 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let waiter = inbox.wait_open("sky").await.unwrap();
        let line = tokio::time::timeout(Duration::from_secs(1), waiter.notice())
            .await
            .unwrap();
        assert!(line.contains("second"), "{line}");
        waiter.close().await.unwrap();

        // Cancelled: nothing comes.
        wakeups.scheduled("sky", &at(1, "third"));
        wakeups.scheduled("sky", &json!({"tool_input": {"stop": true}}));
        let waiter = inbox.wait_open("sky").await.unwrap();
        assert!(
            tokio::time::timeout(Duration::from_secs(3), waiter.notice())
                .await
                .is_err()
        );
        waiter.close().await.unwrap();
    }
}
