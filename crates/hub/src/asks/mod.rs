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

use std::sync::{Mutex, MutexGuard};

use clawmux_core::wire::Code;
use clawmux_core::{Event, Source, ToolCall};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tokio::sync::oneshot;

use crate::error::HubError;
use crate::hub::Hub;
use crate::lifecycle::launch::PermissionMode;
pub use crate::ui_event::Request;
use decision::decision;
use plan::{plan_file, read_plan};

/// What the user decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::EnumIter)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Let the tool run (approve the plan; send the answers).
    Allow,
    /// Let it run, and add the rule Claude suggested so it does not ask again.
    AllowAlways,
    /// Refuse it (keep planning); the message tells Claude why.
    Deny,
}

/// The `answer` command: an agent, the request meant, and the user's answer. The hook that holds the
/// request is handed it whole.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerRequest {
    /// The agent.
    pub session_id: String,
    /// The request (`needs.request.id`); an answer meant for an earlier one answers nothing.
    pub request_id: Option<String>,
    /// Allow, allow always, or deny.
    pub decision: Verdict,
    /// Words for Claude: a denial's reason, a plan's feedback.
    pub message: Option<String>,
    /// A question's answers: each question's text to the chosen label (labels, or free text).
    pub answers: Option<Map<String, Value>>,
    /// For `allow_always`: which of the suggested rules (`needs.request.suggestions`, by place); the
    /// first when not given.
    pub suggestion: Option<usize>,
    /// For an approved plan: the permission mode to carry on in (Claude Code's own default when not given).
    pub mode: Option<PermissionMode>,
}

/// An open request and the hook waiting for its answer.
struct Open {
    request: Request,
    reply: oneshot::Sender<AnswerRequest>,
}

/// An agent's slice: the request its PermissionRequest hook holds open, if any, and the last tool call
/// the agent announced (its PreToolUse), whose input a PermissionRequest may lack.
#[derive(Default)]
pub(crate) struct Asks {
    open: Mutex<Option<Open>>,
    last_call: Mutex<Option<(String, Value)>>,
    /// The plan file the agent last wrote (`.claude/plans/*.md`): where Claude Code keeps the plan that
    /// ExitPlanMode presents, whose hooks get an empty input.
    plan_file: Mutex<Option<std::path::PathBuf>>,
}

impl Asks {
    fn slot(&self) -> MutexGuard<'_, Option<Open>> {
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The agent is about to run `tool` with `input` (its PreToolUse).
    pub(crate) fn saw_call(&self, tool: &str, input: &Value) {
        if let Some(plan) = plan_file(tool, input) {
            *self
                .plan_file
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(plan);
        }
        *self
            .last_call
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) =
            Some((tool.to_owned(), input.clone()));
    }

    /// The input of a request for `tool`: its own, or, when Claude Code sends it empty (ExitPlanMode's
    /// plan is only in its PreToolUse), the input the agent announced for that tool.
    fn input_of(&self, tool: &str, input: &Value) -> Value {
        let empty = input.as_object().is_some_and(Map::is_empty);
        if empty && tool == "ExitPlanMode" {
            let file = self
                .plan_file
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone();
            if let Some(plan) = file.as_deref().and_then(read_plan) {
                return json!({ "plan": plan, "planFilePath": file });
            }
        }
        let last = self
            .last_call
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match &*last {
            Some((name, announced)) if empty && name == tool => announced.clone(),
            Some(_) | None => input.clone(),
        }
    }

    /// Opens a request for `call`, with the rules Claude Code suggests: the hook that holds it waits on the
    /// receiver for the answer. A request still open is replaced: its hook's receiver ends, and it answers
    /// nothing.
    pub(crate) fn open(
        &self,
        call: &ToolCall,
        suggestions: Vec<Value>,
    ) -> (Request, oneshot::Receiver<AnswerRequest>) {
        let request = Request {
            id: uuid::Uuid::new_v4().simple().to_string()[..12].to_owned(),
            tool_name: call.name.clone(),
            tool_input: self.input_of(&call.name, &call.input),
            suggestions,
        };
        let (reply, answered) = oneshot::channel();
        *self.slot() = Some(Open {
            request: request.clone(),
            reply,
        });
        (request, answered)
    }

    /// Hands the user's answer to the hook that holds the open request, if `answer` names it (or names
    /// none). A request answered, replaced, closed or given up by its hook is not pending: the answer
    /// decides nothing, and the request that is open stays open.
    pub(crate) fn answer(&self, answer: AnswerRequest) -> Result<(), NotPending> {
        let open = {
            let mut slot = self.slot();
            match slot.as_ref() {
                Some(o)
                    if answer
                        .request_id
                        .as_ref()
                        .is_none_or(|id| *id == o.request.id) =>
                {
                    slot.take()
                }
                Some(_) | None => None,
            }
        };
        open.ok_or(NotPending)?
            .reply
            .send(answer)
            .map_err(|_| NotPending)
    }

    /// The open request, if any.
    pub(crate) fn current(&self) -> Option<Request> {
        self.slot().as_ref().map(|o| o.request.clone())
    }

    /// Ends the open request unanswered (its hook answers nothing); true if there was one.
    pub(crate) fn close(&self) -> bool {
        self.slot().take().is_some()
    }

    /// Ends request `id` unanswered, if it is still the open one.
    fn close_if(&self, id: &str) -> bool {
        let mut slot = self.slot();
        if slot.as_ref().is_some_and(|o| o.request.id == id) {
            *slot = None;
            return true;
        }
        false
    }
}

