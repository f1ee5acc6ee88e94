//! Merging an agent's branch into its base, as the user's git would do it, and never half.
//!
//! Before anything is written: the base must be a branch; the agent's work must be committed; there must
//! be something to merge; `git merge-tree` must find no conflict (its files are named if it does); and the
//! checkout the base is in must have no changes of its own. The merge then runs where the base is checked
//! out (usually the user's checkout), with `git merge` or `git commit`, so the user's config, hooks and
//! signing apply; if the base is checked out nowhere, in a temporary worktree of it, removed after. If git
//! still refuses (a hook says no), `git reset --merge` puts that clean checkout back as it was. After a
//! merge the agent's branch moves to the new base, so its changes start again from there.

use std::path::{Path, PathBuf};

use clawmux_core::changes::MergeMode;
use clawmux_core::wire::Code;

use super::git::{self, GitError};
use super::repo::changed_paths;
use super::spec::WorktreeSpec;
use crate::error::HubError;
pub use clawmux_api::worktree::Merged;

fn trimmed(s: String) -> String {
    s.trim_end_matches('\n').to_owned()
}

/// Where branch `base` is checked out, if anywhere.
async fn checked_out(repo: &Path, base: &str) -> Result<Option<PathBuf>, HubError> {
    let out = git::run(repo, &["worktree", "list", "--porcelain", "-z"])
        .await
        .map_err(|e| e.into_hub("cannot list the repository's worktrees"))?;
    let wanted = format!("branch refs/heads/{base}");
    let mut here = None;
    for field in out.split('\0') {
        if let Some(path) = field.strip_prefix("worktree ") {
            here = Some(PathBuf::from(path));
        } else if field == wanted {
            return Ok(here);
        }
    }
    Ok(None)
}

/// Removes a temporary worktree of the base (and git's record of it).
async fn give_back(repo: &Path, path: &Path) {
    let text = path.to_string_lossy();
    if let Err(e) = git::run(repo, &["worktree", "remove", "--force", &text]).await {
        tracing::warn!(path = %path.display(), error = e.said(), "cannot remove a temporary worktree");
    }
}

/// Refuses what cannot be merged, having written nothing: see the module's list.
async fn check(spec: &WorktreeSpec, worktree: &Path) -> Result<(), HubError> {
    let base = &spec.base;
    let is_branch = git::has_branch(&spec.repo, base)
        .await
        .map_err(|e| e.into_hub("cannot read the base"))?;
    if !is_branch {
        return Err(HubError::new(
            Code::BadBase,
            format!("`{base}` is not a branch: a merge goes into a branch"),
        ));
    }
    let open = changed_paths(worktree, true).await?;
    if !open.is_empty() {
        return Err(HubError::new(
            Code::Uncommitted,
            format!(
                "the agent's work is not all committed ({}): ask it to commit, then merge",
                open.join(", ")
            ),
        ));
    }
    let ahead = git::run(
        &spec.repo,
        &["rev-list", "--count", &format!("{base}..{}", spec.branch)],
    )
    .await
    .map_err(|e| e.into_hub("cannot count the branch's commits"))?;
    if ahead.trim() == "0" {
        return Err(HubError::new(
            Code::NothingToMerge,
            format!("`{}` has no commit that `{base}` lacks", spec.branch),
        ));
    }
    conflicts(spec).await
}

/// Refuses a merge git says would conflict, naming the files.
async fn conflicts(spec: &WorktreeSpec) -> Result<(), HubError> {
    let base = &spec.base;
    let tree = git::ran(
        &spec.repo,
        &[
            "merge-tree",
            "--write-tree",
            "--name-only",
            "--no-messages",
            base,
            &spec.branch,
        ],
        &[],
    )
    .await
    .map_err(|e| e.into_hub("cannot look for conflicts"))?;
    match tree.status {
        Some(0) => Ok(()),
        Some(1) => {
            let files: Vec<&str> = tree
                .stdout
                .lines()
                .skip(1)
                .filter(|l| !l.is_empty())
                .collect();
            Err(HubError::new(
                Code::MergeConflict,
                format!(
                    "`{}` and `{base}` conflict in {}: nothing was merged",
                    spec.branch,
                    files.join(", ")
                ),
            ))
        }
        status => Err(GitError::Failed {
            status,
            stderr: tree.stderr,
        }
        .into_hub("cannot look for conflicts")),
    }
}

