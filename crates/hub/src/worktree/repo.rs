//! What a worktree is made of in git: making one for an agent (its branch from a base, the files the
//! repository lists for copying), undoing a new one, and which paths changed in it (its changes with their
//! diffs are read in `diff.rs`). Functions of a folder and the user's git, with no hub, so each is tested
//! on real repositories.

use std::path::{Path, PathBuf};

use clawmux_core::wire::Code;

use super::git::{self, GitError};
use super::spec::{branch_of, path_of, WorktreeSpec, OWN_FILES};
use crate::error::HubError;

/// The file at a repository's top listing files git ignores that each new worktree gets a copy of
/// (`.env`, local config): the convention Claude Code's worktrees, Conductor and others share.
pub const INCLUDE_FILE: &str = ".worktreeinclude";

/// The top folder of the repository `folder` is in.
pub(crate) async fn top_of(folder: &Path) -> Result<PathBuf, HubError> {
    if !folder.is_dir() {
        return Err(HubError::new(
            Code::NotARepository,
            format!("{} is not a folder", folder.display()),
        ));
    }
    match git::run(folder, &["rev-parse", "--show-toplevel"]).await {
        Ok(top) => Ok(PathBuf::from(top.trim_end_matches('\n'))),
        Err(GitError::Failed { .. }) => Err(HubError::new(
            Code::NotARepository,
            format!(
                "{} is not in a git repository: an agent gets a worktree of its own only in one",
                folder.display()
            ),
        )),
        Err(e) => Err(e.into_hub("cannot look for the repository")),
    }
}

/// The branch checked out at `top`; `None` for a detached HEAD.
pub(crate) async fn current_branch(top: &Path) -> Result<Option<String>, HubError> {
    match git::run(top, &["symbolic-ref", "--quiet", "--short", "HEAD"]).await {
        Ok(branch) => Ok(Some(branch.trim_end_matches('\n').to_owned())),
        Err(GitError::Failed { .. }) => Ok(None),
        Err(e) => Err(e.into_hub("cannot read the checked-out branch")),
    }
}

/// The base a worktree starts from: `asked` if it names a commit, else the branch checked out at `top`.
/// Returns its name and the commit it names.
async fn base_of(top: &Path, asked: Option<&str>) -> Result<(String, String), HubError> {
    let name = match asked {
        Some(base) if base.is_empty() || base.starts_with('-') => {
            return Err(HubError::new(
                Code::BadBase,
                format!("`{base}` is not a branch, tag or commit"),
            ))
        }
        Some(base) => base.to_owned(),
        None => match current_branch(top).await? {
            Some(branch) => branch,
            None => {
                return Err(HubError::new(
                    Code::DetachedHead,
                    format!(
                    "{} has no branch checked out (a detached HEAD): name the base to start from",
                    top.display()
                ),
                ))
            }
        },
    };
    let commit = format!("{name}^{{commit}}");
    match git::run(
        top,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &commit,
        ],
    )
    .await
    {
        Ok(id) => Ok((name, id.trim_end_matches('\n').to_owned())),
        Err(GitError::Failed { .. }) => Err(HubError::new(
            Code::BadBase,
            format!(
                "`{name}` names no commit in {}{}",
                top.display(),
                if asked.is_none() {
                    " (the branch has no commit yet)"
                } else {
                    ""
                }
            ),
        )),
        Err(e) => Err(e.into_hub("cannot read the base")),
    }
}

/// Makes agent `name`'s worktree of the repository `folder` is in, on a new branch `clawmux/<name>` from
/// `base` (default: the branch checked out there), in `<data_dir>/worktrees/<name>`, and copies the files
/// the repository lists in `.worktreeinclude`. Refuses, having made nothing, a folder outside a repository,
/// a base that names no commit, a detached HEAD with no base named, a branch or a folder already there.
/// Long: git's steps to make a worktree, each undone if a later one fails.
pub(crate) async fn create(
    data_dir: &Path,
    name: &str,
    folder: &Path,
    base: Option<&str>,
) -> Result<(WorktreeSpec, PathBuf), HubError> {
    let top = top_of(folder).await?;
    let (base, base_commit) = base_of(&top, base).await?;
    let (branch, path) = unused(&top, data_dir, name).await?;
    let parent = path.parent().unwrap_or(data_dir);
    std::fs::create_dir_all(parent).map_err(|e| {
        HubError::new(
            Code::GitFailed,
            format!("cannot create {}: {e}", parent.display()),
        )
    })?;
    let path_text = path.to_string_lossy().into_owned();
    git::run(
        &top,
        &[
            "worktree",
            "add",
            "--no-track",
            "-b",
            &branch,
            &path_text,
            &base_commit,
        ],
    )
    .await
    .map_err(|e| {
        e.into_hub(&format!(
            "git could not make a worktree of {}",
            top.display()
        ))
    })?;
    let spec = WorktreeSpec {
        repo: top,
        branch,
        base,
        base_commit,
    };
    if let Err(e) = copy_included(&spec.repo, &path).await {
        discard_new(&spec, &path).await;
        return Err(e);
    }
    Ok((spec, path))
}

