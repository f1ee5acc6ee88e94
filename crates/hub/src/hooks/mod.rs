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
use clawmux_core::{Hook, Source};
use serde_json::{json, Value};

pub(crate) mod payload;

use crate::clock::now;
use crate::error::HubError;
use crate::hub::Hub;
use crate::inbox::Inbox;
use crate::ui_event::{SessionInfo, UiEvent};
pub(crate) use payload::Payload;

/// The four hooks Claude Code runs, received in one place: each payload parsed once, recorded always, and
/// what cannot be used answered alike.
#[derive(Clone, Copy)]
pub struct Hooks<'h> {
    hub: &'h Hub,
}

impl<'h> Hooks<'h> {
    /// The feature as `hub` composes it.
    pub fn of(hub: &'h Hub) -> Hooks<'h> {
        Hooks { hub }
    }
}

impl Hooks<'_> {
    /// A tool-status hook (`POST /api/hooks/tool-status`): records the event, steps the machine, and hands
    /// the inbox over as additionalContext when it may. `agent` is the `ClawMux-Session` header, if sent.
    pub async fn tool(&self, agent: Option<&str>, body: &[u8]) -> Result<Value, HubError> {
        let payload = Payload::parse(body);
        let agent = self.hook_agent(agent, &payload)?;
        self.record_hook(&agent, &payload).await?;
        match payload.usable()? {
            Some(hook) => {
                if let HookKind::PostToolUse { tool_name, .. }
                | HookKind::PostToolUseFailure { tool_name, .. } = &hook.kind
                {
                    self.hub.worktrees().tool_ended(&agent, tool_name);
                }
                Inbox::of(self.hub)
                    .answer_hook(&agent, hook, &payload)
                    .await
            }
            None => Ok(json!({})),
        }
    }

    /// The PermissionRequest hook (`POST /api/hooks/permission`): records the event like any hook, then
    /// holds the request open until the user answers it from the app, or it ends some other way. Another
    /// event sent here by mistake is recorded, and answered `{}`.
    pub async fn permission(&self, agent: Option<&str>, body: &[u8]) -> Result<Value, HubError> {
        let payload = Payload::parse(body);
        let agent = self.hook_agent(agent, &payload)?;
        // The request is open before the event is applied, so the status that shows the need carries it
        // (and a notification of it can offer Allow and Deny).
        let held = match payload.usable() {
            Ok(Some(Hook {
                kind: HookKind::PermissionRequest(call),
                ..
            })) => Some(
                self.hub
                    .requests()
                    .hold_request(&agent, call, payload.value.as_ref())?,
            ),
            Ok(_) | Err(_) => None,
        };
        self.record_hook(&agent, &payload).await?;
        payload.usable()?;
        match held {
            Some(held) => self.hub.requests().await_answer(&agent, held).await,
            None => Ok(json!({})),
        }
    }

    /// The Stop hook (`clawmux hook stop`): records the event and decides whether Claude may stop.
    pub async fn stop(&self, agent: &str, body: &[u8]) -> Result<StopVerdict, HubError> {
        let payload = Payload::parse(body);
        self.hub.live(agent)?;
        self.record_hook(agent, &payload).await?;
        match payload.usable()? {
            Some(_) => Inbox::of(self.hub).stop_verdict(agent).await,
            None => Ok(StopVerdict {
                block: false,
                reason: String::new(),
            }),
        }
    }

    /// A hook of an observed session (`POST /api/observe`, from `clawmux hook observe`): the first usable
    /// hook of a session never seen registers it; a stray SessionEnd, or what cannot be used, registers
    /// nothing.
    pub async fn observe(&self, body: &[u8]) -> Result<Value, HubError> {
        let payload = Payload::parse(body);
        if payload.value.is_none() {
            payload.usable()?;
        }
        let (session_id, cwd) = crate::observe::identity(payload.value.as_ref())?;
        let agent = match self.hub.store().observed_agent(session_id).await? {
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
            .and_then(|cwd| self.hub.agent_by_work_dir(cwd))
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
            .hub
            .store()
            .add_observed_agent(&name, cwd, session_id, now())
            .await?;
        self.hub.insert_live(&name, cwd.into());
        self.hub.broadcast(UiEvent::SessionSpawned {
            session: SessionInfo::new(&row.name, &row.work_dir, &row.snapshot, 0),
        });
        tracing::info!(agent = %name, session_id, "observing a Claude Code session");
        Ok(name)
    }

    /// Records a hook's event (the machine steps on it, or records why not) and follows the transcript it
    /// names.
    async fn record_hook(&self, agent: &str, payload: &Payload<'_>) -> Result<(), HubError> {
        self.hub
            .apply(agent, Source::Hook, &payload.event, payload.body)
            .await?;
        self.hub.transcripts().follow(agent, &payload.event);
        Ok(())
    }
}