/// Merges agent's branch (`spec`, its worktree `worktree`) into its base by `mode`, with `message`;
/// `scratch` holds a temporary worktree of the base when it is checked out nowhere.
pub(crate) async fn merge(
    spec: &WorktreeSpec,
    worktree: &Path,
    scratch: &Path,
    mode: MergeMode,
    message: &str,
) -> Result<Merged, HubError> {
    check(spec, worktree).await?;
    let base = spec.base.as_str();
    match checked_out(&spec.repo, base).await? {
        Some(dir) => {
            let own = changed_paths(&dir, false).await?;
            let merging = git::holds(&dir, &["rev-parse", "-q", "--verify", "MERGE_HEAD"])
                .await
                .map_err(|e| e.into_hub("cannot read the checkout's state"))?;
            if !own.is_empty() || merging {
                return Err(HubError::new(
                    Code::BaseDirty,
                    format!(
                        "`{base}` is checked out in {} with changes of its own{}: commit or stash them, \
                         then merge",
                        dir.display(),
                        if merging { " (a merge under way)" } else { "" }
                    ),
                ));
            }
            merge_in(spec, worktree, &dir, mode, message).await
        }
        None => {
            let path = scratch.join(format!("merge-{}", uuid::Uuid::new_v4()));
            let text = path.to_string_lossy().into_owned();
            git::run(&spec.repo, &["worktree", "add", "--quiet", &text, base])
                .await
                .map_err(|e| e.into_hub(&format!("cannot check `{base}` out to merge into it")))?;
            let merged = merge_in(spec, worktree, &path, mode, message).await;
            give_back(&spec.repo, &path).await;
            merged
        }
    }
}

/// The merge itself, in `target`, a clean checkout of the base.
async fn merge_in(
    spec: &WorktreeSpec,
    worktree: &Path,
    target: &Path,
    mode: MergeMode,
    message: &str,
) -> Result<Merged, HubError> {
    let base = spec.base.as_str();
    let before = git::run(target, &["rev-parse", "HEAD"]).await.map(trimmed);
    let done = match mode {
        MergeMode::Merge => git::run(target, &["merge", "--no-ff", "-m", message, &spec.branch])
            .await
            .map(drop),
        MergeMode::Squash => match git::run(target, &["merge", "--squash", &spec.branch]).await {
            Ok(_) => git::run(target, &["commit", "-m", message]).await.map(drop),
            Err(e) => Err(e),
        },
        MergeMode::Rebase => match git::run(worktree, &["rebase", base]).await {
            Ok(_) => git::run(target, &["merge", "--ff-only", &spec.branch])
                .await
                .map(drop),
            Err(e) => {
                let _ = git::run(worktree, &["rebase", "--abort"]).await;
                Err(e)
            }
        },
    };
    if let Err(e) = done {
        // The checkout was clean: this puts it back as it was.
        let _ = git::run(target, &["reset", "--merge"]).await;
        if let Ok(before) = &before {
            let _ = git::run(target, &["reset", "--keep", before]).await;
        }
        return Err(e.into_hub(&format!("git did not merge into `{base}`")));
    }
    let commit = git::run(target, &["rev-parse", "HEAD"])
        .await
        .map(trimmed)
        .map_err(|e| e.into_hub("cannot read the merged base"))?;
    // The agent carries on from the base it was merged into.
    let follow = match mode {
        MergeMode::Squash => git::run(worktree, &["reset", "--keep", &commit]).await,
        MergeMode::Merge | MergeMode::Rebase => {
            git::run(worktree, &["merge", "--ff-only", &commit]).await
        }
    };
    if let Err(e) = follow {
        tracing::warn!(
            branch = spec.branch,
            error = e.said(),
            "the agent's branch stays where it was"
        );
    }
    Ok(Merged {
        base: base.to_owned(),
        commit,
        mode,
    })
}

#[cfg(test)]
mod tests;
