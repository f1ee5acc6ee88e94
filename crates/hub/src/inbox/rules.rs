//! The inbox's rules, as pure functions of what a hook says and what the hub found: which hook may carry
//! the messages to Claude, which one says a backgrounded `clawmux wait` has returned, and what the Stop
//! hook answers. Unit-tested here with no hub; `inbox/mod.rs` applies them under the agent's locks.

use clawmux_core::hook::HookKind;
use clawmux_core::wire::{agent_line, Message, StopVerdict};
use clawmux_core::Hook;
use serde_json::Value;

/// Whether a Bash tool's input runs `clawmux wait`.
fn runs_wait(tool_name: &str, input: Option<&Value>) -> bool {
    tool_name == "Bash"
        && input
            .and_then(|i| i.get("command"))
            .and_then(Value::as_str)
            .is_some_and(|c| {
                c.split(['&', ';', '|', '\n'])
                    .any(|part| part.trim().starts_with("clawmux wait"))
            })
}

/// Whether a tool call is the agent entering `clawmux wait`.
fn is_wait_call(hook: &Hook) -> bool {
    matches!(&hook.kind, HookKind::PreToolUse(call) if runs_wait(&call.name, Some(&call.input)))
}

/// Whether a hook says that the agent's Bash call running `clawmux wait` has returned (its payload holds
/// the call's input).
pub(crate) fn wait_call_returned(hook: &Hook, payload: Option<&Value>) -> bool {
    hook.subagent.is_none()
        && match &hook.kind {
            HookKind::PostToolUse { tool_name, .. }
            | HookKind::PostToolUseFailure { tool_name, .. } => {
                runs_wait(tool_name, payload.and_then(|p| p.get("tool_input")))
            }
            HookKind::SessionStart { .. }
            | HookKind::PreToolUse(_)
            | HookKind::PreCompact { .. }
            | HookKind::Stop { .. }
            | HookKind::Notification { .. }
            | HookKind::PermissionRequest(_)
            | HookKind::UserPromptSubmit { .. }
            | HookKind::StopFailure { .. }
            | HookKind::SessionEnd { .. }
            | HookKind::SkillShell { .. } => false,
        }
}

/// Whether the answer to this hook may carry the inbox to Claude (as additionalContext).
pub(crate) fn may_hand_over(hook: &Hook) -> bool {
    // A subagent's context is not the agent's: a message handed over there would never reach it.
    hook.subagent.is_none()
        && match &hook.kind {
            HookKind::PreToolUse(_) => !is_wait_call(hook),
            HookKind::PostToolUse { .. } => true,
            HookKind::SessionStart { .. }
            | HookKind::PostToolUseFailure { .. }
            | HookKind::PreCompact { .. }
            | HookKind::Stop { .. }
            | HookKind::Notification { .. }
            | HookKind::PermissionRequest(_)
            | HookKind::UserPromptSubmit { .. }
            | HookKind::StopFailure { .. }
            | HookKind::SessionEnd { .. }
            | HookKind::SkillShell { .. } => false,
        }
}

/// What the Stop hook answers: Claude first answers what a hook handed it (`owes_answer`); messages taken
/// now go to it; with a wait connected it may stop; otherwise it must run `clawmux wait`.
pub(crate) fn stop_verdict(owes_answer: bool, taken: &[Message], waiting: bool) -> StopVerdict {
    let block = |reason: String| StopVerdict {
        block: true,
        reason,
    };
    if owes_answer {
        return block(
            "You were handed new message(s) during your last tool calls (see the hook context). \
             Answer them with `clawmux send` now, then run `clawmux wait`."
                .to_owned(),
        );
    }
    if !taken.is_empty() {
        let lines: Vec<String> = taken.iter().map(agent_line).collect();
        return block(format!(
            "You have {} new message(s):\n{}",
            taken.len(),
            lines.join("\n")
        ));
    }
    if waiting {
        return StopVerdict {
            block: false,
            reason: String::new(),
        };
    }
    block(
        "You have no new messages. Run `clawmux wait` to wait for the next one; \
         never end your turn without it."
            .to_owned(),
    )
}

