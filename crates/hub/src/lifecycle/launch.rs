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
/// The hub's token is never written here. An event newer than the agent's Claude Code (`claude`, its
/// version, if it said one) is left out: it would refuse the settings in part, with a dialog.
/// Long: the settings file Claude Code reads, written as one JSON value.
pub fn settings(
    clawmux: &Path,
    attachments: &Path,
    bash_timeout: std::time::Duration,
    users_status_line: Option<&str>,
    http: Option<HttpHooks<'_>>,
    claude: Option<clawmux_core::hook::version::Version>,
) -> Value {
    let status_line = crate::usage::bridge::setting(clawmux, users_status_line);
    let clawmux = clawmux_core::shell::quote(&clawmux.display().to_string());
    let handler = |relayed: Relayed, timeout: u64| handler(&clawmux, http, relayed, timeout);
    let tool = handler(Relayed::ToolStatus, 10);
    let stop = json!([{ "hooks": [handler(Relayed::Stop, 30)] }]);
    // The user answers a permission, a question or a plan from the app: the hook waits as long as a wait
    // may. At its end Claude Code cancels it with no decision, and the dialog stays in the terminal.
    let permission = json!([{ "matcher": "*", "hooks": [
        handler(Relayed::Permission, bash_timeout.as_secs().max(1)),
    ] }]);
    let hooks: serde_json::Map<String, Value> = HookEvent::ALL
        .into_iter()
        .filter(|event| event.known_by(claude))
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
                | HookEvent::SessionEnd
                | HookEvent::PreSkillShellCommand => {
                    json!([{ "matcher": "*", "hooks": [tool.clone()] }])
                }
            };
            (event.name().to_owned(), group)
        })
        .collect();
    json!({
        "hooks": hooks,
        "statusLine": status_line,
        "env": {
            "BASH_DEFAULT_TIMEOUT_MS": bash_timeout.as_millis().to_string(),
            "BASH_MAX_TIMEOUT_MS": bash_timeout.as_millis().to_string(),
        },
        "permissions": { "allow": allowed(attachments) },
    })
}

/// One hook's handler: a post to the agent's relay where there is one (`http`), else the `clawmux hook`
/// command.
fn handler(clawmux: &str, http: Option<HttpHooks<'_>>, relayed: Relayed, timeout: u64) -> Value {
    match http {
        Some(HttpHooks { port, key }) => json!({
            "type": "http",
            "url": format!("http://127.0.0.1:{port}{}", relayed.path()),
            "headers": { KEY_HEADER: key.as_str() },
            "timeout": timeout,
            "onFailure": ON_FAILURE,
        }),
        None => command(clawmux, relayed, timeout),
    }
}

/// What the agent may do without asking: its own protocol, and read the files the user attaches where
/// the hub keeps them (`//` starts an absolute path in a rule).
fn allowed(attachments: &Path) -> Vec<String> {
    AGENT_PROTOCOL
        .iter()
        .map(|command| format!("Bash({command})"))
        .chain(std::iter::once(format!(
            "Read(/{}/**)",
            attachments.display()
        )))
        .collect()
}

/// What an agent runs of ClawMux's without a permission dialog: its own protocol (the wait, its messages,
/// asks and threads, the board, hand-overs, a lead's answers), each as Claude Code's Bash rule matches it.
pub(crate) const AGENT_PROTOCOL: &[&str] = &[
    "clawmux wait",
    "clawmux send:*",
    "clawmux send *",
    "clawmux ask:*",
    "clawmux ask *",
    "clawmux close:*",
    "clawmux close *",
    "clawmux task:*",
    "clawmux task *",
    "clawmux handover:*",
    "clawmux handover *",
    "clawmux allow:*",
    "clawmux allow *",
    "clawmux deny:*",
    "clawmux deny *",
];

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
        "onFailure": ON_FAILURE,
    })
}

/// What Claude Code does when one of ClawMux's hooks fails (the hub down, the relay refused, the hook
/// timed out): goes on as if no hook had run, for every event. ClawMux's hooks report, and two decide
/// (Stop, PermissionRequest); none must stop the agent because ClawMux cannot be reached: a tool call is
/// never blocked for it, and a PermissionRequest whose relay fails is not allowed either: Claude Code shows
/// its own dialog, in the agent's terminal, as with no hook.
const ON_FAILURE: &str = "continue";

pub use clawmux_core::layout::launch_dir;

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

/// The command line of the agent's pane.
pub fn argv(s: &Start<'_>) -> Vec<String> {
    if s.launch.demo {
        return vec![
            s.clawmux.display().to_string(),
            "demo-agent".to_owned(),
            s.name.to_owned(),
        ];
    }
    // Claude Code runs behind the terminal bridge, which lets it report its state (`clawmux pty`).
    let mut argv = vec![
        s.clawmux.display().to_string(),
        "pty".to_owned(),
        "--".to_owned(),
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

/// The agent's environment (docs/PROTOCOL.md), with `clawmux` first on its PATH and Claude Code's exit
/// hint naming `clawmux restart`.
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
        // The hint Claude Code prints when it exits names ClawMux's way back into the conversation, not
        // a bare `claude --resume` the hub would not follow.
        (
            "CLAUDE_CODE_RESUME_HINT_COMMAND".to_owned(),
            format!("clawmux restart {name}"),
        ),
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
mod tests;
