//! `clawmux doctor`: what a user checks when something is off, each with its fix.
//!
//! Every check looks at this machine as the hub and its agents see it (the same environment variables, the
//! same data folder) and says ok, a warning, a failure or why it could not look; a failure exits 1. `--json`
//! prints the same as one array for a script or a bug report. Nothing is changed: a fix is a line to run.

mod desktop;
mod hooks;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::env::HubArgs;

/// The oldest Claude Code the project supports (`clawmux_core::hook::version::OLDEST`): a test runs the real
/// CLI of that version (the hooks' `onFailure`, the HTTP hooks and the transcript records ClawMux reads
/// are all there).
use clawmux_core::hook::version::OLDEST as OLDEST_CLAUDE_CODE;
/// The free space below which the voice models (speech to text and back, a few hundred MB) may not fit.
const MODELS_NEED_MB: u64 = 1024;

pub use clawmux_api::doctor::{Check, Status};

pub(crate) fn check(check: &str, status: Status, detail: impl Into<String>) -> Check {
    Check {
        check: check.to_owned(),
        status,
        detail: detail.into(),
        fix: None,
    }
}

/// Runs every check; prints them; fails when one failed.
pub fn run(hub: &HubArgs, json: bool) -> Result<(), String> {
    let data_dir = hub.data_dir();
    let checks = [
        tmux(),
        claude(),
        hooks::hooks(),
        hub_serving(hub, &data_dir),
        data_folder(&data_dir),
        desktop::sound_server(),
        desktop::on_session_bus(
            "tray",
            "org.kde.StatusNotifierWatcher",
            "no tray host: the window works, without its tray icon; a desktop with a system tray (or GNOME's AppIndicator extension) shows it",
        ),
        desktop::on_session_bus(
            "notifications",
            "org.freedesktop.Notifications",
            "no notification daemon: agents that go idle or need you are shown in the window only; install one (dunst, or your desktop's)",
        ),
        desktop::nvidia_dmabuf(),
        disk(&data_dir),
    ];
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&checks).map_err(|e| e.to_string())?
        );
    } else {
        for c in &checks {
            let mark = match c.status {
                Status::Ok => "ok  ",
                Status::Warn => "warn",
                Status::Fail => "FAIL",
                Status::Skip => "skip",
            };
            println!("{mark}  {:<14} {}", c.check, c.detail);
            if let Some(fix) = &c.fix {
                println!("      {:<14} fix: {fix}", "");
            }
        }
    }
    match checks.iter().filter(|c| c.status == Status::Fail).count() {
        0 => Ok(()),
        n => Err(format!("{n} check(s) failed; each says its fix")),
    }
}

/// What a program printed when run with `args`, if it ran and succeeded.
pub(crate) fn output(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn tmux() -> Check {
    match output("tmux", &["-V"]) {
        Some(v) => check("tmux", Status::Ok, v),
        None => check(
            "tmux",
            Status::Fail,
            "tmux is not installed: agents run in its terminals",
        )
        .fix("sudo apt install tmux"),
    }
}

fn claude() -> Check {
    let exe = std::env::var("CLAWMUX_CLAUDE").unwrap_or_else(|_| "claude".to_owned());
    let oldest = OLDEST_CLAUDE_CODE.map(|n| n.to_string()).join(".");
    let Some(said) = output(&exe, &["--version"]) else {
        return check("claude code", Status::Fail, format!("`{exe}` does not run"))
            .fix("npm install -g @anthropic-ai/claude-code (or set CLAWMUX_CLAUDE to its path); the demo agent works without it");
    };
    let said = clawmux_core::printable::one_line(&said, 80);
    match clawmux_core::hook::version::parse(&said) {
        Some(v) if v >= OLDEST_CLAUDE_CODE => check("claude code", Status::Ok, said),
        Some(_) => check(
            "claude code",
            Status::Fail,
            format!("{said}: older than {oldest}, the oldest ClawMux supports"),
        )
        .fix("claude update (or npm install -g @anthropic-ai/claude-code@latest)"),
        None => check(
            "claude code",
            Status::Warn,
            format!("`{exe} --version` said `{said}`, not a version"),
        ),
    }
}

fn hub_serving(hub: &HubArgs, data_dir: &Path) -> Check {
    let socket = clawmux_core::layout::socket_path(data_dir);
    if !socket.exists() {
        return check(
            "hub",
            Status::Warn,
            format!("no hub serves {}", data_dir.display()),
        )
        .fix("open the ClawMux app, or run `clawmux serve`");
    }
    let addr = match hub.resolve() {
        Ok(addr) => addr,
        Err(e) => return check("hub", Status::Fail, e),
    };
    let port =
        std::fs::read_to_string(data_dir.join(clawmux_core::layout::PORT_FILE)).unwrap_or_default();
    match crate::client::Client::new(&addr, Duration::from_secs(3)).get_text("/api/health") {
        Ok(_) => check(
            "hub",
            Status::Ok,
            format!(
                "serving on {} and 127.0.0.1:{}",
                socket.display(),
                port.trim()
            ),
        ),
        Err(e) => check(
            "hub",
            Status::Fail,
            format!("{} does not answer: {e}", socket.display()),
        )
        .fix("a hub that stopped left its socket: quit the app (or `clawmux serve`) and start it again"),
    }
}

/// The data folder holds the token and every message: only its owner may read it.
fn data_folder(data_dir: &Path) -> Check {
    use std::os::unix::fs::PermissionsExt;
    if !data_dir.exists() {
        return check(
            "data folder",
            Status::Skip,
            format!("{} does not exist yet", data_dir.display()),
        );
    }
    use clawmux_core::layout::{DB_FILE, TOKEN_FILE};
    let open: Vec<String> = [
        data_dir.to_owned(),
        data_dir.join(TOKEN_FILE),
        data_dir.join(DB_FILE),
    ]
    .iter()
    .filter_map(|p| {
        let mode = std::fs::metadata(p).ok()?.permissions().mode() & 0o777;
        (mode & 0o077 != 0).then(|| format!("{} is {mode:o}", p.display()))
    })
    .collect();
    if open.is_empty() {
        return check(
            "data folder",
            Status::Ok,
            format!("{} is yours alone (700)", data_dir.display()),
        );
    }
    check(
        "data folder",
        Status::Fail,
        format!("others may read it: {}", open.join(", ")),
    )
    .fix(format!(
        "chmod -R go-rwx {}",
        clawmux_core::shell::quote(&data_dir.to_string_lossy())
    ))
}

fn disk(data_dir: &Path) -> Check {
    let at = data_dir
        .ancestors()
        .find(|p| p.exists())
        .unwrap_or(Path::new("/"));
    let Some(df) = output("df", &["-Pk", &at.to_string_lossy()]) else {
        return check("disk", Status::Skip, "`df` did not run");
    };
    let free_kb = df
        .lines()
        .nth(1)
        .and_then(|l| l.split_whitespace().nth(3))
        .and_then(|n| n.parse::<u64>().ok());
    match free_kb.map(|kb| kb / 1024) {
        Some(mb) if mb >= MODELS_NEED_MB => check(
            "disk",
            Status::Ok,
            format!("{mb} MB free for the voice models"),
        ),
        Some(mb) => check(
            "disk",
            Status::Warn,
            format!("{mb} MB free: the voice models need about {MODELS_NEED_MB} MB"),
        )
        .fix(format!("free space on the disk of {}", at.display())),
        None => check("disk", Status::Skip, "`df` said what this does not read"),
    }
}
