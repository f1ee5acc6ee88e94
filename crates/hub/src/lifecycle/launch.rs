//! What starting an agent writes and runs: its first prompt, its Claude Code settings, its command line
//! and its environment (its instructions are `instructions.rs`). Pure functions of the spawn request, so
//! each is tested without a process.

use std::path::{Path, PathBuf};

use clawmux_core::hook::relay::{HookKey, Relayed, KEY_HEADER};
use clawmux_core::wire::MsgId;
use clawmux_core::HookEvent;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::flags::{Effort, PermissionMode};
use crate::ui_event::LaunchKind;
use crate::worktree::spec::WorktreeSpec;

/// How the hub starts an agent, stored with it so a restart (of the agent or of the app) runs the same.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Launch {
    /// Claude Code's executable (absolute), or `clawmux` itself for the demo agent.
    pub program: PathBuf,
    /// Extra flags for Claude Code.
    #[serde(default)]
    pub args: Vec<String>,
    /// `--model`.
    pub model: Option<String>,
    /// `--effort`: how hard the model thinks; none: Claude Code's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<Effort>,
    /// The built-in demo agent rather than Claude Code.
    #[serde(default)]
    pub demo: bool,
    /// Claude Code's permission mode (`--permission-mode`); Claude Code's own default when not given.
    #[serde(default)]
    pub permission_mode: Option<PermissionMode>,
    /// The agent's own worktree, if it has one: its work folder is then that worktree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<WorktreeSpec>,
}

impl Launch {
    /// How the sidebar names what runs: Claude Code, or the demo agent.
    pub fn kind(&self) -> LaunchKind {
        if self.demo {
            LaunchKind::Demo
        } else {
            LaunchKind::Claude
        }
    }
}

/// How long Claude Code lets one Bash call run by default (its `BASH_DEFAULT_TIMEOUT_MS` and
/// `BASH_MAX_TIMEOUT_MS`): a day. At its timeout, Claude Code moves the call to the background and calls
/// the model again to run a new `clawmux wait`: with its own default, an idle agent would cost model turns
/// every few minutes.
pub const BASH_TIMEOUT_MS: u64 = 24 * 60 * 60 * 1000;

/// How an agent's Claude conversation begins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Begin<'a> {
    /// A new conversation, under this id.
    Fresh(&'a str),
    /// This conversation continued: the user restarted the agent.
    Resumed(&'a str),
    /// This conversation continued after the machine or ClawMux stopped while the agent ran: what it was
    /// doing was cut off, and it is told so, with the id of the last message it was handed (Claude Code
    /// may not have written it to the conversation before it stopped; ids only: a command line is
    /// readable by every local user).
    AfterInterruption(&'a str, Option<&'a MsgId>),
}

impl<'a> Begin<'a> {
    /// The conversation's id.
    pub fn session(self) -> &'a str {
        match self {
            Begin::Fresh(s) | Begin::Resumed(s) | Begin::AfterInterruption(s, _) => s,
        }
    }

    /// Whether an earlier conversation continues.
    pub fn resumes(self) -> bool {
        !matches!(self, Begin::Fresh(_))
    }
}

/// The first prompt: Claude Code does nothing until it has one.
pub fn first_prompt(name: &str, begin: Begin<'_>) -> String {
    match begin {
        Begin::Fresh(_) => format!(
            "You are `{name}`. Read CLAUDE.md, then run `clawmux wait` for the user's first message."
        ),
        Begin::Resumed(_) => format!(
            "You are `{name}`; ClawMux restarted you. Run `clawmux wait` now for the user's next message."
        ),
        Begin::AfterInterruption(_, last) => {
            let last = last.map_or_else(String::new, |id| {
                format!(
                    " The last message you were handed was {id}: if this conversation does not show it, \
                     it was lost in the interruption, so ask the user to say it again."
                )
            });
            format!(
                "You are `{name}`. The machine or ClawMux stopped while you were running, and ClawMux \
                 has resumed you: anything you were doing was cut off.{last} If a task was under way, \
                 check where it stands and tell the user in one `clawmux send --to user` message; then \
                 run `clawmux wait`."
            )
        }
    }
}

/// Where an agent's Claude Code posts its hooks: its relay's port, with its key.
#[derive(Debug, Clone, Copy)]
pub struct HttpHooks<'a> {
    /// The relay's loopback port.
    pub port: u16,
    /// The agent's hook key.
    pub key: &'a HookKey,
}

