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
//! for the user (`asks/`), the Stop verdict (`inbox/rules.rs`), registering an observed session (`observe.rs`),
//! a wake-up Claude Code would fire only at its prompt (`wakeup.rs`).

use clawmux_core::hook::HookKind;
use clawmux_core::wire::{Code, StopVerdict};
use clawmux_core::{Hook, Source};
use serde_json::{json, Value};

pub(crate) mod payload;
mod wakeup;

use crate::asks::Requests;
use crate::clock::now;
use crate::error::HubError;
use crate::inbox::Inbox;
use crate::states::States;
use crate::transcript::Transcripts;
use crate::ui_event::{SessionInfo, UiEvent};
use crate::worktree::Worktrees;
pub(crate) use payload::Payload;

/// The four hooks Claude Code runs, received in one place: each payload parsed once, recorded always, and
/// what cannot be used answered alike. Made once when the hub opens, with the features a hook reaches.
#[derive(Clone)]
pub struct Hooks {
    states: States,
    inbox: Inbox,
    requests: Requests,
    transcripts: Transcripts,
    worktrees: Worktrees,
    /// Told of each request opened, for the member's lead.
    leads: crate::lead::Leads,
    /// Claude Code's wake-ups, which it fires only at a prompt an agent in its wait never reaches.
    wakeups: wakeup::Wakeups,
}

