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
//! The state machine decides that an agent is rate-limited (a `StopFailure` of kind `rate_limit`) and when
//! it no longer is; usage follows it ([`Usage::need_is`]) and says until when the window at its limit is
//! spent. An agent the user opted in is continued after the reset (`resume.rs` plans when, in
//! turn with the others); nothing is typed into an agent while it is held.

pub mod bridge;
pub mod figures;
pub mod resume;

use std::sync::Arc;

use clawmux_core::usage::{short, Sample, UsageError, Used};
use clawmux_core::wire::Code;
use clawmux_core::{Millis, Need, State};
use clawmux_store::Store;
use tokio::sync::{broadcast, mpsc};

use crate::agents::Agents;
use crate::clock::now;
use crate::error::HubError;
use crate::ui_event::UiEvent;
pub use clawmux_api::usage::UsageReply;
pub use clawmux_core::usage::{Account, AgentUsage, Limited};
use figures::Recorded;
use resume::{Due, Plan};

/// The most days of history one `usage` command returns.
pub const MAX_DAYS: u32 = 366;

/// What usage asks of the agents' lifecycle, one way: the hub carries it out (`lifecycle::errands`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Errand {
    /// A note of the hub's in `agent`'s conversation.
    Note {
        /// The agent.
        agent: String,
        /// What it says.
        text: String,
    },
    /// The usage limit that held `agent` reset, and the user asked that it continue: `prompt` is typed
    /// into its terminal, and a note says whether that worked.
    Continue {
        /// The agent.
        agent: String,
        /// What is typed.
        prompt: &'static str,
    },
}

/// The usage feature: made once when the hub opens with the store that keeps the history, the agents'
/// registry, a UI sender, the figures it owns, and where its errands go; a cheap-clone handle.
#[derive(Clone)]
pub struct Usage {
    parts: Arc<Parts>,
}

struct Parts {
    store: Store,
    agents: Agents,
    ui: broadcast::Sender<UiEvent>,
    figures: figures::Figures,
    errands: mpsc::UnboundedSender<Errand>,
    /// The context's fill, in percent, past which the user hears that compaction is near.
    context_notice: u8,
    /// The pause between two agents continued after one reset.
    continue_gap: std::time::Duration,
    /// The continuations waiting for a reset are the hub's tasks.
    tasks: crate::tasks::Tasks,
}

impl Usage {
    /// The feature over `store`, with the figures it kept (`Figures::restore`).
    pub(crate) fn new(
        store: Store,
        agents: Agents,
        ui: broadcast::Sender<UiEvent>,
        figures: figures::Figures,
        errands: mpsc::UnboundedSender<Errand>,
        options: &crate::config::Options,
        tasks: crate::tasks::Tasks,
    ) -> Usage {
        Usage {
            parts: Arc::new(Parts {
                store,
                agents,
                ui,
                figures,
                errands,
                tasks,
                context_notice: options.context_notice,
                continue_gap: options.continue_gap,
            }),
        }
    }

    fn figures(&self) -> &figures::Figures {
        &self.parts.figures
    }

    fn tell(&self, event: UiEvent) {
        // No receiver means no window is open: not an error.
        let _ = self.parts.ui.send(event);
    }

    fn ask(&self, errand: Errand) {
        // The hub gone, nobody carries it out: nothing is waiting for it either.
        let _ = self.parts.errands.send(errand);
    }

    /// Forgets a removed agent's figures.
    pub(crate) fn forget(&self, agent: &str) {
        self.figures().forget(agent);
    }

    /// A status-line payload of `agent`'s (`POST /api/usage`): refused whole if any figure is out of range.
    ///
    /// It runs to its end on a task of its own even when the caller goes (the bridge closes its connection
    /// after its wait): the figures and their row in the history move together or not at all.
    pub async fn report(&self, agent: &str, body: &[u8]) -> Result<AgentUsage, HubError> {
        self.parts.agents.live(agent)?;
        let sample = Sample::parse(body, now()).map_err(|e| {
            let code = match e {
                UsageError::NotJson => Code::MalformedJson,
                UsageError::OutOfRange(_) | UsageError::NotStatusLine => Code::MalformedEvent,
            };
            HubError::new(code, e.to_string())
        })?;
        let (usage, agent) = (self.clone(), agent.to_owned());
        tokio::spawn(async move {
            let _one_at_a_time = usage.figures().writing().await;
            let recorded = usage.figures().record(&agent, sample, usage.gap());
            usage.recorded(&agent, recorded, None).await
        })
        .await
        .map_err(|e| HubError::new(Code::Internal, e.to_string()))?
    }

