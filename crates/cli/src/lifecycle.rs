//! `clawmux spawn|terminate|restart|resume|interrupt|attach`: a person's commands for real agents. The hub does
//! the work (the same commands the UI runs); `attach` opens the agent's terminal in this one.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::time::Duration;

use clawmux_api::commands;
use clawmux_api::flags::PermissionMode;
use clawmux_api::lifecycle::Preferences;
use clawmux_api::lifecycle::SpawnRequest;
use clawmux_api::session::SessionInfo;

use crate::client::Client;
use crate::env::HubArgs;

/// What `clawmux spawn` asks for.
#[derive(Debug, clap::Args)]
pub struct Spawn {
    /// A plain identifier: letters, digits, `_` and `-`.
    name: String,
    /// Its work folder (default: <data dir>/agents/<name>).
    #[arg(long)]
    work_dir: Option<PathBuf>,
    /// Claude Code's `--model`.
    #[arg(long)]
    model: Option<String>,
    /// The Claude Code executable (default: `claude` on PATH, or the hub's CLAWMUX_CLAUDE).
    #[arg(long)]
    command: Option<String>,
    /// Run the built-in demo agent instead of Claude Code.
    #[arg(long, conflicts_with_all = ["command", "model", "permission_mode"])]
    demo: bool,
    /// Claude Code's permission mode, kept for restarts. bypassPermissions lets the agent do anything
    /// you can, without asking.
    #[arg(long, value_parser = permission_mode)]
    permission_mode: Option<PermissionMode>,
    /// Trust the work folder for Claude Code (it asks at start in a folder it was never trusted with,
    /// and exits unless told yes). A default work folder is trusted without it.
    #[arg(long)]
    trust_folder: bool,
    /// Give the agent a worktree of its own of the repository its work folder is in, on a branch
    /// `clawmux/<name>` (its changes: `clawmux diff NAME`).
    #[arg(long)]
    worktree: bool,
    /// The worktree's base: a branch, tag or commit (default: the branch checked out in the work folder).
    #[arg(long, requires = "worktree")]
    base: Option<String>,
    /// Extra flags for Claude Code, after `--`.
    #[arg(last = true)]
    args: Vec<String>,
    #[command(flatten)]
    hub: HubArgs,
}

/// A permission mode as Claude Code spells it (`default`, `acceptEdits`, `plan`, `auto`,
/// `bypassPermissions`).
fn permission_mode(mode: &str) -> Result<PermissionMode, String> {
    serde_json::from_value(serde_json::Value::String(mode.to_owned()))
        .map_err(|_| "one of default, acceptEdits, plan, auto, bypassPermissions".to_owned())
}

pub fn spawn(s: &Spawn) -> Result<(), String> {
    let client = Client::of(&s.hub, Duration::from_secs(30))?;
    // A relative path is resolved here, where the person typed it, not in the hub's folder; on another
    // machine there is no "here" to resolve it against.
    let absolute = |p: &std::path::Path| match &s.hub.machine {
        Some(m) if p.is_relative() => Err(format!(
            "{} is relative: give the full path of a folder on {m}",
            p.display()
        )),
        Some(_) => Ok(p.to_path_buf()),
        None => std::path::absolute(p).map_err(|e| e.to_string()),
    };
    let work_dir = s
        .work_dir
        .as_deref()
        .map(|d| absolute(d).map_err(|e| format!("bad work folder {}: {e}", d.display())))
        .transpose()?;
    let command = s
        .command
        .as_deref()
        .map(|c| {
            if c.contains('/') {
                absolute(std::path::Path::new(c))
                    .map(|p| p.display().to_string())
                    .map_err(|e| format!("bad command {c}: {e}"))
            } else {
                Ok(c.to_owned())
            }
        })
        .transpose()?;
    let request = SpawnRequest {
        name: s.name.clone(),
        work_dir,
        model: s.model.clone(),
        command,
        args: s.args.clone(),
        demo: s.demo,
        permission_mode: s.permission_mode,
        trust_folder: s.trust_folder,
        worktree: s.worktree,
        base: s.base.clone(),
    };
    // `POST /api/spawn` rather than the `spawn` command: a request's `command` (the executable) would
    // clash with the command's own tag.
    let body = serde_json::to_vec(&request).map_err(|e| e.to_string())?;
    let info: SessionInfo = serde_json::from_value(client.post("/api/spawn", None, &body)?)
        .map_err(|e| format!("the hub's answer to spawn does not read: {e}"))?;
    println!("{} is starting in {}", s.name, info.work_dir);
    println!("its terminal: clawmux attach {}", s.name);
    Ok(())
}

