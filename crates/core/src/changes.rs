//! What an agent changed in its worktree, as the Changes panel and `clawmux diff` show it: the commits on its
//! branch since it left its base, and each file changed since then (committed or not) with its counts and
//! how it is shown.
//!
//! Pure: git's machine-readable output (`-z` lists, so any path survives) in, the wire type out. The hub
//! runs git (`crates/hub/src/worktree/`); what is read here is tested without a repository.

use serde::{Deserialize, Serialize};

use crate::Millis;

/// Over this many changed lines (added and removed) a file's diff is named, not shown.
pub const HUGE_LINES: u64 = 5_000;

/// An agent's changes against the point where its branch left its base.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Changes {
    /// The agent's branch (`clawmux/<agent>`).
    pub branch: String,
    /// What it was started from, as the user named it (a branch, a tag, a commit).
    pub base: String,
    /// The commit where the branch left the base (`git merge-base`): the diff's left side.
    pub fork_point: String,
    /// The branch's commits since then, newest first.
    pub commits: Vec<Commit>,
    /// Every file changed since then, committed or not, by path.
    pub files: Vec<FileChange>,
    /// Whether the worktree holds changes not committed yet.
    pub uncommitted: bool,
}

/// One commit of the agent's branch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Commit {
    /// Its full id.
    pub id: String,
    /// Its first line.
    pub summary: String,
    /// Its author's name.
    pub author: String,
    /// When it was made.
    pub at: Millis,
}

/// How a file changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::EnumIter)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    /// New.
    Added,
    /// Changed in place.
    Modified,
    /// Gone.
    Deleted,
    /// Moved (perhaps changed too): `old_path` says from where.
    Renamed,
    /// Copied from `old_path`.
    Copied,
    /// Its kind changed (a file became a link, say).
    TypeChanged,
}

/// What the panel shows of a file: its diff, or why not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::EnumIter)]
#[serde(rename_all = "snake_case")]
pub enum Shown {
    /// Its unified diff.
    Diff,
    /// Binary: named, with no lines to show.
    Binary,
    /// Over [`HUGE_LINES`] changed lines: named with its counts; its diff only when asked for.
    Huge,
    /// Generated (a lock file, or marked `linguist-generated`): named with its counts.
    Generated,
}

/// One changed file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChange {
    /// Its path now (for a deleted file, the path it had), relative to the repository's top.
    pub path: String,
    /// Where it was renamed or copied from.
    pub old_path: Option<String>,
    /// How it changed.
    pub status: FileStatus,
    /// Lines added (none for a binary file).
    pub added: Option<u64>,
    /// Lines removed (none for a binary file).
    pub removed: Option<u64>,
    /// What the panel shows of it.
    pub shown: Shown,
}

/// Git output that is not what was asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("git's output could not be read: {0}")]
pub struct Unreadable(pub String);

/// One entry of `git diff --name-status -z`: the status, the path, and the old path of a rename or copy.
fn name_status(z: &str) -> Result<Vec<(FileStatus, String, Option<String>)>, Unreadable> {
    let mut fields = z.split('\0').filter(|f| !f.is_empty());
    let mut out = Vec::new();
    while let Some(code) = fields.next() {
        let mut path = || {
            fields
                .next()
                .map(str::to_owned)
                .ok_or_else(|| Unreadable(format!("a status `{code}` without its path")))
        };
        let entry = match code.as_bytes().first() {
            Some(b'A') => (FileStatus::Added, path()?, None),
            Some(b'M') => (FileStatus::Modified, path()?, None),
            Some(b'D') => (FileStatus::Deleted, path()?, None),
            Some(b'T') => (FileStatus::TypeChanged, path()?, None),
            Some(b'R') => {
                let old = path()?;
                (FileStatus::Renamed, path()?, Some(old))
            }
            Some(b'C') => {
                let old = path()?;
                (FileStatus::Copied, path()?, Some(old))
            }
            _ => return Err(Unreadable(format!("an unknown status `{code}`"))),
        };
        out.push(entry);
    }
    Ok(out)
}

/// Lines added and removed; `None` for a binary file.
type Counts = Option<(u64, u64)>;

/// The counts of `git diff --numstat -z`, by path now.
fn numstat(z: &str) -> Result<Vec<(String, Counts)>, Unreadable> {
    let mut fields = z.split('\0');
    let mut out = Vec::new();
    while let Some(head) = fields.next() {
        if head.is_empty() {
            continue;
        }
        let mut parts = head.splitn(3, '\t');
        let (Some(added), Some(removed), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(Unreadable(format!("a numstat line `{head}`")));
        };
        let counts = match (added, removed) {
            ("-", "-") => None,
            (a, r) => Some((
                a.parse()
                    .map_err(|_| Unreadable(format!("a count `{a}`")))?,
                r.parse()
                    .map_err(|_| Unreadable(format!("a count `{r}`")))?,
            )),
        };
        // A rename or copy: an empty path, then the old and the new one.
        let path = if path.is_empty() {
            let _old = fields.next();
            fields
                .next()
                .ok_or_else(|| Unreadable("a rename without its new path".to_owned()))?
                .to_owned()
        } else {
            path.to_owned()
        };
        out.push((path, counts));
    }
    Ok(out)
}