/// The per-agent Claude Code settings: the hooks of the protocol, the status line that reports usage
/// (chaining `users_status_line`, the user's own), a day for a Bash call, and permission for the `clawmux`
/// commands the agent lives on. With `http`, every hook Claude Code lets post to a URL posts to the
/// agent's relay with the agent's key (no process per hook); SessionStart, which must be a command, and
/// every hook without `http` are `clawmux hook` commands, which need no key on the hub's private socket.
/// The hub's token is never written here.
/// Long: the settings file Claude Code reads, written as one JSON value.
pub fn settings(
    clawmux: &Path,
    attachments: &Path,
    bash_timeout: std::time::Duration,
    users_status_line: Option<&str>,
    http: Option<HttpHooks<'_>>,
) -> Value {
    let bash_timeout_ms = bash_timeout.as_millis().to_string();
    let status_line = crate::usage::bridge::setting(clawmux, users_status_line);
    let clawmux = clawmux_core::shell::quote(&clawmux.display().to_string());
    // One handler: a post to the relay where there is one, else the `clawmux hook` command.
    let handler = |relayed: Relayed, timeout: u64| match http {
        Some(HttpHooks { port, key }) => json!({
            "type": "http",
            "url": format!("http://127.0.0.1:{port}{}", relayed.path()),
            "headers": { KEY_HEADER: key.as_str() },
            "timeout": timeout,
        }),
        None => command(&clawmux, relayed, timeout),
    };
    let tool = handler(Relayed::ToolStatus, 10);
    let stop = json!([{ "hooks": [handler(Relayed::Stop, 30)] }]);
    // The user answers a permission, a question or a plan from the app: the hook waits as long as a wait
    // may. At its end Claude Code cancels it with no decision, and the dialog stays in the terminal.
    let permission = json!([{ "matcher": "*", "hooks": [
        handler(Relayed::Permission, bash_timeout.as_secs().max(1)),
    ] }]);
    let hooks: serde_json::Map<String, Value> = HookEvent::ALL
        .into_iter()
        .map(|event| {
            // Stop's hook decides whether Claude may stop and PermissionRequest's carries the user's
            // answer; every other event only reports. SessionStart can only be a command.
            let group = match event {
                HookEvent::Stop => stop.clone(),
                HookEvent::PermissionRequest => permission.clone(),
                HookEvent::SessionStart => json!([{ "matcher": "*", "hooks": [
                    command(&clawmux, Relayed::ToolStatus, 10),
                ] }]),
                HookEvent::UserPromptSubmit
                | HookEvent::PreToolUse
                | HookEvent::PostToolUse
                | HookEvent::PostToolUseFailure
                | HookEvent::PreCompact
                | HookEvent::Notification
                | HookEvent::StopFailure
                | HookEvent::SessionEnd => json!([{ "matcher": "*", "hooks": [tool.clone()] }]),
            };
            (event.name().to_owned(), group)
        })
        .collect();
    json!({
        "hooks": hooks,
        "statusLine": status_line,
        "env": {
            "BASH_DEFAULT_TIMEOUT_MS": bash_timeout_ms,
            "BASH_MAX_TIMEOUT_MS": bash_timeout_ms,
        },
        "permissions": {
            "allow": [
                "Bash(clawmux wait)",
                "Bash(clawmux send:*)",
                "Bash(clawmux send *)",
                // The files the user attaches, which the agent reads where the hub keeps them (`//`
                // starts an absolute path in a rule).
                format!("Read(/{}/**)", attachments.display()),
            ],
        },
    })
}

/// The command-form handler of a hook: `clawmux hook tool-status|permission|stop`.
fn command(clawmux: &str, relayed: Relayed, timeout: u64) -> Value {
    let which = match relayed {
        Relayed::ToolStatus => "tool-status",
        Relayed::Permission => "permission",
        Relayed::Stop => "stop",
    };
    json!({
        "type": "command",
        "command": format!("{clawmux} hook {which}"),
        "timeout": timeout,
    })
}

pub use clawmux_core::layout::launch_dir;

/// The PID file of agent `name`'s `clawmux wait` under way: in its launch folder, out of its work folder
/// (where git would see it).
pub fn pid_file(data_dir: &Path, name: &str) -> PathBuf {
    launch_dir(data_dir, name).join("waiting")
}

/// The demo agent's transcript, likewise out of its work folder.
pub fn demo_transcript(data_dir: &Path, name: &str) -> PathBuf {
    launch_dir(data_dir, name).join("demo-transcript.jsonl")
}

