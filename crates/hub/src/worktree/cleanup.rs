//! What an agent's worktree holds that exists nowhere else, and removing it without losing that.
//!
//! Work is unsaved when it is not committed (changed or new files, ClawMux's own files aside), or when it
//! is committed on the agent's branch only: commits no other branch, tag or remote branch has. A worktree
//! with unsaved work is removed only with an explicit discard; one without is removed with its branch.
//! Functions of the repository and the folder, tested on real repositories.

use std::path::Path;

use clawmux_core::wire::Code;

use super::git;
use super::repo::changed_paths;
use super::spec::WorktreeSpec;
use crate::error::HubError;
pub use clawmux_api::worktree::Held;

/// What agent's worktree at `path` (from `spec`) holds.
pub(crate) async fn held(spec: &WorktreeSpec, path: &Path) -> Result<Held, HubError> {
    let exists = path.is_dir();
    let uncommitted = if exists {
        let mut paths = changed_paths(path, true).await?;
        paths.sort();
        paths
    } else {
        Vec::new()
    };
    let unmerged = unmerged(spec).await?;
    let disk_bytes = if exists {
        let path = path.to_owned();
        tokio::task::spawn_blocking(move || disk_use(&path))
            .await
            .unwrap_or(0)
    } else {
        0
    };
    Ok(Held {
        exists,
        uncommitted,
        unmerged,
        disk_bytes,
    })
}

/// Commits of the agent's branch that no other ref has (0 if the branch is gone).
async fn unmerged(spec: &WorktreeSpec) -> Result<u32, HubError> {
    let own = format!("refs/heads/{}", spec.branch);
    let there = git::has_branch(&spec.repo, &spec.branch)
        .await
        .map_err(|e| e.into_hub("cannot read the agent's branch"))?;
    if !there {
        return Ok(0);
    }
    // With --branches, a pattern names the branch without `refs/heads/`.
    let exclude = format!("--exclude={}", spec.branch);
    let count = git::run(
        &spec.repo,
        &[
            "rev-list",
            "--count",
            &own,
            "--not",
            &exclude,
            "--branches",
            "--tags",
            "--remotes",
        ],
    )
    .await
    .map_err(|e| e.into_hub("cannot count the branch's own commits"))?;
    Ok(count.trim().parse().unwrap_or(0))
}

/// The bytes the files under `dir` take (not following links).
fn disk_use(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(entry.path()),
                Ok(t) if t.is_file() => total += entry.metadata().map(|m| m.len()).unwrap_or(0),
                _ => {}
            }
        }
    }
    total
}

/// Removes agent's worktree at `path` and its branch; refuses, removing nothing, when it holds unsaved
/// work and `discard` is not set. Returns what it held.
pub(crate) async fn remove(
    agent: &str,
    spec: &WorktreeSpec,
    path: &Path,
    discard: bool,
) -> Result<Held, HubError> {
    let held = held(spec, path).await?;
    if held.unsaved() && !discard {
        let mut what = Vec::new();
        if !held.uncommitted.is_empty() {
            what.push(format!(
                "{} file{} not committed ({})",
                held.uncommitted.len(),
                if held.uncommitted.len() == 1 { "" } else { "s" },
                held.uncommitted.join(", ")
            ));
        }
        if held.unmerged > 0 {
            what.push(format!(
                "{} commit{} in no other branch",
                held.unmerged,
                if held.unmerged == 1 { "" } else { "s" }
            ));
        }
        return Err(HubError::new(
            Code::UnsavedWork,
            format!(
                "`{agent}`'s worktree holds {}: merge or push it, or remove it with --discard to lose it",
                what.join(" and ")
            ),
        ));
    }
    if held.exists {
        let text = path.to_string_lossy();
        git::run(&spec.repo, &["worktree", "remove", "--force", &text])
            .await
            .map_err(|e| e.into_hub("cannot remove the worktree"))?;
    } else {
        // Its folder went some other way: git forgets it.
        git::run(&spec.repo, &["worktree", "prune"])
            .await
            .map_err(|e| e.into_hub("cannot prune the worktree"))?;
    }
    if git::has_branch(&spec.repo, &spec.branch)
        .await
        .map_err(|e| e.into_hub("cannot read the agent's branch"))?
    {
        git::run(&spec.repo, &["branch", "-D", &spec.branch])
            .await
            .map_err(|e| e.into_hub("cannot remove the agent's branch"))?;
    }
    Ok(held)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::super::repo::create;
    use super::super::testing::{git, repo};
    use super::*;

    #[tokio::test]
    async fn work_that_is_nowhere_else_is_never_removed_without_a_discard() {
        let (_tmp, top, data) = repo();
        let (spec, wt) = create(&data, "sky", &top, None).await.unwrap();
        std::fs::write(wt.join(".waiting"), "1").unwrap();
        let clean = held(&spec, &wt).await.unwrap();
        assert!(
            !clean.unsaved(),
            "ClawMux's own files are not work: {clean:?}"
        );
        assert!(clean.exists && clean.disk_bytes > 0);

        // A new file: not committed.
        std::fs::write(wt.join("draft.txt"), "half done\n").unwrap();
        let err = remove("sky", &spec, &wt, false).await.unwrap_err();
        assert_eq!(err.code, Code::UnsavedWork);
        assert!(
            err.message.contains("1 file not committed (draft.txt)"),
            "{}",
            err.message
        );
        assert!(wt.join("draft.txt").exists(), "nothing removed");

        // Committed, on the agent's branch only.
        git(&wt, &["add", "draft.txt"]);
        git(&wt, &["commit", "-q", "-m", "Draft"]);
        let err = remove("sky", &spec, &wt, false).await.unwrap_err();
        assert!(
            err.message.contains("1 commit in no other branch"),
            "{}",
            err.message
        );
        assert!(git(&top, &["branch", "--list", "clawmux/sky"]).contains("clawmux/sky"));

        // Another branch has it (the user merged or kept it): nothing is lost, it goes.
        git(&top, &["branch", "kept", "clawmux/sky"]);
        assert_eq!(held(&spec, &wt).await.unwrap().unmerged, 0);
        let gone = remove("sky", &spec, &wt, false).await.unwrap();
        assert!(!gone.unsaved());
        assert!(!wt.exists());
        assert_eq!(git(&top, &["branch", "--list", "clawmux/sky"]), "");
        assert_eq!(
            git(&top, &["rev-parse", "kept"]).len(),
            41,
            "the other branch stays"
        );
    }

    #[tokio::test]
    async fn a_discard_removes_unsaved_work_and_a_folder_gone_already_is_forgotten() {
        let (_tmp, top, data) = repo();
        let (spec, wt) = create(&data, "sky", &top, None).await.unwrap();
        std::fs::write(wt.join("draft.txt"), "half done\n").unwrap();
        std::fs::write(wt.join("src/a.rs"), "changed\n").unwrap();
        let gone = remove("sky", &spec, &wt, true).await.unwrap();
        assert_eq!(gone.uncommitted, ["draft.txt", "src/a.rs"]);
        assert!(!wt.exists());
        assert_eq!(git(&top, &["branch", "--list", "clawmux/sky"]), "");

        let (spec, wt) = create(&data, "moon", &top, None).await.unwrap();
        std::fs::remove_dir_all(&wt).unwrap();
        let gone = remove("moon", &spec, &wt, false).await.unwrap();
        assert!(!gone.exists);
        assert!(!git(&top, &["worktree", "list"]).contains("moon"));
        assert_eq!(git(&top, &["branch", "--list", "clawmux/moon"]), "");
    }
}
