//! `clawmux diff NAME [--stat]`: what an agent with a worktree of its own changed, as the window's Changes
//! panel shows it. The hub reads it from git (the `changes` command); this prints it.

use std::collections::BTreeMap;
use std::time::Duration;

use clawmux_core::changes::{Changes, FileChange, FileStatus, Shown};
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