/// What a start runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Start<'a> {
    /// The agent.
    pub name: &'a str,
    /// How.
    pub launch: &'a Launch,
    /// The settings file.
    pub settings: &'a Path,
    /// Claude Code's conversation, and how it begins.
    pub begin: Begin<'a>,
    /// The instructions, when they cannot be the folder's CLAUDE.md.
    pub append_prompt: Option<&'a str>,
    /// The `clawmux` binary (the demo agent is a mode of it).
    pub clawmux: &'a Path,
}

/// The command line.
pub fn argv(s: &Start<'_>) -> Vec<String> {
    if s.launch.demo {
        return vec![
            s.clawmux.display().to_string(),
            "demo-agent".to_owned(),
            s.name.to_owned(),
        ];
    }
    let mut argv = vec![
        s.launch.program.display().to_string(),
        "--settings".to_owned(),
        s.settings.display().to_string(),
    ];
    argv.push(
        if s.begin.resumes() {
            "--resume"
        } else {
            "--session-id"
        }
        .to_owned(),
    );
    argv.push(s.begin.session().to_owned());
    // A resumed conversation goes on in the model it last ran (one the account may not be able to use,
    // switched away from since): the model the user chose is named either way, Claude Code's own
    // default by its alias.
    match (&s.launch.model, s.begin.resumes()) {
        (Some(model), _) => argv.extend(["--model".to_owned(), model.clone()]),
        (None, true) => argv.extend(["--model".to_owned(), DEFAULT_MODEL.to_owned()]),
        (None, false) => {}
    }
    if let Some(effort) = s.launch.effort {
        argv.push("--effort".to_owned());
        argv.push(effort.as_str().to_owned());
    }
    if let Some(mode) = s.launch.permission_mode {
        argv.push("--permission-mode".to_owned());
        argv.push(mode.as_str().to_owned());
    }
    if let Some(prompt) = s.append_prompt {
        argv.push("--append-system-prompt".to_owned());
        argv.push(prompt.to_owned());
    }
    argv.extend(s.launch.args.iter().cloned());
    argv.push(first_prompt(s.name, s.begin));
    argv
}

/// Claude Code's alias for its own default model (the account's recommended one).
const DEFAULT_MODEL: &str = "default";

/// The agent's environment (docs/PROTOCOL.md), with `clawmux` first on its PATH.
pub fn env(
    name: &str,
    port: u16,
    work_dir: &Path,
    data_dir: &Path,
    clawmux: &Path,
) -> Vec<(String, String)> {
    let mut path = clawmux
        .parent()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    if let Some(rest) = std::env::var_os("PATH") {
        path.push(':');
        path.push_str(&rest.to_string_lossy());
    }
    vec![
        ("CLAWMUX_SESSION_ID".to_owned(), name.to_owned()),
        ("CLAWMUX_PORT".to_owned(), port.to_string()),
        (
            "CLAWMUX_WORK_DIR".to_owned(),
            work_dir.display().to_string(),
        ),
        ("CLAWMUX_HOME".to_owned(), data_dir.display().to_string()),
        ("PATH".to_owned(), path),
    ]
}

/// Finds `program` as the shell would: a path with a `/` as given, else the first executable on `PATH`.
pub fn resolve_program(program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| {
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        let p = std::path::absolute(program).ok()?;
        return executable(&p).then_some(p);
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|p| executable(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lifecycle::flags::{check_model, Effort, PermissionMode};
    use crate::lifecycle::instructions::{instructions, instructions_ours};

    #[test]
    fn settings_hold_every_hook_and_no_token() {
        let s = settings(
            Path::new("/opt/claw mux/clawmux"),
            Path::new("/home/u/.clawmux/attachments"),
            std::time::Duration::from_millis(BASH_TIMEOUT_MS),
            None,
            None,
        );
        assert_eq!(
            s["statusLine"]["command"],
            "'/opt/claw mux/clawmux' statusline"
        );
        let hooks = s["hooks"].as_object().unwrap();
        // Every event with a rule is subscribed, and nothing else.
        assert_eq!(hooks.len(), HookEvent::ALL.len());
        let reporting =
            |e: &HookEvent| !matches!(e, HookEvent::Stop | HookEvent::PermissionRequest);
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
        // A wait may block for a day before Claude Code moves it to the background (and the model is
        // called again); the instructions ask for no timeout of their own, which would be the smaller.
        assert_eq!(s["env"]["BASH_DEFAULT_TIMEOUT_MS"], "86400000");
        assert_eq!(s["env"]["BASH_MAX_TIMEOUT_MS"], "86400000");
        assert!(instructions("sky").contains("no timeout"));
        // The attached files are read without a permission dialog, and nothing else is added.
        assert_eq!(
            s["permissions"]["allow"][3],
            "Read(//home/u/.clawmux/attachments/**)"
        );
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
}