/// The branch and the folder of agent `name`'s new worktree of `top`, neither taken yet.
async fn unused(top: &Path, data_dir: &Path, name: &str) -> Result<(String, PathBuf), HubError> {
    let branch = branch_of(name);
    let taken = git::has_branch(top, &branch)
        .await
        .map_err(|e| e.into_hub("cannot look for the branch"))?;
    if taken {
        return Err(HubError::new(
            Code::BranchExists,
            format!(
                "the branch `{branch}` exists already in {}: remove it, or name the agent otherwise",
                top.display()
            ),
        ));
    }
    let path = path_of(data_dir, name);
    if path.exists() {
        return Err(HubError::new(
            Code::WorktreeExists,
            format!(
                "{} exists already: a worktree of an earlier agent by this name? Remove it first",
                path.display()
            ),
        ));
    }
    Ok((branch, path))
}

/// The paths `git status` lists in `dir` (untracked too when `untracked`), less ClawMux's own files.
pub(crate) async fn changed_paths(dir: &Path, untracked: bool) -> Result<Vec<String>, HubError> {
    let mode = if untracked {
        "--untracked-files=all"
    } else {
        "--untracked-files=no"
    };
    let out = git::run(dir, &["status", "--porcelain=v1", "-z", mode])
        .await
        .map_err(|e| e.into_hub("cannot read the checkout's state"))?;
    let mut paths = Vec::new();
    let mut fields = out.split('\0').filter(|f| !f.is_empty());
    while let Some(entry) = fields.next() {
        let (code, path) = entry.split_at(entry.len().min(3));
        if code.starts_with('R') || code.starts_with('C') {
            let _from = fields.next();
        }
        if !OWN_FILES.contains(&path) {
            paths.push(path.to_owned());
        }
    }
    Ok(paths)
}

/// Removes a worktree made moments ago that its agent never used (its start failed): the folder and the
/// branch, which hold nothing of anyone's.
pub(crate) async fn discard_new(spec: &WorktreeSpec, path: &Path) {
    let path_text = path.to_string_lossy();
    if let Err(e) = git::run(&spec.repo, &["worktree", "remove", "--force", &path_text]).await {
        tracing::warn!(path = %path.display(), error = e.said(), "cannot remove a new worktree");
    }
    if let Err(e) = git::run(&spec.repo, &["branch", "-D", &spec.branch]).await {
        tracing::warn!(
            branch = spec.branch,
            error = e.said(),
            "cannot remove a new branch"
        );
    }
}

/// Copies into `worktree` the files of `top` that its `.worktreeinclude` lists and git ignores (a file git
/// tracks is in the worktree already, and is never copied over).
async fn copy_included(top: &Path, worktree: &Path) -> Result<(), HubError> {
    let include = top.join(INCLUDE_FILE);
    if !include.is_file() {
        return Ok(());
    }
    let from = format!("--exclude-from={}", include.display());
    let listed = git::run(top, &["ls-files", "-z", "--others", "--ignored", &from])
        .await
        .map_err(|e| e.into_hub("cannot read .worktreeinclude"))?;
    let ignored = git::run(
        top,
        &[
            "ls-files",
            "-z",
            "--others",
            "--ignored",
            "--exclude-standard",
        ],
    )
    .await
    .map_err(|e| e.into_hub("cannot list the files git ignores"))?;
    let ignored: std::collections::HashSet<&str> = ignored.split('\0').collect();
    let files: Vec<String> = listed
        .split('\0')
        .filter(|f| !f.is_empty() && ignored.contains(f))
        .map(str::to_owned)
        .collect();
    let (top, worktree) = (top.to_owned(), worktree.to_owned());
    tokio::task::spawn_blocking(move || -> Result<(), HubError> {
        for file in files {
            let (from, to) = (top.join(&file), worktree.join(&file));
            let copied = to
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::copy(&from, &to));
            if let Err(e) = copied {
                return Err(HubError::new(
                    Code::GitFailed,
                    format!("cannot copy {file} (listed in {INCLUDE_FILE}) into the worktree: {e}"),
                ));
            }
        }
        Ok(())
    })
    .await
    .map_err(|e| HubError::new(Code::Internal, e.to_string()))?
}

#[cfg(test)]
mod tests;
