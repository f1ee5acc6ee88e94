//! The "needs you" overlay as the machine steps it: what raises a need and what ends it, one arm per
//! event (the overlay itself, and why it is kept apart from the five states: `attention.rs`).

use crate::activity;
use crate::attention::{Attention, AttentionChange, Need, RATE_LIMIT};
use crate::event::Event;
use crate::hook::HookKind;
use crate::state::Snapshot;
use crate::time::Millis;
use crate::transcript::Entry;

/// How an applied event changes the "needs you" overlay (see `attention.rs`).
/// Long: the table of what raises and what ends a need, one arm per event.
pub(super) fn overlay(current: &Snapshot, event: &Event, at: Millis) -> Option<AttentionChange> {
    let now = current.attention.as_ref();
    let clear_if = |wanted: fn(Need) -> bool| {
        now.filter(|a| wanted(a.need))
            .map(|a| AttentionChange::Cleared { need: a.need })
    };
    let any = |_: Need| true;
    let waiting = Need::is_waiting;
    let error = Need::is_failure;
    match event {
        // The agent is gone, new or interrupted: it waits for nothing else.
        Event::Spawned | Event::Terminated | Event::Interrupted => clear_if(any),
        // In `clawmux wait`, the agent waits for no dialog; a message it could not deliver is still the
        // user's to decide.
        Event::WaitConnected => clear_if(|n| n != Need::Undelivered),
        // Never over a dialog or a failed turn, which the user meets first.
        Event::Undelivered(u) => now.is_none_or(|a| a.need == Need::Undelivered).then(|| {
            AttentionChange::Set(Attention {
                need: Need::Undelivered,
                reason: u.reason.clone(),
                tool_use_id: None,
                tool_name: None,
                since: at,
                notice: true,
            })
        }),
        Event::WaitDisconnected | Event::Rejected { .. } | Event::SecondOpinion(_) => None,
        Event::Dismissed => now
            .filter(|a| a.notice)
            .map(|a| AttentionChange::Cleared { need: a.need }),
        // Answered from the app: the dialog is over, whatever the tool it let run does next.
        Event::Answered => clear_if(waiting),
        Event::Transcript(Entry::Interrupted) => clear_if(waiting),
        Event::Transcript(Entry::ToolResult { tool_use_id, .. }) => now
            .filter(|a| a.need.is_waiting() && a.tool_use_id.as_deref() == Some(tool_use_id))
            .map(|a| AttentionChange::Cleared { need: a.need }),
        Event::Hook(hook) => match &hook.kind {
            HookKind::PermissionRequest(call) => {
                let borrowed = current
                    .last_tool
                    .as_ref()
                    .filter(|t| t.name == call.name)
                    .and_then(|t| t.id.clone());
                let need = Need::for_tool(&call.name);
                let reason = match need {
                    Need::PlanApproval => "Plan approval".to_owned(),
                    Need::Answer => "Question".to_owned(),
                    Need::Permission | Need::Error | Need::RateLimited | Need::Undelivered => {
                        format!(
                            "Permission: {}",
                            activity::describe(call, hook.cwd.as_deref())
                        )
                    }
                };
                Some(AttentionChange::Set(Attention {
                    need,
                    reason,
                    tool_use_id: borrowed,
                    tool_name: Some(call.name.clone()),
                    since: at,
                    notice: false,
                }))
            }
            HookKind::PostToolUse {
                tool_name,
                tool_use_id,
            }
            | HookKind::PostToolUseFailure {
                tool_name,
                tool_use_id,
            } => now
                .filter(|a| {
                    a.need.is_waiting() && ends_the_wait(a, tool_name, tool_use_id.as_deref())
                })
                .map(|a| AttentionChange::Cleared { need: a.need }),
            HookKind::UserPromptSubmit { injected: false } | HookKind::SessionEnd { .. } => {
                clear_if(any)
            }
            // The turn is over; a message the agent could not deliver is not.
            HookKind::Stop { .. } => clear_if(|n| n != Need::Undelivered),
            HookKind::PreToolUse(_) | HookKind::SkillShell { .. } => clear_if(error),
            HookKind::StopFailure { error, details } => Some(AttentionChange::Set(Attention {
                need: if error == RATE_LIMIT {
                    Need::RateLimited
                } else {
                    Need::Error
                },
                reason: match details.as_deref().map(str::trim) {
                    // Claude Code's own words say which limit and when it resets.
                    Some(d) if !d.is_empty() && error == RATE_LIMIT => d.to_owned(),
                    Some(d) if !d.is_empty() => format!("{error}: {d}"),
                    _ if error == RATE_LIMIT => "Usage limit reached".to_owned(),
                    Some(_) | None => error.clone(),
                },
                tool_use_id: None,
                tool_name: None,
                since: at,
                notice: false,
            })),
            HookKind::Notification { message, kind }
                if now.is_none() && hook.subagent.is_none() =>
            {
                dialog_notice(current, message, kind.as_deref(), at)
            }
            HookKind::UserPromptSubmit { injected: true }
            | HookKind::SessionStart { .. }
            | HookKind::PreCompact { .. }
            | HookKind::Notification { .. } => None,
        },
    }
}

/// Some approval dialogs fire no PermissionRequest, only a notice (auto mode when its check cannot be
/// reached): the user is needed all the same, until the turn goes on.
fn dialog_notice(
    current: &Snapshot,
    message: &str,
    kind: Option<&str>,
    at: Millis,
) -> Option<AttentionChange> {
    if !matches!(kind, Some("permission_prompt" | "agent_needs_input")) {
        return None;
    }
    Some(AttentionChange::Set(Attention {
        need: Need::Permission,
        reason: if message.trim().is_empty() {
            "Claude Code waits for you in its terminal".to_owned()
        } else {
            message.trim().to_owned()
        },
        tool_use_id: current.last_tool.as_ref().and_then(|t| t.id.clone()),
        tool_name: current.last_tool.as_ref().map(|t| t.name.clone()),
        since: at,
        notice: true,
    }))
}

/// Whether a PostToolUse(Failure) ends a wait: its tool_use_id when the wait borrowed one, else its tool.
fn ends_the_wait(waiting: &Attention, tool_name: &str, tool_use_id: Option<&str>) -> bool {
    match waiting.tool_use_id.as_deref() {
        Some(id) => tool_use_id == Some(id),
        None => waiting.tool_name.as_deref() == Some(tool_name),
    }
}
