//! What each agent costs, how full its context is, and how much of the account's limits is gone.
//!
//! The figures come from Claude Code itself: at each refresh of its status line it hands the status-line
//! command a JSON payload (model, context window, tokens, its cost estimate and, for subscription
//! accounts, the 5-hour and 7-day limit windows). A spawned agent's status-line command is `clawmux
//! statusline` (`bridge.rs` finds the user's own command, which it chains), which posts the payload here
//! (`POST /api/usage` on the private socket) and prints a line within 50 ms whatever happens. No credential
//! of the user's is read: only what Claude Code hands its status line.
//!
//! Each payload is read whole or refused (`clawmux_core::usage`); [`figures::Figures`] keeps the latest
//! figures and decides what moved; a sample that moved a figure is kept in SQLite with what it added, for
//! the per-day history; the window hears `usage` (an agent's figures) and `limits` (the account's).
//! A `StopFailure` of kind `rate_limit` holds the agent as rate-limited until the window at its limit resets
//! or it works again. An agent the user opted in is continued after the reset (`resume.rs` plans when, in
//! turn with the others); nothing is typed into an agent while it is held.

pub mod bridge;
pub mod figures;
pub mod resume;

use clawmux_core::usage::{short, Sample, UsageError, Used};
use clawmux_core::wire::Code;
use clawmux_core::{Millis, Need, State};
use clawmux_store::DayUsage;
use serde::Serialize;

use crate::clock::now;
use crate::error::HubError;
use crate::hub::Hub;
use crate::lifecycle::Lifecycle;
use crate::ui_event::UiEvent;
pub use clawmux_core::usage::{Account, AgentUsage, Limited};
use figures::Recorded;
use resume::{Due, Plan};

/// The most days of history one `usage` command returns.
pub const MAX_DAYS: u32 = 366;

/// `usage`: every agent's figures, the account's limits, and what was used per day and agent.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct UsageReply {
    /// Each agent's latest figures.
    pub agents: Vec<AgentUsage>,
    /// The account's limits.
    pub account: Account,
    /// What each agent used on each day asked for, oldest first.
    pub days: Vec<DayUsage>,
}

/// The usage feature as the hub composes it.
#[derive(Clone, Copy)]
pub struct Usage<'h> {
    hub: &'h Hub,
}

impl<'h> Usage<'h> {
    /// The feature of `hub`.
    pub fn of(hub: &'h Hub) -> Usage<'h> {
        Usage { hub }
    }
}

impl Usage<'_> {
    /// A status-line payload of `agent`'s (`POST /api/usage`): refused whole if any figure is out of range.
    ///
    /// It runs to its end on a task of its own even when the caller goes (the bridge closes its connection
    /// after its wait): the figures and their row in the history move together or not at all.
    pub async fn report(&self, agent: &str, body: &[u8]) -> Result<AgentUsage, HubError> {
        self.hub.live(agent)?;
        let sample = Sample::parse(body, now()).map_err(|e| {
            let code = match e {
                UsageError::NotJson => Code::MalformedJson,
                UsageError::OutOfRange(_) | UsageError::NotStatusLine => Code::MalformedEvent,
            };
            HubError::new(code, e.to_string())
        })?;
        let (hub, agent) = (self.hub.clone(), agent.to_owned());
        tokio::spawn(async move {
            let usage = Usage::of(&hub);
            let _one_at_a_time = hub.figures().writing().await;
            let recorded = hub.figures().record(&agent, sample, usage.gap());
            usage.recorded(&agent, recorded, None).await
        })
        .await
        .map_err(|e| HubError::new(Code::Internal, e.to_string()))?
    }

    /// An answer of `agent`'s model that its transcript shows, at `at`: its tokens count once, whether or
    /// not a status line reports the agent (the status line's totals are the latest response's only).
    pub(crate) async fn answered(&self, agent: &str, used: &Used, at: Millis) {
        let _one_at_a_time = self.hub.figures().writing().await;
        let Some(recorded) = self.hub.figures().answered(agent, used, at, self.gap()) else {
            return;
        };
        if let Err(e) = self.recorded(agent, recorded, Some(&used.message_id)).await {
            tracing::warn!(agent, error = %e, "cannot keep the transcript's usage");
        }
    }