/// Whether a file is one people do not review by line: a lock file or another well-known generated file.
/// (A repository marks its own with the `linguist-generated` attribute, which the hub asks git for.)
pub fn generated_by_name(path: &str) -> bool {
    const LOCKS: [&str; 10] = [
        "Cargo.lock",
        "package-lock.json",
        "npm-shrinkwrap.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "poetry.lock",
        "Pipfile.lock",
        "Gemfile.lock",
        "composer.lock",
        "go.sum",
    ];
    let name = path.rsplit('/').next().unwrap_or(path);
    LOCKS.contains(&name)
        || [".min.js", ".min.css", ".pb.go", "_pb2.py", ".map"]
            .iter()
            .any(|end| name.ends_with(end))
}

/// The changed files from git's `--name-status -z` and `--numstat -z` of the same diff, each with what the
/// panel shows of it; `generated` says which paths the repository marks as generated.
pub fn files(
    name_status_z: &str,
    numstat_z: &str,
    generated: impl Fn(&str) -> bool,
) -> Result<Vec<FileChange>, Unreadable> {
    let counts: std::collections::HashMap<String, Counts> =
        numstat(numstat_z)?.into_iter().collect();
    let mut out: Vec<FileChange> = name_status(name_status_z)?
        .into_iter()
        .map(|(status, path, old_path)| {
            let count = counts.get(&path).copied().flatten();
            let binary = counts.get(&path).is_some_and(Option::is_none);
            let shown = if binary {
                Shown::Binary
            } else if generated_by_name(&path) || generated(&path) {
                Shown::Generated
            } else if count.is_some_and(|(a, r)| a + r > HUGE_LINES) {
                Shown::Huge
            } else {
                Shown::Diff
            };
            FileChange {
                path,
                old_path,
                status,
                added: count.map(|c| c.0),
                removed: count.map(|c| c.1),
                shown,
            }
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// The format [`commits`] reads: `git log -z --format=` this.
pub const LOG_FORMAT: &str = "%H%x1f%s%x1f%an%x1f%ct";

/// The commits of `git log -z --format=LOG_FORMAT`.
pub fn commits(z: &str) -> Result<Vec<Commit>, Unreadable> {
    z.split('\0')
        .map(|r| r.trim_start_matches('\n'))
        .filter(|r| !r.is_empty())
        .map(|record| {
            let f: Vec<&str> = record.split('\x1f').collect();
            let [id, summary, author, at] = f[..] else {
                return Err(Unreadable(format!("a commit `{record}`")));
            };
            let secs: i64 = at
                .trim()
                .parse()
                .map_err(|_| Unreadable(format!("a commit time `{at}`")))?;
            Ok(Commit {
                id: id.to_owned(),
                summary: summary.to_owned(),
                author: author.to_owned(),
                at: Millis(secs.saturating_mul(1000)),
            })
        })
        .collect()
}

/// What one agent's work (committed or not) has in common with another's in the same repository: the
/// conflict forecast.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overlap {
    /// The other agent.
    pub other: String,
    /// Files both change on the same lines: merging both would conflict there.
    pub conflicts: Vec<String>,
    /// Files both change on different lines.
    pub same_files: Vec<String>,
}

/// How an agent's branch goes into its base.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, strum::EnumIter)]
#[serde(rename_all = "snake_case")]
pub enum MergeMode {
    /// A merge commit on the base, the branch's commits kept.
    #[default]
    Merge,
    /// One commit on the base with all of the branch's changes.
    Squash,
    /// The branch's commits replayed on the base, which then moves to them (no merge commit).
    Rebase,
}

/// Claude Code's tools that never change a file: the end of any other tool call (an edit, a command, a
/// subagent, a tool of an MCP server) may have changed the agent's worktree.
const READ_ONLY_TOOLS: [&str; 12] = [
    "Read",
    "Glob",
    "Grep",
    "LS",
    "WebFetch",
    "WebSearch",
    "TodoWrite",
    "AskUserQuestion",
    "ExitPlanMode",
    "EnterPlanMode",
    "BashOutput",
    "ListMcpResourcesTool",
];

/// Whether the end of a call of `tool` may have changed files: when the Changes panel reads them again.
pub fn may_change_files(tool: &str) -> bool {
    !READ_ONLY_TOOLS.contains(&tool)
}

/// The longest first line a suggested message keeps.
const SUBJECT_MAX: usize = 72;

/// The message a merge of agent `agent`'s branch is prefilled with, from what it said of its work (its
/// latest message to the user, `summary`) and its commits, newest first: no model is asked.
pub fn merge_message(agent: &str, summary: Option<&str>, commits: &[Commit]) -> String {
    let said = summary.map(str::trim).filter(|s| !s.is_empty());
    let first = said
        .and_then(|s| s.lines().map(str::trim).find(|l| !l.is_empty()))
        .map(|l| l.trim_start_matches(['#', '*', '-', ' ']))
        .unwrap_or_default();
    let subject = match (first.is_empty(), commits) {
        (false, _) => first.to_owned(),
        (true, [only]) => only.summary.clone(),
        (true, _) => format!("The work of {agent}"),
    };
    let subject = match subject.char_indices().nth(SUBJECT_MAX) {
        Some((cut, _)) => format!("{}...", subject[..cut].trim_end()),
        None => subject,
    };
    let mut out = subject;
    if let Some(rest) = said.map(|s| s.split_once('\n').map_or("", |(_, r)| r).trim()) {
        if !rest.is_empty() {
            out.push_str("\n\n");
            out.push_str(rest);
        }
    }
    if !commits.is_empty() {
        out.push_str(&format!("\n\nFrom {agent}'s branch:\n"));
        for c in commits.iter().rev() {
            out.push_str(&format!("- {}\n", c.summary));
        }
        out.truncate(out.trim_end().len());
    }
    out
}

#[cfg(test)]
mod tests;
