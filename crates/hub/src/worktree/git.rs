//! The user's own `git`, run as they would run it: their config, hooks, signing, credentials and LFS apply,
//! because it is their program with their environment (less the variables that would point it at another
//! repository). Why not a library: git2 and gix each leave out some of what the user's git does on a merge
//! or a commit (hooks, signing, LFS filters, `includeIf` config), and those are what must apply.

use std::path::Path;
use std::process::Stdio;

use clawmux_core::wire::Code;

use crate::error::HubError;

/// Variables that would point git at another repository, index or work tree than the one asked for (a hub
/// started from inside a git hook inherits them).
const REPOSITORY_VARIABLES: [&str; 6] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_COMMON_DIR",
    "GIT_PREFIX",
];

/// What git printed when it succeeded.
pub(crate) type Out = String;

/// Why git did not do what was asked.
#[derive(Debug)]
pub(crate) enum GitError {
    /// No `git` to run.
    Missing(std::io::Error),
    /// It ran and refused, saying why.
    Failed {
        /// Its exit status.
        status: Option<i32>,
        /// What it said.
        stderr: String,
    },
}

impl GitError {
    /// What git said, for the user.
    pub(crate) fn said(&self) -> String {
        match self {
            GitError::Missing(e) => format!("git could not be run: {e}"),
            GitError::Failed { stderr, status } => {
                let said = stderr.trim();
                if said.is_empty() {
                    format!("git failed ({status:?})")
                } else {
                    said.to_owned()
                }
            }
        }
    }

    /// As the hub's error, with `what` was being done.
    pub(crate) fn into_hub(self, what: &str) -> HubError {
        match &self {
            GitError::Missing(_) => HubError::new(
                Code::GitMissing,
                format!("{what}: {} (install git)", self.said()),
            ),
            GitError::Failed { .. } => {
                HubError::new(Code::GitFailed, format!("{what}: {}", self.said()))
            }
        }
    }
}

/// What a git run printed and how it ended, for the commands that answer through their status too.
pub(crate) struct Ran {
    /// Its exit status (`None`: killed by a signal).
    pub(crate) status: Option<i32>,
    /// Its standard output.
    pub(crate) stdout: String,
    /// Its standard error.
    pub(crate) stderr: String,
}

/// Runs `git args` in `dir` with `env` added, whatever its status.
pub(crate) async fn ran(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> Result<Ran, GitError> {
    let mut cmd = tokio::process::Command::new("git");
    cmd.arg("-c")
        .arg("core.quotepath=false")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    for var in REPOSITORY_VARIABLES {
        cmd.env_remove(var);
    }
    // Never wait on a prompt nobody sees (a credential, an editor).
    cmd.env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_EDITOR", "true");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().await.map_err(GitError::Missing)?;
    Ok(Ran {
        status: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

/// Runs `git args` in `dir`, with `env` added; its standard output as text.
pub(crate) async fn run_with(
    dir: &Path,
    args: &[&str],
    env: &[(&str, &Path)],
) -> Result<Out, GitError> {
    let out = ran(dir, args, env).await?;
    if out.status == Some(0) {
        Ok(out.stdout)
    } else {
        Err(GitError::Failed {
            status: out.status,
            stderr: out.stderr,
        })
    }
}

/// Runs `git args` in `dir`.
pub(crate) async fn run(dir: &Path, args: &[&str]) -> Result<Out, GitError> {
    run_with(dir, args, &[]).await
}

/// Whether `git args` in `dir` succeeds (a question git answers with its status).
pub(crate) async fn holds(dir: &Path, args: &[&str]) -> Result<bool, GitError> {
    match run(dir, args).await {
        Ok(_) => Ok(true),
        Err(GitError::Failed { .. }) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Whether repository `dir` has branch `name`.
pub(crate) async fn has_branch(dir: &Path, name: &str) -> Result<bool, GitError> {
    let full = format!("refs/heads/{name}");
    holds(dir, &["rev-parse", "--verify", "--quiet", &full]).await
}
