//! The agents' terminals: one tmux session per agent, on a tmux server of the hub's own.
//!
//! The server's socket lives in the data folder, so the hub never touches the user's own tmux sessions,
//! two hubs (or a test and the user's app) never see each other's agents, and `clawmux attach NAME` knows
//! where to look. Panes stay after their process ends (`remain-on-exit`), so the hub can still read the
//! last lines of a terminal whose agent crashed before it closes the session.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use clawmux_core::layout::TMUX_SOCKET_FILE as SOCKET_FILE;
/// The server's configuration, written by the hub (read when the server starts).
const CONF_FILE: &str = "tmux.conf";
const CONF: &str = "# Written by ClawMux for its agents' tmux server; rewritten at every start.\n\
set -g remain-on-exit on\n\
set -g history-limit 10000\n\
set -g status-left '[clawmux] #S '\n\
set -g status-left-length 40\n\
# The app's terminal panel (and `clawmux attach`) keep what scrolls by: no alternate screen outside.\n\
set -ga terminal-overrides ',xterm-256color:smcup@:rmcup@'\n";

/// tmux's own default for `update-environment`, kept when ours are added to it.
const DEFAULT_UPDATE_ENVIRONMENT: &str =
    "DISPLAY KRB5CCNAME SSH_ASKPASS SSH_AUTH_SOCK SSH_AGENT_PID SSH_CONNECTION WINDOWID XAUTHORITY";

/// `text` for a tmux argument that is expanded as a format: every `#` doubled, so it stands for itself.
fn escape_format(text: &OsStr) -> std::ffi::OsString {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let mut out = Vec::with_capacity(text.len());
    for &b in text.as_bytes() {
        if b == b'#' {
            out.push(b'#');
        }
        out.push(b);
    }
    std::ffi::OsString::from_vec(out)
}

/// A failed tmux call.
#[derive(Debug, thiserror::Error)]
pub enum TmuxError {
    /// The tmux program could not be run at all.
    #[error("tmux is not installed or cannot run ({program}: {source}); install it (Debian: apt install tmux)")]
    Missing {
        /// What was tried.
        program: String,
        /// Why it failed.
        source: std::io::Error,
    },
    /// tmux ran and refused.
    #[error("tmux {action} failed: {stderr}")]
    Failed {
        /// What was asked.
        action: String,
        /// What tmux said.
        stderr: String,
    },
}

/// How the hub runs tmux.
#[derive(Debug, Clone)]
pub struct Tmux {
    program: PathBuf,
    socket: PathBuf,
    conf: PathBuf,
    starting: std::sync::Arc<tokio::sync::Mutex<()>>,
}

/// A pane as tmux reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pane {
    /// The process tmux started in it.
    pub pid: u32,
    /// How its process ended, once tmux has seen it end (the pane stays, `remain-on-exit`).
    pub ended: Option<Ended>,
}

/// How a pane's process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// It exited with this status.
    Exited(i32),
    /// A signal killed it.
    Killed(i32),
    /// tmux knows it ended, not how.
    Unknown,
}

impl std::fmt::Display for Ended {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ended::Exited(status) => write!(f, "exited with status {status}"),
            Ended::Killed(signal) => write!(f, "was killed by signal {signal}"),
            Ended::Unknown => write!(f, "ended"),
        }
    }
}

impl Tmux {
    /// tmux as `program`, with its server socket in `data_dir`.
    pub fn new(program: PathBuf, data_dir: &Path) -> Tmux {
        Tmux {
            program,
            socket: data_dir.join(SOCKET_FILE),
            conf: data_dir.join(CONF_FILE),
            starting: std::sync::Arc::default(),
        }
    }

