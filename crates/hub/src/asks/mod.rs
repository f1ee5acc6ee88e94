//! Answering what an agent needs from the app: a permission, a question, a plan approval.
//!
//! Claude Code asks through the PermissionRequest hook, `clawmux hook permission`, whose command waits for
//! the hub's answer (its timeout is as long as a wait's). The hub records the event, keeps the request open
//! as the agent's [`Asks`] slice, shows it to every client under the agent's `needs`, and answers the hook
//! with the user's decision (`Command::Answer`): allow, allow always (the rule Claude suggested), or deny
//! with a reason Claude receives; for a question, the answers; for a plan, approval or feedback.
//!
//! A request ends without an answer from the app when its "needs you" ends some other way (the user answered
//! in the terminal, the agent was interrupted, its turn or process ended), or when the hook itself goes
//! away (Claude Code's timeout): the hook then answers nothing, which leaves the dialog to the terminal, and
//! a late click gets `not_pending`, never a second decision. A hook that goes away right after an interrupt
//! belonged to a dialog the interrupt cancelled before it showed: its need ends too.

mod decision;
mod plan;
pub(crate) mod request;

use clawmux_core::wire::Code;
use clawmux_core::{Event, Source, ToolCall};
use serde_json::{json, Value};
use tokio::sync::oneshot;

use crate::error::HubError;
use crate::hub::Hub;
pub use crate::ui_event::Request;
use decision::decision;
use request::NotPending;
pub use request::{AnswerRequest, Verdict};

/// A request held open for a PermissionRequest hook: what it asks, where its answer comes, and the guard
/// that closes it if the hook goes away first.
pub(crate) struct Held {
    request: Request,
    answered: oneshot::Receiver<AnswerRequest>,
    _guard: HeldBy,
}

/// Closes its request when the hook that holds it goes away (Claude Code's timeout, a killed command).
struct HeldBy {
    hub: Hub,
    agent: String,
    id: String,
}

impl Drop for HeldBy {
    fn drop(&mut self) {
        let Ok(live) = self.hub.live(&self.agent) else {
            return;
        };
        if live.asks.close_if(&self.id) {
            // Claude Code ended the hook without an answer. Right after an interrupt, that is the dialog
            // the interrupt cancelled before it showed: its need would otherwise stay for good, and the
            // agent, taken to wait for the user, would never be reminded. (Answered in the terminal, the
            // tool's own end clears it; no interrupt came before.)
            let cancelled = live.run.pulse.borrow().interrupted;
            let (hub, agent) = (self.hub.clone(), self.agent.clone());
            tokio::spawn(async move {
                if cancelled {
                    if let Err(e) = hub
                        .apply(&agent, Source::Hub, &Event::Interrupted, b"")
                        .await
                    {
                        tracing::warn!(agent, error = %e, "could not end a cancelled request's need");
                    }
                }
                hub.broadcast_status(&agent).await;
            });
        }
    }
}

/// Answering an agent's requests: holds a hook's request open, shows it, and takes the user's answer to it
/// (each agent's open request is its [`Live`](crate::live)'s [`Asks`](request::Asks)).
#[derive(Clone, Copy)]
pub struct Requests<'h> {
    hub: &'h Hub,
}

impl<'h> Requests<'h> {
    /// The feature as `hub` composes it.
    pub fn of(hub: &'h Hub) -> Requests<'h> {
        Requests { hub }
    }
}

impl Requests<'_> {
    /// Opens a request for a PermissionRequest hook's call (before its event is applied, so the status
    /// that shows the need carries it).
    pub(crate) fn hold_request(
        &self,
        agent: &str,
        call: &ToolCall,
        payload: Option<&Value>,
    ) -> Result<Held, HubError> {
        let suggestions = payload
            .and_then(|v| v.get("permission_suggestions"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let (request, answered) = self.hub.live(agent)?.asks.open(call, suggestions);
        let guard = HeldBy {
            hub: self.hub.clone(),
            agent: agent.to_owned(),
            id: request.id.clone(),
        };
        Ok(Held {
            request,
            answered,
            _guard: guard,
        })
    }

    /// Shows a held request to every client and waits for the user's answer: Claude Code's decision, or
    /// nothing (`{}`) when the request ends unanswered.
    pub(crate) async fn await_answer(&self, agent: &str, held: Held) -> Result<Value, HubError> {
        self.hub.broadcast_status(agent).await;
        match held.answered.await {
            Ok(reply) => Ok(decision(&held.request, &reply)),
            Err(_) => Ok(json!({})),
        }
    }

    /// Ends every open request unanswered (the hub is stopping): their hooks answer nothing, and the
    /// dialogs stay in the agents' terminals.
    pub fn close_all(&self) {
        for live in self.hub.lives() {
            live.asks.close();
        }
    }

    /// The `answer` command: the user's answer to an agent's open request (`request_id`, if given, must
    /// be it).
    pub async fn answer(&self, answer: AnswerRequest) -> Result<(), HubError> {
        let agent = answer.session_id.clone();
        self.hub.live(&agent)?.asks.answer(answer).map_err(|NotPending| {
            HubError::new(
                Code::NotPending,
                format!(
                    "`{agent}` is not waiting for that answer any more: it was answered in its terminal, \
                     or the agent moved on"
                ),
            )
        })?;
        self.hub.broadcast_status(&agent).await;
        Ok(())
    }
}
