//! Where every hook reaches the hub: the agents' tool-status, permission and Stop hooks, and the hooks of
//! sessions ClawMux only observes. Each body is parsed here once, and one rule covers what cannot be used:
//!
//! - Whatever arrives is recorded against the agent it names (the `ClawMux-Session` header, else the agent
//!   working in the payload's `cwd`; an observed session by its `session_id`), so `clawmux log` shows it.
//!   Only a well-formed event of a kind the machine knows can move the agent: the machine records any other
//!   as suppressed.
//! - A body that is not JSON, or an event that lacks what its kind needs, is answered `400` with
//!   `malformed_json` or `malformed_event`, by every endpoint alike. An event of a kind ClawMux has no rule
//!   for (a newer Claude Code's) is answered as if nothing had happened: `200 {}` (the Stop hook:
//!   `{"block": false}`). Either way nothing else happens: no inbox hand-over, no request held, no verdict.
//! - `clawmux hook ...` turns any error into exit 0 with a note on stderr, so Claude Code carries on the same
//!   way each time.
//!
//! What a usable hook then does belongs to its feature: the inbox hand-over (`inbox/`), the request held
//! for the user (`asks/`), the Stop verdict (`inbox/rules.rs`), registering an observed session (`observe.rs`).

use clawmux_core::hook::HookKind;
use clawmux_core::wire::{Code, StopVerdict};
use clawmux_core::{Event, Hook, HookError, Source};
use serde_json::{json, Value};

use crate::error::HubError;
use crate::hub::{now, Hub};
use crate::ui_event::{SessionInfo, UiEvent};

/// A hook's body, parsed once.
pub(crate) struct Payload<'a> {
    /// The body as it came (what the store keeps).
    pub(crate) body: &'a [u8],
    /// The body as JSON; `None` when it is not JSON.
    pub(crate) value: Option<Value>,
    /// The event it is, or [`Event::Rejected`] with why not.
    pub(crate) event: Event,
    problem: Option<HookError>,
}

impl<'a> Payload<'a> {
    /// Parses `body`.
    pub(crate) fn parse(body: &'a [u8]) -> Payload<'a> {
        match serde_json::from_slice::<Value>(body) {
            Ok(value) => {
                let (event, problem) = Event::from_hook_value(&value);
                Payload {
                    body,
                    value: Some(value),
                    event,
                    problem,
                }
            }
            Err(_) => {
                let (event, problem) = Event::from_hook_payload(body);
                Payload {
                    body,
                    value: None,
                    event,
                    problem,
                }
            }
        }
    }

    /// The event, if the hub may act on it: `Ok(None)` for a kind it has no rule for, an error for a body it
    /// cannot use.
    pub(crate) fn usable(&self) -> Result<Option<&Hook>, HubError> {
        match (&self.problem, &self.event) {
            (None, Event::Hook(hook)) => Ok(Some(hook)),
            (Some(HookError::UnknownEvent(_)), _) => Ok(None),
            (Some(e), _) => Err(HubError::new(e.code(), e.to_string())),
            (None, _) => Ok(None),
        }
    }

    /// A field of the JSON body, as text.
    pub(crate) fn text(&self, field: &str) -> Option<&str> {
        self.value.as_ref()?.get(field)?.as_str()
    }
}

impl Hub {
    /// A tool-status hook (`POST /api/hooks/tool-status`): records the event, steps the machine, and hands
    /// the inbox over as additionalContext when it may. `agent` is the `ClawMux-Session` header, if sent.
    pub async fn tool_hook(&self, agent: Option<&str>, body: &[u8]) -> Result<Value, HubError> {
        let payload = Payload::parse(body);
        let agent = self.hook_agent(agent, &payload)?;
        self.record_hook(&agent, &payload).await?;
        match payload.usable()? {
            Some(hook) => self.answer_hook(&agent, hook, &payload).await,
            None => Ok(json!({})),
        }
    }

    /// The PermissionRequest hook (`POST /api/hooks/permission`): records the event like any hook, then
    /// holds the request open until the user answers it from the app, or it ends some other way. Another
    /// event sent here by mistake is recorded, and answered `{}`.
    pub async fn permission_hook(
        &self,
        agent: Option<&str>,
        body: &[u8],
    ) -> Result<Value, HubError> {
        let payload = Payload::parse(body);
        let agent = self.hook_agent(agent, &payload)?;
        // The request is open before the event is applied, so the status that shows the need carries it
        // (and a notification of it can offer Allow and Deny).
        let held = match payload.usable() {
            Ok(Some(Hook {
                kind: HookKind::PermissionRequest(call),
                ..
            })) => Some(self.hold_request(&agent, call, payload.value.as_ref())?),
            Ok(_) | Err(_) => None,
        };
        self.record_hook(&agent, &payload).await?;
        payload.usable()?;
        match held {
            Some(held) => self.await_answer(&agent, held).await,
            None => Ok(json!({})),
        }
    }