/// An answer that found no request to answer.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct NotPending;

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

impl Hub {
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
        let (request, answered) = self.live(agent)?.asks.open(call, suggestions);
        let guard = HeldBy {
            hub: self.clone(),
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
        self.broadcast_status(agent).await;
        match held.answered.await {
            Ok(reply) => Ok(decision(&held.request, &reply)),
            Err(_) => Ok(json!({})),
        }
    }

    /// Ends every open request unanswered (the hub is stopping): their hooks answer nothing, and the
    /// dialogs stay in the agents' terminals.
    pub fn close_requests(&self) {
        for live in self.lives() {
            live.asks.close();
        }
    }

    /// The `answer` command: the user's answer to an agent's open request (`request_id`, if given, must
    /// be it).
    pub async fn answer(&self, answer: AnswerRequest) -> Result<(), HubError> {
        let agent = answer.session_id.clone();
        self.live(&agent)?.asks.answer(answer).map_err(|NotPending| {
            HubError::new(
                Code::NotPending,
                format!(
                    "`{agent}` is not waiting for that answer any more: it was answered in its terminal, \
                     or the agent moved on"
                ),
            )
        })?;
        self.broadcast_status(&agent).await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, input: Value) -> ToolCall {
        ToolCall {
            name: name.to_owned(),
            input,
            id: None,
        }
    }

    fn answer(request_id: Option<&str>, decision: Verdict) -> AnswerRequest {
        AnswerRequest {
            session_id: "sky".to_owned(),
            request_id: request_id.map(str::to_owned),
            decision,
            message: None,
            answers: None,
            suggestion: None,
            mode: None,
        }
    }

    #[test]
    fn the_answer_naming_the_open_request_reaches_its_hook_once() {
        let asks = Asks::default();
        let (request, mut answered) = asks.open(&call("Bash", json!({"command": "ls"})), vec![]);
        assert_eq!(asks.current(), Some(request.clone()));
        asks.answer(answer(Some(&request.id), Verdict::Allow))
            .unwrap();
        assert_eq!(answered.try_recv().unwrap().decision, Verdict::Allow);
        assert_eq!(asks.current(), None, "answered: no longer open");
        // A late click (a second window, a notification's button) decides nothing.
        assert_eq!(
            asks.answer(answer(Some(&request.id), Verdict::Deny)),
            Err(NotPending)
        );
    }

    #[test]
    fn an_answer_meant_for_another_request_decides_nothing_and_leaves_it_open() {
        let asks = Asks::default();
        let (request, mut answered) = asks.open(&call("Bash", json!({})), vec![]);
        assert_eq!(
            asks.answer(answer(Some("an-earlier-id"), Verdict::Allow)),
            Err(NotPending)
        );
        assert!(answered.try_recv().is_err(), "the hook still waits");
        assert_eq!(asks.current().map(|r| r.id), Some(request.id));
        // An answer naming no request answers the open one (the CLI's `answer` without an id).
        asks.answer(answer(None, Verdict::Deny)).unwrap();
        assert_eq!(answered.try_recv().unwrap().decision, Verdict::Deny);
    }

    #[test]
    fn a_newer_request_replaces_an_older_one_whose_hook_then_answers_nothing() {
        let asks = Asks::default();
        let (older, mut older_answered) = asks.open(&call("Bash", json!({})), vec![]);
        let (newer, _newer_answered) = asks.open(&call("Write", json!({})), vec![]);
        assert_ne!(older.id, newer.id);
        assert!(
            matches!(
                older_answered.try_recv(),
                Err(oneshot::error::TryRecvError::Closed)
            ),
            "the older hook's wait ends without an answer"
        );
        assert_eq!(
            asks.answer(answer(Some(&older.id), Verdict::Allow)),
            Err(NotPending)
        );
        assert_eq!(asks.current().map(|r| r.id), Some(newer.id));
    }

    #[test]
    fn a_request_closes_only_while_it_is_the_open_one() {
        let asks = Asks::default();
        let (older, _a) = asks.open(&call("Bash", json!({})), vec![]);
        let (newer, _b) = asks.open(&call("Bash", json!({})), vec![]);
        assert!(
            !asks.close_if(&older.id),
            "the older hook going away leaves the newer request"
        );
        assert!(asks.close_if(&newer.id));
        assert!(!asks.close(), "nothing left to close");
    }

    #[test]
    fn a_hook_gone_before_the_answer_makes_the_answer_not_pending() {
        let asks = Asks::default();
        let (request, answered) = asks.open(&call("Bash", json!({})), vec![]);
        drop(answered);
        assert_eq!(
            asks.answer(answer(Some(&request.id), Verdict::Allow)),
            Err(NotPending)
        );
    }

    #[test]
    fn a_request_without_its_input_takes_the_one_the_agent_announced() {
        let asks = Asks::default();
        asks.saw_call(
            "AskUserQuestion",
            &json!({"questions": [{"question": "Which?"}]}),
        );
        let (request, _a) = asks.open(&call("AskUserQuestion", json!({})), vec![json!({"r": 1})]);
        assert_eq!(request.tool_input["questions"][0]["question"], "Which?");
        assert_eq!(request.suggestions, vec![json!({"r": 1})]);
        // Another tool's announced input is not borrowed.
        let (other, _b) = asks.open(&call("Bash", json!({})), vec![]);
        assert_eq!(other.tool_input, json!({}));
    }
}
