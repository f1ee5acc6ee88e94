//! An agent's changes as git shows them: its commits since the fork point, every file changed since then
//! (committed or not, new ones too) with its diff, read through a scratch copy of the agent's index so that
//! its own is never touched. Functions of a worktree and the user's git, with no hub, tested on real
//! repositories.

use std::path::{Path, PathBuf};

use clawmux_core::changes::{self, Changes, Shown};
use clawmux_core::wire::Code;

use super::git::{self, GitError};
use super::spec::{WorktreeSpec, OWN_FILES};
use crate::error::HubError;

/// The commit the agent's branch left its base at: where the base and the branch meet now (the base may
/// have moved on), or the base's commit when the worktree was made if the base is gone.
async fn fork_point(spec: &WorktreeSpec, worktree: &Path) -> Result<String, HubError> {
    let base = format!("{}^{{commit}}", spec.base);
    match git::run(worktree, &["merge-base", "--end-of-options", &base, "HEAD"]).await {
        Ok(id) => Ok(id.trim_end_matches('\n').to_owned()),
        Err(GitError::Failed { .. }) => Ok(spec.base_commit.clone()),
        Err(e) => Err(e.into_hub("cannot find where the branch left its base")),
    }
}

/// The agent's changes in `worktree`: its commits since the fork point and every file changed since then,
/// committed or not (new files too), each with its diff when the panel shows one. The agent's own index is
/// never touched: git reads the worktree through a copy of it in `scratch`.
/// Long: git's reads of the changes through a scratch index, in the order they need each other.
pub(crate) async fn changes(
    spec: &WorktreeSpec,
    worktree: &Path,
    scratch: &Path,
) -> Result<(Changes, Vec<(String, String)>), HubError> {
    let failed = |what: &'static str| move |e: GitError| e.into_hub(what);
    let (fork, index) = tokio::try_join!(
        fork_point(spec, worktree),
        ScratchIndex::fill(spec, worktree, scratch)
    )?;
    let env = index.env();
    let (format, range) = (
        format!("--format={}", changes::LOG_FORMAT),
        format!("{fork}..HEAD"),
    );
    // Anything the scratch index holds that the last commit does not is not committed yet.
    let uncommitted_args = ["diff", "--cached", "--name-only", "-z", "HEAD"];
    let name_status_args = ["diff", "--cached", "-z", "-M", "--name-status", &fork];
    let numstat_args = ["diff", "--cached", "-z", "-M", "--numstat", &fork];
    let log_args = ["log", "-z", &format, &range];
    let (not_committed, name_status, numstat, log) = tokio::try_join!(
        git::run_with(worktree, &uncommitted_args, &env),
        git::run_with(worktree, &name_status_args, &env),
        git::run_with(worktree, &numstat_args, &env),
        git::run(worktree, &log_args),
    )
    .map_err(failed("cannot read the changes"))?;
    let uncommitted = !not_committed.is_empty();
    // What is shown before the generated marks are known; the marks and the diffs are read together.
    let unmarked = changes::files(&name_status, &numstat, |_| false)
        .map_err(|e| HubError::new(Code::GitFailed, e.to_string()))?;
    let paths: Vec<String> = unmarked.iter().map(|f| f.path.clone()).collect();
    let (marked, patch) = tokio::try_join!(
        generated(worktree, &paths),
        patch_of(worktree, &fork, &unmarked, &env)
    )?;
    let files = changes::files(&name_status, &numstat, |p| marked.contains(p))
        .map_err(|e| HubError::new(Code::GitFailed, e.to_string()))?;
    let commits =
        changes::commits(&log).map_err(|e| HubError::new(Code::GitFailed, e.to_string()))?;
    index.keep().await;
    let patches = patch.map_or_else(Vec::new, |chunks| shown_patches(&unmarked, &files, chunks));
    Ok((
        Changes {
            branch: spec.branch.clone(),
            base: spec.base.clone(),
            fork_point: fork,
            commits,
            files,
            uncommitted,
        },
        patches,
    ))
}

/// Each diff read for a file listed before the generated marks were known, kept for the files still shown
/// as a diff once they are: (path, patch).
fn shown_patches(
    unmarked: &[changes::FileChange],
    files: &[changes::FileChange],
    chunks: Vec<String>,
) -> Vec<(String, String)> {
    unmarked
        .iter()
        .filter(|f| f.shown == Shown::Diff)
        .map(|f| f.path.clone())
        .zip(chunks)
        .filter(|(path, _)| {
            files
                .iter()
                .any(|f| &f.path == path && f.shown == Shown::Diff)
        })
        .collect()
}

/// Where the scratch index of `spec`'s agent is kept between reads, in `scratch`.
pub(crate) fn kept_index(scratch: &Path, spec: &WorktreeSpec) -> PathBuf {
    scratch.join(format!("index-{}", spec.branch.replace('/', "-")))
}

/// The index a read starts from: the one kept from the last read, unless the agent's own index changed
/// since (its git added, removed or committed something: its index says what is tracked), or none.
fn index_to_start_from<'a>(own: &'a Path, kept: &'a Path) -> Option<&'a Path> {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    match (modified(own), modified(kept)) {
        (Some(own_at), Some(kept_at)) if kept_at > own_at => Some(kept),
        (Some(_), _) => Some(own),
        (None, Some(_)) => Some(kept),
        (None, None) => None,
    }
}

