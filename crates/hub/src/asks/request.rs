//! The request a PermissionRequest hook holds open for an agent, and the rules for answering it: an answer
//! reaches the hook only if it names the open request (or none), once; a newer request replaces an older
//! one, whose hook then answers nothing; a request closes only while it is the open one. Plain state with
//! unit tests of its own: the hub's side (holding the hook, telling the clients) is `asks/mod.rs`.

use std::sync::{Mutex, MutexGuard};

use clawmux_core::ToolCall;
use serde_json::{json, Map, Value};
use tokio::sync::oneshot;

use super::plan::{plan_file, read_plan};
use crate::ui_event::Request;
pub use clawmux_api::asks::{AnswerRequest, Verdict};
use clawmux_core::sync::Locked;

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
        self.open.locked()
    }

    /// The agent is about to run `tool` with `input` (its PreToolUse).
    pub(crate) fn saw_call(&self, tool: &str, input: &Value) {
        if let Some(plan) = plan_file(tool, input) {
            *self.plan_file.locked() = Some(plan);
        }
        *self.last_call.locked() = Some((tool.to_owned(), input.clone()));
    }

    /// The input of a request for `tool`: its own, or, when Claude Code sends it empty (ExitPlanMode's
    /// plan is only in its PreToolUse), the input the agent announced for that tool.
    fn input_of(&self, tool: &str, input: &Value) -> Value {
        let empty = input.as_object().is_some_and(Map::is_empty);
        if empty && tool == "ExitPlanMode" {
            let file = self.plan_file.locked().clone();
            if let Some(plan) = file.as_deref().and_then(read_plan) {
                return json!({ "plan": plan, "planFilePath": file });
            }
        }
        let last = self.last_call.locked();
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
    pub(crate) fn close_if(&self, id: &str) -> bool {
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

    #[test]
    fn an_exit_plan_mode_request_takes_the_plan_file_the_agent_wrote() {
        let write = |path: &str| json!({ "file_path": path, "content": "x" });
        let asks = Asks::default();
        let dir = tempfile::tempdir().unwrap();
        let plans = dir.path().join(".claude/plans");
        std::fs::create_dir_all(&plans).unwrap();
        let file = plans.join("p.md");
        std::fs::write(&file, "# Paint the fence").unwrap();
        asks.saw_call("Write", &write(file.to_str().unwrap()));
        let input = asks.input_of("ExitPlanMode", &json!({}));
        assert_eq!(input["plan"], "# Paint the fence");
        assert_eq!(
            asks.input_of("Bash", &json!({})),
            json!({}),
            "only ExitPlanMode takes the plan"
        );
    }
}