    /// The server's socket.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    async fn run<I, S>(&self, action: &str, args: I) -> Result<String, TmuxError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.run_with_env(action, args, &[]).await
    }

    /// Runs tmux with `env` added to the client's environment (tmux gives a new session the client's PATH).
    async fn run_with_env<I, S>(
        &self,
        action: &str,
        args: I,
        env: &[(String, String)],
    ) -> Result<String, TmuxError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut command = tokio::process::Command::new(&self.program);
        command.envs(env.iter().map(|(k, v)| (k, v)));
        let out = command
            .arg("-S")
            .arg(&self.socket)
            .arg("-f")
            .arg(&self.conf)
            .args(args)
            // A hub started from inside tmux must still talk to its own server, not the user's.
            .env_remove("TMUX")
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .output()
            .await
            .map_err(|source| TmuxError::Missing {
                program: self.program.display().to_string(),
                source,
            })?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(TmuxError::Failed {
                action: action.to_owned(),
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
            })
        }
    }

    /// Checks that tmux runs.
    pub async fn check(&self) -> Result<(), TmuxError> {
        self.run("-V", ["-V"]).await.map(drop)
    }

    /// Starts `argv` in a new detached session `name` in folder `cwd` with `env`; returns the pane's pid.
    ///
    /// The environment never goes on tmux's command line: the tmux server keeps the argument list of the
    /// client that started it for its whole life, and every local user can read it (`ps`). The values go
    /// in the tmux client's own environment, which only our user can read, and `update-environment`
    /// (set with the same call, so a server started by an older version obeys it too) copies them into
    /// the new session. The server itself is started first by a client without them (kept alive with
    /// no session for that moment), so it never carries one agent's identity (the hub ends an agent's
    /// leftover processes by it). The folder is escaped for tmux's formats (`-c` is one): no `#(...)` in
    /// a folder name runs anything.
    pub async fn start(
        &self,
        name: &str,
        cwd: &Path,
        env: &[(String, String)],
        argv: &[String],
    ) -> Result<u32, TmuxError> {
        crate::config::write_private(&self.conf, CONF.as_bytes()).map_err(|e| {
            TmuxError::Failed {
                action: "configuration".to_owned(),
                stderr: format!("cannot write {}: {e}", self.conf.display()),
            }
        })?;
        // One start at a time: another's `exit-empty on` must not end the server between our two calls.
        let _one = self.starting.lock().await;
        self.run(
            "start-server",
            ["start-server", ";", "set-option", "-s", "exit-empty", "off"],
        )
        .await?;
        let args = new_session_args(name, cwd, env, argv);
        let out = match self.run_with_env("new-session", args, env).await {
            Ok(out) => out,
            Err(e) => {
                // The server must not outlive its last session for want of the `exit-empty on` above.
                let _ = self
                    .run("set-option", ["set-option", "-s", "exit-empty", "on"])
                    .await;
                return Err(e);
            }
        };
        out.trim().parse().map_err(|_| TmuxError::Failed {
            action: "new-session".to_owned(),
            stderr: format!("unexpected answer `{}`", out.trim()),
        })
    }

    /// The pane of session `name`, or `None` if there is no such session.
    pub async fn pane(&self, name: &str) -> Result<Option<Pane>, TmuxError> {
        let target = format!("={name}:");
        match self
            .run(
                "display-message",
                [
                    "display-message",
                    "-p",
                    "-t",
                    &target,
                    "#{pane_pid}:#{pane_dead}:#{pane_dead_status}:#{pane_dead_signal}",
                ],
            )
            .await
        {
            Ok(out) => {
                let parts: Vec<&str> = out.trim().split(':').collect();
                let num = |i: usize| parts.get(i).and_then(|p| p.parse::<i32>().ok());
                let pid = parts.first().and_then(|p| p.parse().ok());
                let ended = (parts.get(1) == Some(&"1")).then(|| match (num(2), num(3)) {
                    (_, Some(signal)) => Ended::Killed(signal),
                    (Some(status), None) => Ended::Exited(status),
                    (None, None) => Ended::Unknown,
                });
                Ok(pid.map(|pid| Pane { pid, ended }))
            }
            // No server yet, or no such session: both mean "not running".
            Err(TmuxError::Failed { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The last `lines` lines of session `name`'s terminal that are not blank.
    pub async fn last_lines(&self, name: &str, lines: u32) -> Result<String, TmuxError> {
        let start = format!("-{lines}");
        let out = self.capture(name, &["-J", "-S", &start]).await?;
        let kept: Vec<&str> = out
            .lines()
            .map(str::trim_end)
            .filter(|l| !l.is_empty())
            .collect();
        let from = kept.len().saturating_sub(lines as usize);
        Ok(kept[from..].join("\n"))
    }

    /// Session `name`'s visible screen, with its colours and attributes as escape sequences, one line per
    /// row (`\n` between them).
    pub async fn screen(&self, name: &str) -> Result<String, TmuxError> {
        self.capture(name, &["-e"]).await
    }

    /// Up to `lines` lines of session `name`'s history (what scrolled off its screen), oldest first, with
    /// colours; wrapped lines joined, so a terminal of any width wraps them again.
    pub async fn history(&self, name: &str, lines: u32) -> Result<String, TmuxError> {
        let start = format!("-{lines}");
        self.capture(name, &["-e", "-J", "-S", &start, "-E", "-1"])
            .await
    }

    /// What `capture-pane -p` prints of session `name`'s pane with `options`.
    async fn capture(&self, name: &str, options: &[&str]) -> Result<String, TmuxError> {
        let target = format!("={name}:");
        let args = ["capture-pane", "-p", "-t", &target]
            .into_iter()
            .chain(options.iter().copied());
        self.run("capture-pane", args).await
    }

    /// Ends session `name` (its processes get SIGHUP). A session that is already gone is not an error.
    pub async fn kill(&self, name: &str) -> Result<(), TmuxError> {
        let target = format!("={name}");
        match self
            .run("kill-session", ["kill-session", "-t", &target])
            .await
        {
            Ok(_) => Ok(()),
            Err(TmuxError::Failed { .. }) if self.pane(name).await?.is_none() => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// The program and arguments of a tmux client attached to session `name`, for a terminal of the
    /// hub's own (the terminal panel): UTF-8 forced (`-u`, whatever the hub's locale), the session named
    /// exactly (`=`), so `sky` never attaches to `sky2`.
    pub fn attach_argv(&self, name: &str) -> (PathBuf, Vec<std::ffi::OsString>) {
        let args = [
            OsStr::new("-u"),
            OsStr::new("-S"),
            self.socket.as_os_str(),
            OsStr::new("attach-session"),
            OsStr::new("-t"),
            OsStr::new(&format!("={name}")),
        ]
        .iter()
        .map(|a| a.to_os_string())
        .collect();
        (self.program.clone(), args)
    }

    /// Presses `key` (a tmux key name such as `Escape` or `Enter`) in session `name`.
    pub async fn key(&self, name: &str, key: &str) -> Result<(), TmuxError> {
        let target = format!("={name}:");
        self.run("send-keys", ["send-keys", "-t", &target, key])
            .await
            .map(drop)
    }

    /// Types `text` literally into session `name` (no Enter: text and Enter in one burst are taken for a
    /// paste by Claude Code, and the Enter then does not submit).
    pub async fn type_text(&self, name: &str, text: &str) -> Result<(), TmuxError> {
        let target = format!("={name}:");
        self.run("send-keys", ["send-keys", "-t", &target, "-l", "--", text])
            .await
            .map(drop)
    }
}

/// The `new-session` call, after the server's `exit-empty` is set back on and the agent's variables are
/// named in `update-environment`: the session takes them from this client's environment, never from its
/// command line.
fn new_session_args(
    name: &str,
    cwd: &Path,
    env: &[(String, String)],
    argv: &[String],
) -> Vec<std::ffi::OsString> {
    let keys: Vec<&str> = env
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| *k != "PATH")
        .collect();
    let update = format!("{DEFAULT_UPDATE_ENVIRONMENT} {}", keys.join(" "));
    let mut args: Vec<std::ffi::OsString> = [
        "set-option",
        "-s",
        "exit-empty",
        "on",
        ";",
        "set-option",
        "-g",
        "update-environment",
        update.as_str(),
        ";",
        "new-session",
        "-d",
        "-s",
        name,
        "-x",
        "200",
        "-y",
        "50",
        "-P",
        "-F",
        "#{pane_pid}",
        "-c",
    ]
    .iter()
    .map(Into::into)
    .collect();
    args.push(escape_format(cwd.as_os_str()));
    args.push("--".into());
    args.extend(argv.iter().map(Into::into));
    args
}
