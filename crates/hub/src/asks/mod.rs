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

use crate::agents::Agents;
use crate::clock::now;
use crate::error::HubError;
use crate::found::{Finds, Found};
pub use crate::ui_event::Request;
use decision::decision;
use request::NotPending;
pub use request::{AnswerRequest, Verdict};

/// A request held open for a PermissionRequest hook: what it asks, where its answer comes, and the guard
/// that closes it if the hook goes away first.
pub(crate) struct Held {
    pub(crate) request: Request,
    answered: oneshot::Receiver<AnswerRequest>,
    _guard: HeldBy,
}

/// Closes its request when the hook that holds it goes away (Claude Code's timeout, a killed command).
struct HeldBy {
    agents: Agents,
    finds: Finds,
    agent: String,
    id: String,
}

impl Drop for HeldBy {
    fn drop(&mut self) {
        let Ok(live) = self.agents.live(&self.agent) else {
            return;
        };
        if live.asks.close_if(&self.id) {
            // Claude Code ended the hook without an answer. Right after an interrupt, that is the dialog
            // the interrupt cancelled before it showed: its need would otherwise stay for good, and the
            // agent, taken to wait for the user, would never be reminded. (Answered in the terminal, the
            // tool's own end clears it; no interrupt came before.)
            let cancelled = live.run.pulse.borrow().interrupted;
            if cancelled {
                self.finds.send(Found {
                    agent: self.agent.clone(),
                    source: Source::Hub,
                    event: Event::Interrupted,
                    payload: Vec::new(),
                    at: now(),
                    tell_status: true,
                });
            } else {
                self.finds.tell_status(&self.agent);
            }
        }
    }
}

/// Answering an agent's requests: holds a hook's request open, shows it, and takes the user's answer to it
/// (each agent's open request is its [`Live`](crate::live)'s [`Asks`](request::Asks)). Made once with the
/// agents' registry and where it asks the hub to tell a status again or to record a cancelled request's end.
#[derive(Clone)]
pub struct Requests {
    agents: Agents,
    finds: Finds,
}

impl Requests {
    pub(crate) fn new(agents: Agents, finds: Finds) -> Requests {
        Requests { agents, finds }
    }

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
        let (request, answered) = self.agents.live(agent)?.asks.open(call, suggestions);
        let guard = HeldBy {
            agents: self.agents.clone(),
            finds: self.finds.clone(),
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
        self.finds.tell_status(agent);
        match held.answered.await {
            Ok(reply) => Ok(decision(&held.request, &reply)),
            Err(_) => Ok(json!({})),
        }
    }

    /// Ends every open request unanswered (the hub is stopping): their hooks answer nothing, and the
    /// dialogs stay in the agents' terminals.
    pub fn close_all(&self) {
        for live in self.agents.lives() {
            live.asks.close();
        }
    }

    /// The `answer` command: the user's answer to an agent's open request (`request_id`, if given, must
    /// be it).
    pub async fn answer(&self, answer: AnswerRequest) -> Result<(), HubError> {
        let agent = answer.session_id.clone();
        self.agents.live(&agent)?.asks.answer(answer).map_err(|NotPending| {
            HubError::new(
                Code::NotPending,
                format!(
                    "`{agent}` is not waiting for that answer any more: it was answered in its terminal, \
                     or the agent moved on"
                ),
            )
        })?;
        // The dialog is over now, not when the tool it let run ends (its PostToolUse): the indicator stops
        // saying "needs you" at once.
        self.finds.send(crate::found::Found {
            agent,
            source: clawmux_core::Source::Ui,
            event: clawmux_core::Event::Answered,
            payload: Vec::new(),
            at: crate::clock::now(),
            tell_status: true,
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::found::ForHub;

    fn requests() -> (Requests, tokio::sync::mpsc::UnboundedReceiver<ForHub>) {
        let agents = Agents::default();
        agents.insert("sky", "/w/sky".into(), clawmux_core::State::Processing);
        let (finds, sent) = Finds::channel();
        (Requests::new(agents, finds), sent)
    }

    fn call() -> ToolCall {
        ToolCall {
            name: "Bash".to_owned(),
            input: json!({"command": "ls"}),
            id: Some("toolu_1".to_owned()),
        }
    }

    fn answer(request_id: Option<String>) -> AnswerRequest {
        AnswerRequest {
            session_id: "sky".to_owned(),
            request_id,
            decision: Verdict::Allow,
            message: None,
            answers: None,
            suggestion: None,
            mode: None,
        }
    }

    #[tokio::test]
    async fn a_held_request_is_shown_answered_once_and_a_late_click_decides_nothing() {
        let (requests, mut sent) = requests();
        let held = requests.hold_request("sky", &call(), None).unwrap();
        let id = held.request.id.clone();
        let waiting = requests.await_answer("sky", held);
        let answering = async {
            // Shown before the answer: the hub tells the status that carries the request.
            assert_eq!(sent.recv().await, Some(ForHub::Status("sky".to_owned())));
            requests.answer(answer(Some(id.clone()))).await.unwrap();
        };
        let (decision, ()) = tokio::join!(waiting, answering);
        assert_eq!(
            decision.unwrap()["hookSpecificOutput"]["decision"]["behavior"],
            "allow"
        );
        // Taken, the answer is recorded: it ends the "needs you" at once, and tells the status.
        match sent.recv().await {
            Some(ForHub::Found(f)) => assert_eq!(
                (f.agent.as_str(), &f.event, f.tell_status),
                ("sky", &clawmux_core::Event::Answered, true)
            ),
            other => panic!("{other:?}"),
        }
        let late = requests.answer(answer(Some(id))).await.unwrap_err();
        assert_eq!(late.code, Code::NotPending);
        assert!(sent.try_recv().is_err(), "a late click tells nothing");
    }

    #[tokio::test]
    async fn a_request_whose_hook_went_away_ends_and_after_an_interrupt_its_need_too() {
        let (requests, mut sent) = requests();
        drop(requests.hold_request("sky", &call(), None).unwrap());
        assert_eq!(sent.try_recv(), Ok(ForHub::Status("sky".to_owned())));
        assert_eq!(
            requests.answer(answer(None)).await.unwrap_err().code,
            Code::NotPending
        );

        let live = requests.agents.live("sky").unwrap();
        live.run.pulse.send_modify(|p| p.interrupted = true);
        drop(requests.hold_request("sky", &call(), None).unwrap());
        let Ok(ForHub::Found(found)) = sent.try_recv() else {
            panic!("the cancelled request's need is not ended");
        };
        assert_eq!(
            (found.event, found.source),
            (Event::Interrupted, Source::Hub)
        );
        assert!(found.tell_status);
    }
}
