//! `clawmux diff NAME [--stat]`: what an agent with a worktree of its own changed, as the window's Changes
//! panel shows it; `clawmux merge NAME`: its branch into its base; `clawmux worktree list|remove`: the
//! worktrees, what they hold, and removing one without losing work. The hub runs git (the `changes`,
//! `merge`, `worktrees` and `remove_worktree` commands); this asks and prints.

use std::time::Duration;

use clawmux_api::commands::{self, Request};
use clawmux_api::worktree::ChangesReply;
use clawmux_api::worktree::Held;
use clawmux_api::worktree::Merged;
use clawmux_core::changes::{FileChange, FileStatus, MergeMode, Shown};

use crate::client::Client;
use crate::env::HubArgs;

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
    let command = commands::Changes {
        session_id: name.to_owned(),
    };
    let ChangesReply {
        changes, patches, ..
    } = run(args, command, Duration::from_secs(30))?;
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

/// Merges agent `name`'s branch into its base by `mode`; prints where the base is now.
pub fn merge(
    args: &HubArgs,
    name: &str,
    mode: MergeMode,
    message: Option<String>,
) -> Result<(), String> {
    let command = commands::Merge {
        session_id: name.to_owned(),
        mode,
        message,
    };
    // A merge runs the user's hooks, which may take their time (a test suite in a pre-commit hook).
    let Merged { base, commit, .. } = run(args, command, Duration::from_secs(600))?;
    println!("{name} merged into {base}: {}", short(&commit));
    Ok(())
}

/// What a worktree holds, in words: its size and the work that is nowhere else.
fn describe(held: &Held) -> String {
    if !held.exists {
        return "its folder is gone".to_owned();
    }
    let mut out = vec![format!("{:.1} MB", held.disk_bytes as f64 / 1e6)];
    if !held.uncommitted.is_empty() {
        out.push(format!("{} not committed", held.uncommitted.len()));
    }
    if held.unmerged > 0 {
        out.push(format!("{} commits in no other branch", held.unmerged));
    }
    if !held.unsaved() {
        out.push("nothing unsaved".to_owned());
    }
    out.join(", ")
}

/// Runs `command` of the hub's, waiting up to `wait` for its answer.
fn run<R: Request>(args: &HubArgs, command: R, wait: Duration) -> Result<R::Reply, String> {
    Ok(Client::of(args, wait)?.call(command)?)
}

/// Lists every agent's worktree with what it holds.
pub fn list(args: &HubArgs) -> Result<(), String> {
    let all = run(args, commands::Worktrees {}, Duration::from_secs(60))?;
    if all.is_empty() {
        println!("no agent has a worktree");
    }
    for w in &all {
        println!(
            "{}  {} from {}  {}{}\n  {}",
            w.session_id,
            w.spec.branch,
            w.spec.base,
            describe(&w.held),
            if w.running { ", running" } else { "" },
            w.path.display()
        );
    }
    Ok(())
}

/// Removes agent `name`'s worktree and branch (losing unsaved work only with `discard`).
pub fn remove(args: &HubArgs, name: &str, discard: bool) -> Result<(), String> {
    let command = commands::RemoveWorktree {
        session_id: name.to_owned(),
        discard,
    };
    let held = run(args, command, Duration::from_secs(60))?;
    println!(
        "{name}'s worktree and branch removed{}",
        if held.unsaved() {
            format!(" (discarded: {})", describe(&held))
        } else {
            String::new()
        }
    );
    Ok(())
}
