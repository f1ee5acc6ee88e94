//! `clawmux diff NAME [--stat]`: what an agent with a worktree of its own changed, as the window's Changes
//! panel shows it; `clawmux merge NAME`: its branch into its base. The hub runs git (the `changes` and
//! `merge` commands); this asks and prints.

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
    let hub = args.resolve()?;
    let body = json!({"command": "changes", "session_id": name});
    let value = Client::new(&hub, Duration::from_secs(30))
        .post("/api/command", None, body.to_string().as_bytes())
        .map_err(|e| e.to_string())?;
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
    let hub = args.resolve()?;
    let body = json!({"command": "merge", "session_id": name, "mode": mode, "message": message});
    // A merge runs the user's hooks, which may take their time (a test suite in a pre-commit hook).
    let value = Client::new(&hub, Duration::from_secs(600))
        .post("/api/command", None, body.to_string().as_bytes())
        .map_err(|e| e.to_string())?;
    let Merged { base, commit } =
        serde_json::from_value(value).map_err(|e| format!("the hub's answer: {e}"))?;
    println!("{name} merged into {base}: {}", short(&commit));
    Ok(())
}
