//! `clawmux diff NAME [--stat]`: what an agent with a worktree of its own changed, as the window's Changes
//! panel shows it; `clawmux merge NAME`: its branch into its base; `clawmux worktree list|remove`: the
//! worktrees, what they hold, and removing one without losing work. The hub runs git (the `changes`,
//! `merge`, `worktrees` and `remove_worktree` commands); this asks and prints.

use std::collections::BTreeMap;
use std::time::Duration;

use clawmux_core::changes::{Changes, FileChange, FileStatus, MergeMode, Shown};
use serde::Deserialize;
use serde_json::json;

use crate::client::Client;
use crate::env::HubArgs;

/// The hub's answer to `changes`.
#[derive(Deserialize)]
struct Reply {
    #[serde(flatten)]
    changes: Changes,
    patches: BTreeMap<String, String>,
}

fn short(id: &str) -> &str {
    id.get(..10).unwrap_or(id)
}

/// One line of the file list: status, path, counts or why no diff.
fn file_line(f: &FileChange) -> String {
    let status = match f.status {
        FileStatus::Added => "A",
        FileStatus::Modified => "M",
        FileStatus::Deleted => "D",
        FileStatus::Renamed => "R",
        FileStatus::Copied => "C",
        FileStatus::TypeChanged => "T",
    };
    let path = match &f.old_path {
        Some(old) => format!("{old} -> {}", f.path),
        None => f.path.clone(),
    };
    let counts = match (f.added, f.removed) {
        (Some(a), Some(r)) => format!("+{a} -{r}"),
        _ => "binary".to_owned(),
    };
    let note = match f.shown {
        Shown::Diff | Shown::Binary => "",
        Shown::Huge => " (huge: not shown)",
        Shown::Generated => " (generated: not shown)",
    };
    format!(" {status} {path}  {counts}{note}")
}

/// Prints agent `name`'s changes: the summary and file list, then (without `stat`) each shown diff.
pub fn diff(args: &HubArgs, name: &str, stat: bool) -> Result<(), String> {
    let body = json!({"command": "changes", "session_id": name});
    let value = command(args, body, Duration::from_secs(30))?;
    let Reply { changes, patches } =
        serde_json::from_value(value).map_err(|e| format!("the hub's answer: {e}"))?;
    let commits = changes.commits.len();
    println!(
        "{name}: branch {} from {} (left it at {}), {commits} commit{}{}",
        changes.branch,
        changes.base,
        short(&changes.fork_point),
        if commits == 1 { "" } else { "s" },
        if changes.uncommitted {
            ", and changes not committed yet"
        } else {
            ""
        }
    );
    for c in &changes.commits {
        println!("  {} {} ({})", short(&c.id), c.summary, c.author);
    }
    if changes.files.is_empty() {
        println!("no file changed");
    }
    for f in &changes.files {
        println!("{}", file_line(f));
    }
    if !stat {
        for f in &changes.files {
            if let Some(patch) = patches.get(&f.path) {
                print!("\n{patch}");
            }
        }
    }
    Ok(())
}

/// The hub's answer to `merge`.
#[derive(Deserialize)]
struct Merged {
    base: String,
    commit: String,
}

/// Merges agent `name`'s branch into its base by `mode`; prints where the base is now.
pub fn merge(
    args: &HubArgs,
    name: &str,
    mode: MergeMode,
    message: Option<String>,
) -> Result<(), String> {
    let body = json!({"command": "merge", "session_id": name, "mode": mode, "message": message});
    // A merge runs the user's hooks, which may take their time (a test suite in a pre-commit hook).
    let value = command(args, body, Duration::from_secs(600))?;
    let Merged { base, commit } =
        serde_json::from_value(value).map_err(|e| format!("the hub's answer: {e}"))?;
    println!("{name} merged into {base}: {}", short(&commit));
    Ok(())
}

/// What a worktree holds, as the hub says it.
#[derive(Deserialize)]
struct Held {
    exists: bool,
    uncommitted: Vec<String>,
    unmerged: u32,
    disk_bytes: u64,
}

impl Held {
    /// In words: its size and the work that is nowhere else.
    fn describe(&self) -> String {
        if !self.exists {
            return "its folder is gone".to_owned();
        }
        let mut out = vec![format!("{:.1} MB", self.disk_bytes as f64 / 1e6)];
        if !self.uncommitted.is_empty() {
            out.push(format!("{} not committed", self.uncommitted.len()));
        }
        if self.unmerged > 0 {
            out.push(format!("{} commits in no other branch", self.unmerged));
        }
        if self.uncommitted.is_empty() && self.unmerged == 0 {
            out.push("nothing unsaved".to_owned());
        }
        out.join(", ")
    }
}

/// One worktree of `clawmux worktree list`.
#[derive(Deserialize)]
struct Listed {
    session_id: String,
    path: String,
    branch: String,
    base: String,
    running: bool,
    #[serde(flatten)]
    held: Held,
}

/// Runs a command of the hub's, waiting up to `wait` for its answer.
fn command(
    args: &HubArgs,
    body: serde_json::Value,
    wait: Duration,
) -> Result<serde_json::Value, String> {
    Client::of(args, wait)?
        .post("/api/command", None, body.to_string().as_bytes())
        .map_err(|e| e.to_string())
}

/// Lists every agent's worktree with what it holds.
pub fn list(args: &HubArgs) -> Result<(), String> {
    let value = command(
        args,
        json!({"command": "worktrees"}),
        Duration::from_secs(60),
    )?;
    let all: Vec<Listed> =
        serde_json::from_value(value).map_err(|e| format!("the hub's answer: {e}"))?;
    if all.is_empty() {
        println!("no agent has a worktree");
    }
    for w in &all {
        println!(
            "{}  {} from {}  {}{}\n  {}",
            w.session_id,
            w.branch,
            w.base,
            w.held.describe(),
            if w.running { ", running" } else { "" },
            w.path
        );
    }
    Ok(())
}

/// Removes agent `name`'s worktree and branch (losing unsaved work only with `discard`).
pub fn remove(args: &HubArgs, name: &str, discard: bool) -> Result<(), String> {
    let body = json!({"command": "remove_worktree", "session_id": name, "discard": discard});
    let value = command(args, body, Duration::from_secs(60))?;
    let held: Held = serde_json::from_value(value).map_err(|e| format!("the hub's answer: {e}"))?;
    let lost = held.uncommitted.len() as u32 + held.unmerged;
    println!(
        "{name}'s worktree and branch removed{}",
        if lost > 0 {
            format!(" (discarded: {})", held.describe())
        } else {
            String::new()
        }
    );
    Ok(())
}
