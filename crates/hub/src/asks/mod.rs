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

use clawmux_core::hook::HookKind;
use clawmux_core::wire::Code;
use clawmux_core::{Event, Hook, Source};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tokio::sync::oneshot;

use crate::error::HubError;
use crate::hub::Hub;
use crate::lifecycle::launch::PermissionMode;
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

/// A request as clients see it, under the agent's `needs`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Request {
    /// Its id: an answer names it, so a click meant for an earlier request answers nothing.
    pub id: String,
    /// The tool that asks (`Bash`, `Edit`, `AskUserQuestion`, `ExitPlanMode`, ...).
    pub tool_name: String,
    /// What it will do: its input as Claude Code sent it (a question's options are in it).
    pub tool_input: Value,
    /// The rules Claude Code suggests for "always allow" (`permission_suggestions`), if any.
    pub suggestions: Vec<Value>,
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
    /// The PermissionRequest hook (`POST /api/hooks/permission`): records the event like any hook, then
    /// holds the request open until the user answers it from the app, or it ends some other way.
    pub async fn permission_hook(
        &self,
        agent: Option<&str>,
        body: &[u8],
    ) -> Result<Value, HubError> {
        let (agent, value) = self.hook_payload(agent, body)?;
        let live = self.live(&agent)?;
        let (event, error) = Event::from_hook_value(&value);
        // The request is open before the event is applied, so the status that shows the need carries it
        // (and a notification of it can offer Allow and Deny).
        let held = if let Event::Hook(Hook {
            kind: HookKind::PermissionRequest(call),
            ..
        }) = &event
        {
            let request = Request {
                id: uuid::Uuid::new_v4().simple().to_string()[..12].to_owned(),
                tool_name: call.name.clone(),
                tool_input: live.asks.input_of(&call.name, &call.input),
                suggestions: value
                    .get("permission_suggestions")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default(),
            };
            let (reply, answered) = oneshot::channel();
            // A newer request replaces an older one still open: the older hook answers nothing.
            *live.asks.slot() = Some(Open {
                request: request.clone(),
                reply,
            });
            let guard = HeldBy {
                hub: self.clone(),
                agent: agent.clone(),
                id: request.id.clone(),
            };
            Some((request, answered, guard))
        } else {
            None
        };
        self.apply(&agent, Source::Hook, &event, body).await?;
        self.follow_transcript_of(&agent, &event);
        if let Some(e) = error {
            return Err(HubError::new(e.code(), e.to_string()));
        }
        // Another event sent here by mistake: recorded, and answered like a tool hook.
        let Some((request, answered, _held)) = held else {
            return Ok(json!({}));
        };
        self.broadcast_status(&agent).await;
        match answered.await {
            Ok(reply) => Ok(decision(&request, &reply)),
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
        let request_id = answer.request_id.clone();
        let live = self.live(&agent)?;
        let open = {
            let mut slot = live.asks.slot();
            match slot.as_ref() {
                Some(o) if request_id.as_ref().is_none_or(|id| *id == o.request.id) => slot.take(),
                Some(_) | None => None,
            }
        };
        let not_pending = || {
            HubError::new(
                Code::NotPending,
                format!(
                    "`{agent}` is not waiting for that answer any more: it was answered in its terminal, \
                     or the agent moved on"
                ),
            )
        };
        let open = open.ok_or_else(not_pending)?;
        open.reply.send(answer).map_err(|_| not_pending())?;
        self.broadcast_status(&agent).await;
        Ok(())
    }
}