impl Hooks {
    /// The hooks, recorded in `states` and carried on to the features they concern.
    pub(crate) fn new(
        states: States,
        inbox: Inbox,
        requests: Requests,
        transcripts: Transcripts,
        worktrees: Worktrees,
        leads: crate::lead::Leads,
        tasks: crate::tasks::Tasks,
    ) -> Hooks {
        Hooks {
            wakeups: wakeup::Wakeups::new(states.agents().clone(), tasks),
            states,
            inbox,
            requests,
            transcripts,
            worktrees,
            leads,
        }
    }

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
                    self.worktrees.tool_ended(&agent, tool_name);
                }
                if let (HookKind::PostToolUse { tool_name, .. }, Some(value)) =
                    (&hook.kind, payload.value.as_ref())
                {
                    if tool_name == wakeup::TOOL && hook.subagent.is_none() {
                        self.wakeups.scheduled(&agent, value);
                    }
                }
                self.inbox
                    .answer_hook(&agent, hook, payload.value.as_ref())
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
                self.requests
                    .hold_request(&agent, call, payload.value.as_ref())?,
            ),
            Ok(_) | Err(_) => None,
        };
        self.record_hook(&agent, &payload).await?;
        payload.usable()?;
        match held {
            Some(held) => {
                // The member's lead, if it may allow this, is told: it may answer before the user.
                self.leads.opened(&agent, &held.request).await;
                self.requests.await_answer(&agent, held).await
            }
            None => Ok(json!({})),
        }
    }

    /// The Stop hook (`clawmux hook stop`): records the event and decides whether Claude may stop.
    pub async fn stop(&self, agent: &str, body: &[u8]) -> Result<StopVerdict, HubError> {
        let payload = Payload::parse(body);
        self.states.live(agent)?;
        self.record_hook(agent, &payload).await?;
        match payload.usable()? {
            Some(_) => self.inbox.stop_verdict(agent).await,
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
        let agent = match self.states.store().observed_agent(session_id).await? {
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
            .and_then(|cwd| self.states.agents().working_in(std::path::Path::new(cwd)))
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
            .states
            .store()
            .add_observed_agent(&name, cwd, session_id, now())
            .await?;
        self.states.insert_live(&name, cwd.into());
        self.states.broadcast(UiEvent::SessionSpawned {
            session: SessionInfo::new(&row.name, &row.work_dir, &row.snapshot, 0),
        });
        tracing::info!(agent = %name, session_id, "observing a Claude Code session");
        Ok(name)
    }

    /// Records a hook's event (the machine steps on it, or records why not) and follows the transcript it
    /// names.
    async fn record_hook(&self, agent: &str, payload: &Payload<'_>) -> Result<(), HubError> {
        self.states
            .apply(agent, Source::Hook, &payload.event, payload.body)
            .await?;
        self.transcripts.follow(agent, &payload.event);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::states::fixture::{fixture, Fixture};
    use clawmux_core::State;

    fn hooks(f: &Fixture) -> Hooks {
        let agents = f.states.agents().clone();
        Hooks::new(
            f.states.clone(),
            Inbox::new(f.states.clone()),
            Requests::new(agents.clone(), f.finds.clone()),
            Transcripts::new(
                f.states.clone(),
                f.usage.clone(),
                crate::between::Between::for_tests(f, crate::between::Rules::default()),
                f.finds.clone(),
                std::time::Duration::ZERO,
                crate::tasks::Tasks::default(),
            ),
            Worktrees::new(
                f.states.store().clone(),
                agents.clone(),
                f.dir.path().to_owned(),
                tokio::sync::broadcast::channel(4).0,
                crate::tasks::Tasks::default(),
            ),
            crate::lead::Leads::new(
                f.states.clone(),
                Inbox::new(f.states.clone()),
                Requests::new(agents, f.finds.clone()),
            ),
            crate::tasks::Tasks::default(),
        )
    }

    fn pre_tool(cwd: &str) -> Vec<u8> {
        json!({"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {"file_path": "/x"},
            "tool_use_id": "t", "cwd": cwd})
        .to_string()
        .into_bytes()
    }

    async fn state(f: &Fixture) -> State {
        f.states.store().agent("sky").await.unwrap().snapshot.state
    }

    #[tokio::test]
    async fn a_tool_hook_is_known_by_its_folder_moves_the_agent_and_carries_the_inbox() {
        let f = fixture().await;
        let hooks = hooks(&f);
        // Working, its wait gone: a tool call is its activity.
        for event in [
            clawmux_core::Event::WaitConnected,
            clawmux_core::Event::WaitDisconnected,
        ] {
            f.states
                .apply("sky", Source::Wait, &event, b"")
                .await
                .unwrap();
        }
        crate::inbox::testing::message_for_sky(&f.states, &hooks.inbox, "also lint").await;
        let reply = hooks.tool(None, &pre_tool("/w/sky")).await.unwrap();
        let context = reply["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap();
        assert!(context.contains("also lint"), "{context}");
        let stored = f.states.store().agent("sky").await.unwrap().snapshot;
        assert_eq!(stored.state, State::Processing);
        assert!(stored.activity.contains("Read"), "{}", stored.activity);
        assert_eq!(hooks.inbox.pending("sky").await.unwrap(), 0);
    }

    #[tokio::test]
    async fn what_cannot_be_used_is_refused_alike_and_moves_nothing() {
        let f = fixture().await;
        let hooks = hooks(&f);
        let e = hooks.tool(None, &pre_tool("/elsewhere")).await.unwrap_err();
        assert_eq!(e.code, Code::UnknownAgent);
        let e = hooks.tool(Some("sky"), b"not json").await.unwrap_err();
        assert_eq!(e.code, Code::MalformedJson);
        let e = hooks
            .stop("sky", b"{\"hook_event_name\": 7}")
            .await
            .unwrap_err();
        assert_eq!(e.code, Code::MalformedEvent);
        assert_eq!(state(&f).await, State::Starting);
        // A kind of event ClawMux has no rule for is answered as if nothing had happened.
        let reply = hooks
            .tool(Some("sky"), br#"{"hook_event_name": "FromTheFuture"}"#)
            .await
            .unwrap();
        assert_eq!(reply, json!({}));
        assert_eq!(state(&f).await, State::Starting);
    }

    #[tokio::test]
    async fn an_observed_session_is_registered_by_its_first_usable_hook_once() {
        let mut f = fixture().await;
        let hooks = hooks(&f);
        let start =
            json!({"hook_event_name": "SessionStart", "source": "startup", "session_id": "s-1",
            "cwd": "/w/elsewhere"})
            .to_string();
        hooks.observe(start.as_bytes()).await.unwrap();
        hooks.observe(start.as_bytes()).await.unwrap();
        let spawned = crate::states::fixture::told(&mut f.events)
            .into_iter()
            .filter(|e| matches!(e, UiEvent::SessionSpawned { .. }))
            .count();
        assert_eq!(spawned, 1);
        assert!(f
            .states
            .store()
            .observed_agent("s-1")
            .await
            .unwrap()
            .is_some());
    }
}