/// `clawmux resume [--all] [--at-start on|off]`: resumes the agents found interrupted at this start,
/// and sets or tells whether the hub does it by itself.
pub fn resume(args: &HubArgs, all: bool, at_start: Option<&str>) -> Result<(), String> {
    let client = Client::of(args, Duration::from_secs(30))?;
    let preferences: Preferences = match at_start {
        Some(on) => client.call(commands::SetPreferences {
            preferences: Preferences {
                resume_agents: on == "on",
            },
        })?,
        None => client.call(commands::Preferences {})?,
    };
    if all {
        let resumed: Vec<String> = client.call(commands::ResumeInterrupted {})?;
        if resumed.is_empty() {
            println!("no agent was interrupted");
        }
        for name in resumed {
            println!("{name}: resuming");
        }
    } else if at_start.is_none() {
        let on = if preferences.resume_agents {
            "on"
        } else {
            "off"
        };
        println!("resuming interrupted agents at start: {on}");
    }
    Ok(())
}

/// What a person does to a running agent.
#[derive(Debug, Clone, Copy)]
pub enum Act {
    /// Ends it.
    Terminate,
    /// Ends it and starts it again as it was started.
    Restart,
    /// Stops its turn (Escape in its terminal).
    Interrupt,
}

/// `terminate`, `restart` or `interrupt`.
pub fn act(args: &HubArgs, name: &str, act: Act) -> Result<(), String> {
    let client = Client::of(args, Duration::from_secs(30))?;
    let session_id = name.to_owned();
    let info: Option<SessionInfo> = match act {
        Act::Terminate => Some(client.call(commands::Terminate { session_id })?),
        Act::Restart => Some(client.call(commands::Restart { session_id })?),
        Act::Interrupt => {
            client.call(commands::Interrupt { session_id })?;
            None
        }
    };
    match info {
        Some(info) => println!("{name}: {}", info.state),
        None => println!("{name}: done"),
    }
    Ok(())
}

/// Replaces this process with `tmux attach` to the agent's session on the hub's tmux server.
pub fn attach(args: &HubArgs, name: &str) -> Result<(), String> {
    if let Some(machine) = &args.machine {
        // There, by the user's own ssh, with a terminal: the agent's tmux is that machine's.
        return Err(
            crate::dial::Dial::to(&args.data_dir(), machine, crate::client::MAX_ANSWER)?
                .attach(name),
        );
    }
    let data_dir = args
        .data_dir
        .clone()
        .unwrap_or_else(clawmux_core::layout::default_data_dir);
    let socket = data_dir.join(clawmux_core::layout::TMUX_SOCKET_FILE);
    let tmux =
        std::env::var_os("CLAWMUX_TMUX").map_or_else(|| PathBuf::from("tmux"), PathBuf::from);
    let target = format!("={name}");
    let found = std::process::Command::new(&tmux)
        .arg("-S")
        .arg(&socket)
        .args(["has-session", "-t", &target])
        .env_remove("TMUX")
        .stderr(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("cannot run tmux ({}): {e}", tmux.display()))?;
    if !found.success() {
        return Err(format!(
            "agent {name} has no terminal: it is not running, or ClawMux did not start it"
        ));
    }
    let err = std::process::Command::new(&tmux)
        .arg("-S")
        .arg(&socket)
        .args(["attach-session", "-t", &target])
        .env_remove("TMUX")
        .exec();
    Err(format!("cannot run tmux ({}): {err}", tmux.display()))
}