    /// What recording a sample did, carried out: the history kept (else the figures undone), the window
    /// told, the notice before compaction, and the agents whose reset moved held again. `answer` is the
    /// transcript's answer it counted, if any.
    async fn recorded(
        &self,
        agent: &str,
        recorded: Recorded,
        answer: Option<&str>,
    ) -> Result<AgentUsage, HubError> {
        let at = recorded.agent.sample.at;
        let threshold = self.hub.options().context_notice;
        let crossed = recorded
            .agent
            .sample
            .context_crossed(recorded.earlier.as_ref(), threshold);
        if let Some(delta) = recorded.keep {
            let stored = match serde_json::to_string(&recorded.agent.sample) {
                Ok(json) => self
                    .hub
                    .store()
                    .append_usage(agent, at, delta, &json)
                    .await
                    .map_err(HubError::from),
                Err(e) => Err(HubError::new(Code::Internal, e.to_string())),
            };
            if let Err(e) = stored {
                self.hub.figures().undo(agent, recorded.earlier, answer);
                return Err(e);
            }
            self.hub.broadcast(UiEvent::Usage {
                usage: Box::new(recorded.agent.clone()),
            });
        }
        if let (true, Some(c)) = (crossed, recorded.agent.sample.context) {
            Lifecycle::of(self.hub)
                .note(
                    agent,
                    &format!(
                        "`{agent}`'s context is {}% full ({} of {} tokens): Claude Code compacts it \
                         by itself near the limit, summarising what came before. To choose what is \
                         kept, ask it to wrap up or run /compact in its terminal.",
                        c.percent,
                        short(c.used),
                        short(c.size)
                    ),
                )
                .await;
        }
        if let Some(account) = recorded.account {
            self.hub.broadcast(UiEvent::Limits { account });
        }
        for (usage, plan) in recorded.held {
            self.held(usage, plan);
        }
        Ok(recorded.agent)
    }

    fn gap(&self) -> Millis {
        Millis(i64::try_from(self.hub.options().continue_gap.as_millis()).unwrap_or(i64::MAX))
    }

    /// A status-line payload of a session ClawMux did not start, named by its `session_id`: the observed
    /// agent's, once its hooks made it one (`unknown_agent` before).
    pub async fn report_observed(&self, body: &[u8]) -> Result<AgentUsage, HubError> {
        let value: serde_json::Value = serde_json::from_slice(body)
            .map_err(|_| HubError::new(Code::MalformedJson, UsageError::NotJson.to_string()))?;
        let (session, _) = crate::observe::identity(Some(&value))?;
        let row = self
            .hub
            .store()
            .observed_agent(session)
            .await?
            .ok_or_else(|| {
                HubError::new(
                    Code::UnknownAgent,
                    "no observed session has this session_id yet (its hooks make it one)",
                )
            })?;
        self.report(&row.name, body).await
    }

    /// Claude Code stopped `agent` at the account's limit.
    pub(crate) fn rate_limited(&self, agent: &str) {
        self.held_since(agent, now());
    }

    /// `agent` has been held by the limit since `since` (now, or before the hub's start).
    pub(crate) fn held_since(&self, agent: &str, since: Millis) {
        let (usage, plan) = self.hub.figures().limited(agent, since, self.gap());
        self.held(usage, plan);
    }

    /// Tells the window how `usage`'s agent is held, and continues it when its `plan` is due.
    fn held(&self, usage: AgentUsage, plan: Option<Plan>) {
        let agent = usage.session_id.clone();
        self.hub.broadcast(UiEvent::Usage {
            usage: Box::new(usage),
        });
        if let Some(plan) = plan {
            tokio::spawn(continue_when_due(self.hub.clone(), agent, plan));
        }
    }

