//! The conflict forecast: whether two agents working in one repository change the same lines (their work
//! would conflict when both are merged) or only the same files, found while they work, before either merges.
//!
//! Each agent's work is taken as it is now, committed or not: its worktree's files go into a scratch index
//! (`ScratchIndex`), which becomes a commit of no branch on top of the agent's HEAD (`git write-tree`,
//! `git commit-tree`: objects only, no ref moves, nothing in the worktree changes). Two such commits are
//! merged in memory by `git merge-tree --write-tree`, from their merge base: the files it cannot merge are
//! conflicts; files both changed that it merges cleanly are the weaker warning.
//!
//! Each agent's work is first set on the base as it is now ([`on_base`]): work already merged into the base
//! brings nothing more, and conflicts with nobody; work that merges onto the base cleanly is compared as it
//! would land. Work that itself conflicts with the base now is compared as it stands.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

pub use clawmux_core::changes::Overlap;

use super::diff::ScratchIndex;
use super::git;
use super::spec::WorktreeSpec;
use crate::error::HubError;

/// The latest forecast of each agent, and which repositories are being looked at now: a look asked for
/// during another of the same repository makes one more after it, never two at once.
#[derive(Default)]
pub struct Forecasts {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    overlaps: HashMap<String, Vec<Overlap>>,
    looking: HashSet<PathBuf>,
    again: HashSet<PathBuf>,
}

impl Forecasts {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What `agent`'s work has in common with the others', as last seen.
    pub fn of(&self, agent: &str) -> Vec<Overlap> {
        self.state()
            .overlaps
            .get(agent)
            .cloned()
            .unwrap_or_default()
    }

    /// Whether to look at `repo` now (`false`: a look is under way, and will run again after).
    pub fn begin(&self, repo: &Path) -> bool {
        let mut s = self.state();
        if s.looking.contains(repo) {
            s.again.insert(repo.to_owned());
            false
        } else {
            s.looking.insert(repo.to_owned());
            true
        }
    }

    /// A look at `repo` ended: whether to look again (something asked during it).
    pub fn end(&self, repo: &Path) -> bool {
        let mut s = self.state();
        if s.again.remove(repo) {
            true
        } else {
            s.looking.remove(repo);
            false
        }
    }

    /// Records what each of `agents` has in common with the others; returns those whose forecast changed.
    pub fn record(&self, agents: HashMap<String, Vec<Overlap>>) -> Vec<(String, Vec<Overlap>)> {
        let mut s = self.state();
        let mut changed = Vec::new();
        for (agent, overlaps) in agents {
            let before = s.overlaps.get(&agent).cloned().unwrap_or_default();
            if before != overlaps {
                changed.push((agent.clone(), overlaps.clone()));
            }
            if overlaps.is_empty() {
                s.overlaps.remove(&agent);
            } else {
                s.overlaps.insert(agent, overlaps);
            }
        }
        changed.sort_by(|a, b| a.0.cmp(&b.0));
        changed
    }
}

/// Agent's work now (worktree `path` from `spec`), as a commit of no branch.
pub(crate) async fn work_now(
    spec: &WorktreeSpec,
    path: &Path,
    scratch: &Path,
) -> Result<String, HubError> {
    let index = ScratchIndex::fill(spec, path, scratch).await?;
    let tree = git::run_with(path, &["write-tree"], &index.env())
        .await
        .map_err(|e| e.into_hub("cannot read the agent's work"))?;
    index.keep().await;
    throwaway_commit(path, tree.trim(), "HEAD", "work in progress")
        .await
        .map_err(|e| e.into_hub("cannot read the agent's work"))
}

/// A commit of `tree` on `parent`, of no branch: objects only, no ref moves, never a signing prompt.
async fn throwaway_commit(
    dir: &Path,
    tree: &str,
    parent: &str,
    what: &str,
) -> Result<String, super::git::GitError> {
    let message = format!("{what} (ClawMux's conflict forecast)");
    let commit = git::run(
        dir,
        &[
            "-c",
            "user.name=ClawMux",
            "-c",
            "user.email=clawmux@localhost",
            "commit-tree",
            "--no-gpg-sign",
            tree,
            "-p",
            parent,
            "-m",
            &message,
        ],
    )
    .await?;
    Ok(commit.trim().to_owned())
}

/// The commit the base of `spec` names now (its commit when the worktree was made, if it is gone).
pub(crate) async fn base_now(repo: &Path, spec: &WorktreeSpec) -> String {
    let named = format!("{}^{{commit}}", spec.base);
    match git::run(repo, &["rev-parse", "--verify", "--quiet", &named]).await {
        Ok(out) if !out.trim().is_empty() => out.trim().to_owned(),
        _ => spec.base_commit.clone(),
    }
}

/// Work `work` (a commit of [`work_now`]) as it would land on `base` (a commit) now: `None` when it brings
/// nothing the base does not have (it was merged); the merge, as a commit of no branch on top of the base,
/// when it merges cleanly; else the work as it is.
pub(crate) async fn on_base(
    repo: &Path,
    base: &str,
    work: &str,
) -> Result<Option<String>, HubError> {
    let fail = |e: super::git::GitError| e.into_hub("cannot set the agent's work on its base");
    let merged = git::ran(
        repo,
        &["merge-tree", "--write-tree", "--no-messages", base, work],
        &[],
    )
    .await
    .map_err(fail)?;
    if merged.status != Some(0) {
        return Ok(Some(work.to_owned()));
    }
    let tree = merged
        .stdout
        .lines()
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned();
    let base_tree = git::run(repo, &["rev-parse", &format!("{base}^{{tree}}")])
        .await
        .map_err(fail)?;
    if tree == base_tree.trim() {
        return Ok(None);
    }
    let commit = throwaway_commit(repo, &tree, base, "work in progress on the base")
        .await
        .map_err(fail)?;
    Ok(Some(commit))
}

/// The files `from..to` changes.
async fn changed(repo: &Path, from: &str, to: &str) -> Result<BTreeSet<String>, HubError> {
    let out = git::run(
        repo,
        &["diff", "--name-only", "-z", "--no-renames", from, to],
    )
    .await
    .map_err(|e| e.into_hub("cannot compare the agents' work"))?;
    Ok(out
        .split('\0')
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect())
}

/// What work `a` and work `b` (commits of [`work_now`]) of repository `repo` have in common; `None`
/// when nothing.
pub(crate) async fn between(
    repo: &Path,
    other: &str,
    a: &str,
    b: &str,
) -> Result<Option<Overlap>, HubError> {
    let base = git::run(repo, &["merge-base", a, b])
        .await
        .map_err(|e| e.into_hub("cannot find where the agents' work parted"))?;
    let base = base.trim();
    let (in_a, in_b) = tokio::try_join!(changed(repo, base, a), changed(repo, base, b))?;
    let both: BTreeSet<String> = in_a.intersection(&in_b).cloned().collect();
    if both.is_empty() {
        return Ok(None);
    }
    let tree = git::ran(
        repo,
        &[
            "merge-tree",
            "--write-tree",
            "--name-only",
            "--no-messages",
            a,
            b,
        ],
        &[],
    )
    .await
    .map_err(|e| e.into_hub("cannot look for conflicts"))?;
    let conflicts: BTreeSet<String> = match tree.status {
        Some(1) => tree
            .stdout
            .lines()
            .skip(1)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect(),
        _ => BTreeSet::new(),
    };
    Ok(Some(Overlap {
        other: other.to_owned(),
        same_files: both.difference(&conflicts).cloned().collect(),
        conflicts: conflicts.into_iter().collect(),
    }))
}

#[cfg(test)]
mod tests;
