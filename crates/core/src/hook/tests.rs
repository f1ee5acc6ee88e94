//! Tests of the hook payloads' parsing.

use super::*;

#[test]
fn a_prompt_claude_code_injected_is_never_the_users() {
    let injected = |prompt: &str| {
        let hook = parse_value(&serde_json::json!({
            "hook_event_name": "UserPromptSubmit", "prompt": prompt
        }))
        .unwrap();
        matches!(hook.kind, HookKind::UserPromptSubmit { injected: true })
    };
    for prompt in [
        "<task-notification> task b1 completed",
        "  <wake>\n<message from=\"human\">x</message>",
        "<wake reason=\"schedule\">check the build</wake>",
        "<skill-watcher-idle-wake> skills changed",
    ] {
        assert!(injected(prompt), "{prompt}");
    }
    for prompt in [
        "wake me at noon",
        "<wakeful> is a word",
        "please run <task-notification>",
    ] {
        assert!(!injected(prompt), "{prompt}");
    }
}

#[test]
fn every_event_with_a_rule_parses_and_no_other() {
    for event in HookEvent::ALL {
        let body = format!(
            r#"{{"hook_event_name":"{event}","tool_name":"Read","tool_input":{{}},"stop_hook_active":false}}"#
        );
        let hook = parse(body.as_bytes()).unwrap();
        assert_eq!(hook.event(), event);
        assert_eq!(HookEvent::from_name(event.name()), Some(event));
    }
    for unruled in ["PostCompact", "SubagentStart", "SubagentStop"] {
        assert_eq!(
            parse(format!(r#"{{"hook_event_name":"{unruled}"}}"#).as_bytes()).unwrap_err(),
            HookError::UnknownEvent(unruled.to_owned())
        );
    }
}

/// As 2.1.332 sends it, from a skill the model loaded.
#[test]
fn a_skills_shell_command_is_read() {
    let hook = parse(br#"{"session_id":"s","cwd":"/w","hook_event_name":"PreSkillShellCommand","tool_name":"Bash","tool_input":{"command":"echo build-fine"},"tool_use_id":"toolu_1:preamble-0","command_name":"check","command_source":"projectSettings","invoked_by":"claude"}"#).unwrap();
    assert_eq!(hook.name(), "PreSkillShellCommand");
    assert_eq!(
        hook.kind,
        HookKind::SkillShell {
            skill: "check".into(),
            command: "echo build-fine".into()
        }
    );
    assert_eq!(
        parse(br#"{"hook_event_name":"PreSkillShellCommand","tool_input":"ls"}"#).unwrap_err(),
        HookError::WrongType {
            field: "tool_input",
            expected: "an object"
        }
    );
}

#[test]
fn pre_tool_use_keeps_tool_call() {
    let hook = parse(br#"{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/w","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"toolu_1"}"#).unwrap();
    assert_eq!(hook.name(), "PreToolUse");
    assert_eq!(hook.cwd.as_deref(), Some("/w"));
    let HookKind::PreToolUse(call) = hook.kind else {
        panic!("wrong kind")
    };
    assert_eq!(call.name, "Bash");
    assert_eq!(call.id.as_deref(), Some("toolu_1"));
}

#[test]
fn bad_payloads_get_typed_errors() {
    assert!(matches!(parse(b"{nope"), Err(HookError::NotJson(_))));
    assert_eq!(parse(b"[1]"), Err(HookError::NotAnObject));
    assert_eq!(
        parse(b"{}"),
        Err(HookError::MissingField("hook_event_name"))
    );
    assert_eq!(
        parse(br#"{"hook_event_name":"PreToolUse"}"#),
        Err(HookError::MissingField("tool_name"))
    );
    assert_eq!(
        parse(br#"{"hook_event_name":7}"#),
        Err(HookError::WrongType {
            field: "hook_event_name",
            expected: "a string"
        })
    );
    assert_eq!(
        parse(br#"{"hook_event_name":"Stop","stop_hook_active":"yes"}"#),
        Err(HookError::WrongType {
            field: "stop_hook_active",
            expected: "a boolean"
        })
    );
    assert_eq!(
        parse(br#"{"hook_event_name":"TeammateIdle"}"#),
        Err(HookError::UnknownEvent("TeammateIdle".into()))
    );
}
