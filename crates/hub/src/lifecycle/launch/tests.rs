//! Tests of `launch.rs`.

use super::*;
use crate::lifecycle::flags::{check_model, Effort, PermissionMode};
use crate::lifecycle::instructions::{instructions, instructions_ours};
use clawmux_api::transport::BASH_TIMEOUT_MS;

/// A Claude Code older than an event, or one that did not say its version, is not given it: it would refuse
/// the settings in part, with a dialog in the agent's terminal.
#[test]
fn an_event_newer_than_the_agents_claude_code_is_left_out() {
    let hooks_of = |claude| {
        let s = settings(
            Path::new("/usr/bin/clawmux"),
            Path::new("/a"),
            std::time::Duration::from_millis(BASH_TIMEOUT_MS),
            None,
            None,
            claude,
        );
        s["hooks"].as_object().unwrap().clone()
    };
    for older in [
        None,
        Some(clawmux_core::hook::version::OLDEST),
        Some([2, 1, 331]),
    ] {
        let hooks = hooks_of(older);
        assert!(!hooks.contains_key("PreSkillShellCommand"), "{older:?}");
        assert_eq!(hooks.len(), HookEvent::ALL.len() - 1, "{older:?}");
    }
    let hooks = hooks_of(Some([2, 1, 332]));
    assert_eq!(
        hooks["PreSkillShellCommand"][0]["hooks"][0]["command"],
        "'/usr/bin/clawmux' hook tool-status"
    );
}