    /// `usage_continue`: whether `agent` is continued when the usage limit that stopped it resets.
    pub async fn set_continue(&self, agent: &str, on: bool) -> Result<(), HubError> {
        self.hub.live(agent)?;
        self.hub.store().set_usage_continue(agent, on).await?;
        let (usage, plan) = self
            .hub
            .figures()
            .set_continue(agent, on, now(), self.gap());
        self.held(usage, plan);
        Ok(())
    }

    /// `agent` works again (a prompt or a tool call): it is no longer held by the limit.
    pub(crate) fn working(&self, agent: &str) {
        if let Some(usage) = self.hub.figures().working(agent) {
            self.hub.broadcast(UiEvent::Usage {
                usage: Box::new(usage),
            });
        }
    }

    /// `agent`'s figures, if any came.
    pub fn of_agent(&self, agent: &str) -> Option<AgentUsage> {
        self.hub.figures().agent(agent)
    }

    /// `usage` (`clawmux usage`): the figures, and the history of the last `days` days (default 14), days
    /// cut at midnight `offset_minutes` east of UTC (the user's time zone; default UTC).
    pub async fn summary(
        &self,
        days: Option<u32>,
        offset_minutes: Option<i32>,
    ) -> Result<UsageReply, HubError> {
        let days = days.unwrap_or(14);
        if !(1..=MAX_DAYS).contains(&days) {
            return Err(HubError::new(
                Code::BadQuery,
                format!("days must be 1 to {MAX_DAYS}"),
            ));
        }
        let offset = offset_minutes.unwrap_or(0);
        if !(-14 * 60..=14 * 60).contains(&offset) {
            return Err(HubError::new(
                Code::BadQuery,
                "offset_minutes must be within -840 to 840",
            ));
        }
        let since = Millis(now().0 - i64::from(days) * 86_400_000);
        Ok(UsageReply {
            agents: self.hub.figures().agents(),
            account: self.hub.figures().account(),
            days: self.hub.store().usage_by_day(since, offset).await?,
        })
    }
}

/// The prompt typed into an agent continued after the reset.
const CONTINUE_PROMPT: &str =
    "ClawMux: the usage limit that stopped you has reset. Go on with what you \
                               were doing, then run `clawmux wait`.";

/// Sleeps until `plan` is due, then continues `agent` if the plan still stands (it did not work again by
/// itself, it is still opted in, no later reset replaced the plan) and it sits idle at its prompt.
async fn continue_when_due(hub: Hub, agent: String, plan: Plan) {
    let mut at = plan.at;
    loop {
        let wait = u64::try_from(at.0.saturating_sub(now().0)).unwrap_or(0);
        tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
        match hub.figures().due(&agent, plan.generation, now()) {
            Due::Later(later) => at = later,
            Due::Nothing => return,
            Due::Continue(_) => break,
        }
    }
    // Still where the limit left it: running, at its prompt, marked rate-limited (not, say, in a dialog
    // the user opened in its terminal meanwhile).
    let at_prompt = hub.store().agent(&agent).await.is_ok_and(|row| {
        row.snapshot.state != State::Dead
            && row
                .snapshot
                .attention
                .is_some_and(|a| a.need == Need::RateLimited)
    });
    let lifecycle = Lifecycle::of(&hub);
    if !at_prompt {
        tracing::info!(
            agent,
            "not continued after the reset: it is no longer where the limit left it"
        );
        return;
    }
    if let Err(e) = lifecycle.type_prompt(&agent, CONTINUE_PROMPT).await {
        tracing::warn!(agent, error = %e, "cannot continue the agent after the reset");
        lifecycle
            .note(
                &agent,
                &format!("`{agent}` could not be continued after the usage limit reset: {e}."),
            )
            .await;
        return;
    }
    tracing::info!(agent, "continued after the usage limit reset");
    lifecycle
        .note(
            &agent,
            &format!("`{agent}` was continued: the usage limit that stopped it reset."),
        )
        .await;
}