    /// An answer of `agent`'s model that its transcript shows, at `at`: its tokens count once, whether or
    /// not a status line reports the agent (the status line's totals are the latest response's only).
    pub(crate) async fn answered(&self, agent: &str, used: &Used, at: Millis) {
        let _one_at_a_time = self.figures().writing().await;
        let Some(recorded) = self.figures().answered(agent, used, at, self.gap()) else {
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
        let threshold = self.parts.context_notice;
        let crossed = recorded
            .agent
            .sample
            .context_crossed(recorded.earlier.as_ref(), threshold);
        if let Some(delta) = recorded.keep {
            let stored = match serde_json::to_string(&recorded.agent.sample) {
                Ok(json) => self
                    .parts
                    .store
                    .append_usage(agent, at, delta, &json)
                    .await
                    .map_err(HubError::from),
                Err(e) => Err(HubError::new(Code::Internal, e.to_string())),
            };
            if let Err(e) = stored {
                self.figures().undo(agent, recorded.earlier, answer);
                return Err(e);
            }
            self.tell(UiEvent::Usage {
                usage: Box::new(recorded.agent.clone()),
            });
        }
        if let (true, Some(c)) = (crossed, recorded.agent.sample.context) {
            self.ask(Errand::Note {
                agent: agent.to_owned(),
                text: format!(
                    "`{agent}`'s context is {}% full ({} of {} tokens): Claude Code compacts it by \
                     itself near the limit, summarising what came before. To choose what is kept, \
                     ask it to wrap up or run /compact in its terminal.",
                    c.percent,
                    short(c.used),
                    short(c.size)
                ),
            });
        }
        if let Some(account) = recorded.account {
            self.tell(UiEvent::Limits { account });
        }
        for (usage, plan) in recorded.held {
            self.held(usage, plan);
        }
        Ok(recorded.agent)
    }

    fn gap(&self) -> Millis {
        Millis(i64::try_from(self.parts.continue_gap.as_millis()).unwrap_or(i64::MAX))
    }

    /// A status-line payload of a session ClawMux did not start, named by its `session_id`: the observed
    /// agent's, once its hooks made it one (`unknown_agent` before).
    pub async fn report_observed(&self, body: &[u8]) -> Result<AgentUsage, HubError> {
        let value: serde_json::Value = serde_json::from_slice(body)
            .map_err(|_| HubError::new(Code::MalformedJson, UsageError::NotJson.to_string()))?;
        let (session, _) = crate::observe::identity(Some(&value))?;
        let row = self
            .parts
            .store
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

    /// What the state machine decided of `agent`'s need, the one owner of "rate-limited": held while its
    /// need is `rate_limited` (since when the machine says), free the moment it is not. Usage only adds what
    /// it knows: until when, and when it continues the agent.
    pub(crate) fn need_is(&self, agent: &str, attention: Option<&clawmux_core::Attention>) {
        match attention.filter(|a| a.need == Need::RateLimited) {
            Some(a) if !self.figures().is_limited(agent) => {
                let (usage, plan) = self.figures().limited(agent, a.since, self.gap());
                self.held(usage, plan);
            }
            Some(_) => {}
            None => {
                if let Some(usage) = self.figures().working(agent) {
                    self.tell(UiEvent::Usage {
                        usage: Box::new(usage),
                    });
                }
            }
        }
    }

    /// Tells the window how `usage`'s agent is held, and continues it when its `plan` is due.
    fn held(&self, usage: AgentUsage, plan: Option<Plan>) {
        let agent = usage.session_id.clone();
        self.tell(UiEvent::Usage {
            usage: Box::new(usage),
        });
        if let Some(plan) = plan {
            self.parts
                .tasks
                .spawn(self.clone().continue_when_due(agent, plan));
        }
    }

    /// `usage_continue`: whether `agent` is continued when the usage limit that stopped it resets.
    pub async fn set_continue(&self, agent: &str, on: bool) -> Result<(), HubError> {
        self.parts.agents.live(agent)?;
        self.parts.store.set_usage_continue(agent, on).await?;
        let (usage, plan) = self.figures().set_continue(agent, on, now(), self.gap());
        self.held(usage, plan);
        Ok(())
    }

    /// `agent`'s figures, if any came.
    pub fn of_agent(&self, agent: &str) -> Option<AgentUsage> {
        self.figures().agent(agent)
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
            agents: self.figures().agents(),
            account: self.figures().account(),
            days: self.parts.store.usage_by_day(since, offset).await?,
        })
    }

    /// Sleeps until `plan` is due, then continues `agent` if the plan still stands (it did not work again
    /// by itself, it is still opted in, no later reset replaced the plan) and it sits idle at its prompt.
    async fn continue_when_due(self, agent: String, plan: Plan) {
        let mut at = plan.at;
        loop {
            let wait = u64::try_from(at.0.saturating_sub(now().0)).unwrap_or(0);
            tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
            match self.figures().due(&agent, plan.generation, now()) {
                Due::Later(later) => at = later,
                Due::Nothing => return,
                Due::Continue(_) => break,
            }
        }
        // Still where the limit left it: running, at its prompt, marked rate-limited (not, say, in a dialog
        // the user opened in its terminal meanwhile).
        let at_prompt = self.parts.store.agent(&agent).await.is_ok_and(|row| {
            row.snapshot.state != State::Dead
                && row
                    .snapshot
                    .attention
                    .is_some_and(|a| a.need == Need::RateLimited)
        });
        if !at_prompt {
            tracing::info!(
                agent,
                "not continued after the reset: it is no longer where the limit left it"
            );
            return;
        }
        self.ask(Errand::Continue {
            agent,
            prompt: CONTINUE_PROMPT,
        });
    }
}

/// The prompt typed into an agent continued after the reset.
const CONTINUE_PROMPT: &str =
    "ClawMux: the usage limit that stopped you has reset. Go on with what you \
                               were doing, then run `clawmux wait`.";

#[cfg(test)]
mod tests;