/// The diff of each of `files` git can show (binary and huge ones left out), in their order, one chunk
/// each; `None` if git's output did not split as expected (logged).
async fn patch_of(
    worktree: &Path,
    fork: &str,
    files: &[changes::FileChange],
    env: &[(&str, &Path)],
) -> Result<Option<Vec<String>>, HubError> {
    let shown: Vec<&changes::FileChange> =
        files.iter().filter(|f| f.shown == Shown::Diff).collect();
    if shown.is_empty() {
        return Ok(Some(Vec::new()));
    }
    let mut args: Vec<String> = [
        "diff",
        "--cached",
        "-M",
        "--no-color",
        "--no-ext-diff",
        fork,
        "--",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    if shown.len() == files.len() {
        // Every changed file: no pathspec for git to match each path of the index against.
        args.push(".".to_owned());
    } else {
        for f in &shown {
            args.extend(f.old_path.iter().map(|p| format!(":(literal){p}")));
            args.push(format!(":(literal){}", f.path));
        }
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let patch = git::run_with(worktree, &args, env)
        .await
        .map_err(|e| e.into_hub("cannot read the diff"))?;
    let chunks = split_patch(&patch);
    if chunks.len() == shown.len() {
        Ok(Some(chunks))
    } else {
        tracing::warn!(
            files = shown.len(),
            chunks = chunks.len(),
            "a diff did not split by file"
        );
        Ok(None)
    }
}

/// A copy of an agent's index holding its whole worktree (`git add --all` into the copy): what git reads
/// the uncommitted work through, the agent's own index never touched. Removed when dropped, unless kept
/// for the next read.
pub(crate) struct ScratchIndex {
    file: Scratch,
    kept: PathBuf,
}

impl ScratchIndex {
    /// Copies the index to start from into `scratch` and adds every file of `worktree` to the copy.
    pub(crate) async fn fill(
        spec: &WorktreeSpec,
        worktree: &Path,
        scratch: &Path,
    ) -> Result<ScratchIndex, HubError> {
        let index_path = ["rev-parse", "--path-format=absolute", "--git-path", "index"];
        let own_index = git::run(worktree, &index_path)
            .await
            .map_err(|e| e.into_hub("cannot find the worktree's index"))?;
        let own_index = PathBuf::from(own_index.trim_end_matches('\n'));
        let index = ScratchIndex {
            file: Scratch(scratch.join(format!("index-{}", uuid::Uuid::new_v4()))),
            kept: kept_index(scratch, spec),
        };
        if let Some(from) = index_to_start_from(&own_index, &index.kept) {
            let (from, to) = (from.to_owned(), index.file.0.clone());
            tokio::task::spawn_blocking(move || copy_index(&from, &to))
                .await
                .map_err(std::io::Error::other)
                .and_then(|copied| copied)
                .map_err(|e| {
                    HubError::new(Code::GitFailed, format!("cannot copy the index: {e}"))
                })?;
        }
        let mut add = vec![
            "add".to_owned(),
            "--all".to_owned(),
            "--".to_owned(),
            ".".to_owned(),
        ];
        add.extend(
            OWN_FILES
                .iter()
                .map(|f| format!(":(top,exclude,literal){f}")),
        );
        let add: Vec<&str> = add.iter().map(String::as_str).collect();
        git::run_with(worktree, &add, &index.env())
            .await
            .map_err(|e| e.into_hub("cannot read the worktree's files"))?;
        Ok(index)
    }

    /// The environment that points git at this index.
    pub(crate) fn env(&self) -> [(&'static str, &Path); 1] {
        [("GIT_INDEX_FILE", self.file.0.as_path())]
    }

    /// Keeps the refreshed copy to start the next read: git then looks again only at files changed since.
    pub(crate) async fn keep(self) {
        if tokio::fs::rename(&self.file.0, &self.kept).await.is_err() {
            tracing::debug!(index = %self.kept.display(), "the scratch index was not kept");
        }
    }
}

/// Copies an index with its modification time. Git trusts a file whose size and times match its entry,
/// unless the entry is as new as the index (a file changed in the second the index was written, whose
/// times git cannot tell apart); a copy dated now would hide that, and an edit of the same size made in
/// that second would go unseen.
fn copy_index(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::copy(from, to)?;
    let written = std::fs::metadata(from)?.modified()?;
    std::fs::File::options()
        .write(true)
        .open(to)?
        .set_modified(written)
}

/// A scratch file, removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A whole `git diff` as one patch per file, in git's order.
fn split_patch(patch: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in patch.split_inclusive('\n') {
        if line.starts_with("diff --git ") || out.is_empty() {
            out.push(String::new());
        }
        if let Some(last) = out.last_mut() {
            last.push_str(line);
        }
    }
    out
}

/// Which of `paths` the repository marks `linguist-generated`.
async fn generated(
    worktree: &Path,
    paths: &[String],
) -> Result<std::collections::HashSet<String>, HubError> {
    if paths.is_empty() {
        return Ok(Default::default());
    }
    let mut args = vec!["check-attr", "-z", "linguist-generated", "--"];
    args.extend(paths.iter().map(String::as_str));
    let out = git::run(worktree, &args)
        .await
        .map_err(|e| e.into_hub("cannot read the repository's attributes"))?;
    let fields: Vec<&str> = out.split('\0').collect();
    Ok(fields
        .chunks(3)
        .filter(|c| c.len() == 3 && matches!(c[2], "set" | "true"))
        .map(|c| c[0].to_owned())
        .collect())
}

#[cfg(test)]
mod tests;