#[test]
fn settings_hold_every_hook_and_no_token() {
    let s = settings(
        Path::new("/opt/claw mux/clawmux"),
        Path::new("/home/u/.clawmux/attachments"),
        std::time::Duration::from_millis(BASH_TIMEOUT_MS),
        None,
        None,
        Some([2, 1, 332]),
    );
    assert_eq!(
        s["statusLine"]["command"],
        "'/opt/claw mux/clawmux' statusline"
    );
    let hooks = s["hooks"].as_object().unwrap();
    // Every event with a rule is subscribed, and nothing else.
    assert_eq!(hooks.len(), HookEvent::ALL.len());
    let reporting = |e: &HookEvent| !matches!(e, HookEvent::Stop | HookEvent::PermissionRequest);
    for event in HookEvent::ALL.into_iter().filter(reporting) {
        let h = &hooks[event.name()][0]["hooks"][0];
        assert_eq!(h["type"], "command", "{event}: no relay, no HTTP hook");
        assert_eq!(h["command"], "'/opt/claw mux/clawmux' hook tool-status");
    }
    assert_eq!(
        hooks["Stop"][0]["hooks"][0]["command"],
        "'/opt/claw mux/clawmux' hook stop"
    );
    let permission = &hooks["PermissionRequest"][0]["hooks"][0];
    assert_eq!(
        permission["command"],
        "'/opt/claw mux/clawmux' hook permission"
    );
    assert_eq!(
        permission["timeout"], 86_400,
        "it waits for the user as long as a wait"
    );
    assert!(!s.to_string().contains("CLAWMUX_TOKEN") && !s.to_string().contains("Bearer"));
    // A hook that fails (the hub down) never stops the agent, nor allows a permission.
    for event in HookEvent::ALL {
        assert_eq!(
            hooks[event.name()][0]["hooks"][0]["onFailure"],
            "continue",
            "{event}"
        );
    }
    // A wait may block for a day before Claude Code moves it to the background (and the model is
    // called again); the instructions ask for no timeout of their own, which would be the smaller.
    assert_eq!(s["env"]["BASH_DEFAULT_TIMEOUT_MS"], "86400000");
    assert_eq!(s["env"]["BASH_MAX_TIMEOUT_MS"], "86400000");
    assert!(instructions("sky").contains("no timeout"));
    // The agent's own protocol and the attached files run without a permission dialog, and nothing else
    // is added.
    let allowed: Vec<&str> = s["permissions"]["allow"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    let (last, protocol) = allowed.split_last().unwrap();
    assert_eq!(*last, "Read(//home/u/.clawmux/attachments/**)");
    assert_eq!(protocol.len(), AGENT_PROTOCOL.len());
    // Every `clawmux` command the instructions tell the agent to run is among them (not a dialog each).
    let told = instructions("sky");
    for said in told.split("`clawmux ").skip(1) {
        let sub = said.split([' ', '`']).next().unwrap();
        assert!(
            protocol
                .iter()
                .any(|r| r.starts_with(&format!("Bash(clawmux {sub}"))),
            "the instructions name `clawmux {sub}`, which would ask permission"
        );
    }
    assert!(instructions("sky").contains("[FILE"));
}

#[test]
fn with_a_relay_every_hook_but_session_start_posts_to_it_with_the_key() {
    let key = HookKey::from_bytes([7; 32]);
    let http = HttpHooks {
        port: 41234,
        key: &key,
    };
    let s = settings(
        Path::new("/usr/bin/clawmux"),
        Path::new("/home/u/.clawmux/attachments"),
        std::time::Duration::from_millis(BASH_TIMEOUT_MS),
        None,
        Some(http),
        Some([2, 1, 332]),
    );
    let hooks = s["hooks"].as_object().unwrap();
    assert_eq!(hooks.len(), HookEvent::ALL.len());
    for event in HookEvent::ALL {
        let h = &hooks[event.name()][0]["hooks"][0];
        if event == HookEvent::SessionStart {
            assert_eq!(
                h["type"], "command",
                "Claude Code runs SessionStart only as a command"
            );
            assert_eq!(h["command"], "'/usr/bin/clawmux' hook tool-status");
            continue;
        }
        let relayed = if event == HookEvent::Stop {
            Relayed::Stop
        } else if event == HookEvent::PermissionRequest {
            Relayed::Permission
        } else {
            Relayed::ToolStatus
        };
        assert_eq!(h["type"], "http", "{event}");
        assert_eq!(
            h["url"],
            format!("http://127.0.0.1:41234{}", relayed.path()),
            "{event}: the relay's port on loopback, never the hub's"
        );
        assert_eq!(h["headers"][KEY_HEADER], key.as_str(), "{event}");
        assert_eq!(
            h["onFailure"], "continue",
            "{event}: the relay down stops nothing"
        );
    }
    assert_eq!(hooks["PermissionRequest"][0]["hooks"][0]["timeout"], 86_400);
    assert!(
        !s.to_string().contains("Bearer"),
        "the hub's token is never written"
    );
}

#[test]
fn model_names_are_checked_before_a_command_line() {
    for fine in [
        "opus",
        "sonnet",
        "claude-sonnet-4-5",
        "opus[1m]",
        "claude-3.5_x",
    ] {
        assert!(check_model(fine).is_ok(), "{fine}");
    }
    for bad in ["", "-p", "a b", "x;rm", &"x".repeat(65), "é"] {
        assert!(check_model(bad).is_err(), "{bad}");
    }
}

#[test]
fn argv_begins_or_resumes_the_conversation() {
    let launch = Launch {
        program: PathBuf::from("/usr/bin/claude"),
        args: vec!["--verbose".to_owned()],
        model: Some("opus".to_owned()),
        effort: Some(Effort::Xhigh),
        demo: false,
        permission_mode: Some(PermissionMode::AcceptEdits),
        worktree: None,
    };
    let mut start = Start {
        name: "sky",
        launch: &launch,
        settings: Path::new("/d/launch/sky/settings.json"),
        begin: Begin::Fresh("0b6f0c3e-0000-4000-8000-000000000000"),
        append_prompt: None,
        clawmux: Path::new("/usr/bin/clawmux"),
    };
    let a = argv(&start);
    assert_eq!(
        a[..3],
        ["/usr/bin/clawmux", "pty", "--"],
        "behind the bridge"
    );
    let a = a[3..].to_vec();
    assert_eq!(
        a[..5],
        [
            "/usr/bin/claude",
            "--settings",
            "/d/launch/sky/settings.json",
            "--session-id",
            "0b6f0c3e-0000-4000-8000-000000000000"
        ]
    );
    assert!(a.windows(2).any(|w| w == ["--model", "opus"]));
    assert!(a.windows(2).any(|w| w == ["--effort", "xhigh"]));
    assert!(a
        .windows(2)
        .any(|w| w == ["--permission-mode", "acceptEdits"]));
    assert!(a.last().unwrap().contains("clawmux wait"));
    start.begin = Begin::Resumed("0b6f0c3e-0000-4000-8000-000000000000");
    assert!(argv(&start).windows(2).any(|w| w[0] == "--resume"));
    assert!(argv(&start).last().unwrap().contains("restarted you"));
    let last = clawmux_core::wire::MsgId::from_u32(0xab);
    start.begin = Begin::AfterInterruption("0b6f0c3e-0000-4000-8000-000000000000", Some(&last));
    let a = argv(&start);
    assert!(a.windows(2).any(|w| w[0] == "--resume"));
    assert!(a.last().unwrap().contains("cut off"), "the agent is told");
    // Claude Code's own default named by its alias when resuming (else the conversation's last
    // model would go on), and not at all for a new conversation.
    let default = Launch {
        model: None,
        ..launch.clone()
    };
    start.launch = &default;
    assert!(argv(&start).windows(2).any(|w| w == ["--model", "default"]));
    start.begin = Begin::Fresh("0b6f0c3e-0000-4000-8000-000000000000");
    assert!(!argv(&start).iter().any(|w| w == "--model"));
    start.launch = &launch;
    assert!(
        a.last()
            .unwrap()
            .contains("msg-000000ab: if this conversation"),
        "and which message it was handed last"
    );
    let demo = Launch {
        demo: true,
        ..launch.clone()
    };
    start.launch = &demo;
    assert_eq!(argv(&start), ["/usr/bin/clawmux", "demo-agent", "sky"]);
}

#[test]
fn a_launch_stored_before_permission_modes_still_reads() {
    let old: Launch = serde_json::from_str(
        r#"{"program":"/usr/bin/claude","args":[],"model":null,"demo":false}"#,
    )
    .unwrap();
    assert_eq!(old.permission_mode, None);
    let mode: Launch = serde_json::from_str(
        r#"{"program":"/c","model":null,"permission_mode":"bypassPermissions"}"#,
    )
    .unwrap();
    assert_eq!(
        mode.permission_mode,
        Some(PermissionMode::BypassPermissions)
    );
}

#[test]
fn a_users_claude_md_is_never_overwritten() {
    assert!(instructions_ours(None));
    assert!(instructions_ours(Some(&instructions("sky"))));
    assert!(!instructions_ours(Some("# My project\n")));
}

#[test]
fn programs_resolve_like_a_shell() {
    assert!(resolve_program("sh").is_some());
    assert!(resolve_program("/bin/sh").is_some());
    assert!(resolve_program("/nonexistent/claude").is_none());
    assert!(resolve_program("no-such-program-here").is_none());
}

#[test]
fn the_exit_hint_names_clawmux_restart_and_clawmux_comes_first_on_the_path() {
    let env = super::env(
        "sky",
        4242,
        Path::new("/w/sky"),
        Path::new("/d"),
        Path::new("/opt/clawmux/bin/clawmux"),
    );
    let get = |k: &str| {
        env.iter()
            .find(|(name, _)| name == k)
            .map(|(_, v)| v.clone())
            .unwrap()
    };
    assert_eq!(
        get("CLAUDE_CODE_RESUME_HINT_COMMAND"),
        "clawmux restart sky"
    );
    assert!(get("PATH").starts_with("/opt/clawmux/bin"));
    assert_eq!(get("CLAWMUX_SESSION_ID"), "sky");
}