    /// The Stop hook (`clawmux hook stop`): records the event and decides whether Claude may stop.
    pub async fn stop_hook(&self, agent: &str, body: &[u8]) -> Result<StopVerdict, HubError> {
        let payload = Payload::parse(body);
        self.live(agent)?;
        self.record_hook(agent, &payload).await?;
        match payload.usable()? {
            Some(_) => self.stop_verdict(agent).await,
            None => Ok(StopVerdict {
                block: false,
                reason: String::new(),
            }),
        }
    }

    /// A hook of an observed session (`POST /api/observe`, from `clawmux hook observe`): the first usable
    /// hook of a session never seen registers it; a stray SessionEnd, or what cannot be used, registers
    /// nothing.
    pub async fn observe_hook(&self, body: &[u8]) -> Result<Value, HubError> {
        let payload = Payload::parse(body);
        if payload.value.is_none() {
            payload.usable()?;
        }
        let (session_id, cwd) = crate::observe::identity(payload.value.as_ref())?;
        let agent = match self.store().observed_agent(session_id).await? {
            Some(row) => row.name,
            None => {
                let starts = payload
                    .usable()
                    .ok()
                    .flatten()
                    .is_some_and(|h| !matches!(h.kind, HookKind::SessionEnd { .. }));
                if !starts {
                    return payload.usable().map(|_| json!({}));
                }
                self.register_observed(cwd, session_id).await?
            }
        };
        self.record_hook(&agent, &payload).await?;
        payload.usable().map(|_| json!({}))
    }

    /// The agent a hook is for: the `ClawMux-Session` header's, else the one working in the payload's cwd.
    fn hook_agent(&self, header: Option<&str>, payload: &Payload<'_>) -> Result<String, HubError> {
        if let Some(agent) = header {
            return Ok(agent.to_owned());
        }
        if payload.value.is_none() {
            // Nothing names the agent, and the body says why it can be of no use.
            payload.usable()?;
        }
        payload
            .text("cwd")
            .and_then(|cwd| self.agent_by_work_dir(cwd))
            .ok_or_else(|| {
                HubError::new(
                    Code::UnknownAgent,
                    "no ClawMux-Session header and no agent works in the payload's cwd",
                )
            })
    }

    /// Registers a session first seen through `clawmux hook observe` as an observed agent.
    pub(crate) async fn register_observed(
        &self,
        cwd: &str,
        session_id: &str,
    ) -> Result<String, HubError> {
        let name = crate::observe::observed_name(cwd, session_id);
        let row = self
            .store()
            .add_observed_agent(&name, cwd, session_id, now())
            .await?;
        self.insert_live(&name, cwd.into());
        self.broadcast(UiEvent::SessionSpawned {
            session: SessionInfo::new(&row.name, &row.work_dir, &row.snapshot, 0),
        });
        tracing::info!(agent = %name, session_id, "observing a Claude Code session");
        Ok(name)
    }

    /// Records a hook's event (the machine steps on it, or records why not) and follows the transcript it
    /// names.
    async fn record_hook(&self, agent: &str, payload: &Payload<'_>) -> Result<(), HubError> {
        self.apply(agent, Source::Hook, &payload.event, payload.body)
            .await?;
        self.follow_transcript_of(agent, &payload.event);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usable(body: &str) -> Result<Option<String>, Code> {
        let payload = Payload::parse(body.as_bytes());
        payload
            .usable()
            .map(|h| h.map(|h| h.name().to_owned()))
            .map_err(|e| e.code)
    }

    #[test]
    fn one_rule_for_what_cannot_be_used() {
        assert_eq!(usable("not json"), Err(Code::MalformedJson));
        assert_eq!(usable("[1, 2]"), Err(Code::MalformedEvent));
        assert_eq!(
            usable(r#"{"hook_event_name": "PreToolUse"}"#),
            Err(Code::MalformedEvent),
            "a PreToolUse without its tool"
        );
        assert_eq!(
            usable(r#"{"hook_event_name": "TeammateIdle"}"#),
            Ok(None),
            "a kind with no rule: nothing to do, and no error for Claude Code"
        );
        assert_eq!(
            usable(r#"{"hook_event_name": "Stop", "session_id": "c1"}"#),
            Ok(Some("Stop".to_owned()))
        );
    }

    #[test]
    fn what_cannot_be_used_is_still_an_event_to_record() {
        for body in ["not json", r#"{"hook_event_name": "PreToolUse"}"#] {
            let payload = Payload::parse(body.as_bytes());
            assert!(
                matches!(payload.event, Event::Rejected { .. }),
                "{body}: {:?}",
                payload.event
            );
            assert_eq!(payload.body, body.as_bytes());
        }
    }
}