#[cfg(test)]
mod tests {
    use clawmux_core::hook::parse_value;
    use clawmux_core::wire::{Kind, MsgId};
    use clawmux_core::Millis;
    use serde_json::json;

    use super::*;

    fn hook(payload: Value) -> Hook {
        parse_value(&payload).unwrap()
    }

    fn pre(tool: &str, input: Value) -> Hook {
        hook(
            json!({"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input, "tool_use_id": "t"}),
        )
    }

    #[test]
    fn a_wait_is_a_bash_call_whose_command_starts_with_clawmux_wait() {
        assert!(runs_wait("Bash", Some(&json!({"command": "clawmux wait"}))));
        assert!(runs_wait(
            "Bash",
            Some(&json!({"command": "cd /w && clawmux wait --timeout 5"}))
        ));
        assert!(!runs_wait(
            "Bash",
            Some(&json!({"command": "echo clawmux wait"}))
        ));
        assert!(!runs_wait(
            "Read",
            Some(&json!({"command": "clawmux wait"}))
        ));
        assert!(!runs_wait("Bash", None));
    }

    #[test]
    fn only_the_agents_own_tool_hooks_may_carry_its_messages_and_never_into_a_wait() {
        assert!(may_hand_over(&pre("Read", json!({"file_path": "/x"}))));
        assert!(
            !may_hand_over(&pre("Bash", json!({"command": "clawmux wait"}))),
            "the wait itself would then block with the message taken"
        );
        assert!(may_hand_over(&hook(
            json!({"hook_event_name": "PostToolUse", "tool_name": "Read", "tool_use_id": "t"})
        )));
        let mut subagent = json!({"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {}, "tool_use_id": "t"});
        subagent["agent_id"] = json!("sub-1");
        assert!(
            !may_hand_over(&hook(subagent)),
            "a subagent's context is not the agent's"
        );
        assert!(!may_hand_over(&hook(json!({"hook_event_name": "Stop"}))));
    }

    #[test]
    fn the_end_of_a_wait_call_is_seen_in_its_post_tool_hook() {
        let input = json!({"command": "clawmux wait"});
        let post = hook(
            json!({"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": input, "tool_use_id": "t"}),
        );
        let payload = json!({"tool_input": input});
        assert!(wait_call_returned(&post, Some(&payload)));
        assert!(!wait_call_returned(
            &post,
            Some(&json!({"tool_input": {"command": "ls"}}))
        ));
        assert!(
            !wait_call_returned(&post, None),
            "no payload, no input to look at"
        );
        assert!(!wait_call_returned(&pre("Bash", input), Some(&payload)));
    }

    fn message(n: i64, text: &str) -> Message {
        Message {
            seq: n,
            id: MsgId::parse(&format!("msg-{n:08x}")).unwrap(),
            agent: "sky".to_owned(),
            kind: Kind::User,
            sender: "user".to_owned(),
            recipient: Some("sky".to_owned()),
            text: text.to_owned(),
            parent: None,
            voice: false,
            aloud: false,
            attachments: Vec::new(),
            at: Millis(0),
        }
    }

    #[test]
    fn stop_answers_what_was_handed_first_then_gives_the_messages_then_lets_a_waiting_agent_go() {
        let taken = [message(1, "hi"), message(2, "and this")];
        let owes = stop_verdict(true, &taken, true);
        assert!(
            owes.block && owes.reason.contains("Answer them with `clawmux send`"),
            "{owes:?}"
        );
        let given = stop_verdict(false, &taken, true);
        assert!(given.block);
        assert_eq!(
            given.reason,
            "You have 2 new message(s):\n[MSG id:msg-00000001 from:user] hi\n[MSG id:msg-00000002 from:user] and this"
        );
        assert_eq!(
            stop_verdict(false, &[], true),
            StopVerdict {
                block: false,
                reason: String::new()
            }
        );
        let idle = stop_verdict(false, &[], false);
        assert!(
            idle.block && idle.reason.contains("Run `clawmux wait`"),
            "{idle:?}"
        );
    }
}
