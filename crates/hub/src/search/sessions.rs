//! The user's own Claude Code sessions in search, when they opt in (`search_sessions`): the transcripts under
//! `~/.claude/projects/*/*.jsonl` (or `$CLAUDE_CONFIG_DIR/projects`), read incrementally: each scan reads
//! only what a file added since the last (whole lines), and a file that shrank was rewritten and is read
//! again from its start. Scans run one at a time (the feature's lock): when the user opts in, and every
//! [`SCAN_EVERY`] after.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Duration;

use clawmux_core::search::{session_line, Role};
use clawmux_core::Millis;
use clawmux_store::SessionRead;

use crate::clock::now;
use crate::search::Search;

/// How often opted-in sessions are looked at again.
pub const SCAN_EVERY: Duration = Duration::from_secs(30);
/// The most of one file read in one scan; the rest comes at the next.
const READ_MAX: u64 = 16 * 1024 * 1024;

/// The transcripts to read, `<claude dir>/projects/<folder>/<session>.jsonl`, each with its size (from the
/// listing: a file whose size is the bytes already read is not opened).
fn transcripts(claude_dir: &Path) -> Vec<(PathBuf, u64)> {
    let Ok(folders) = std::fs::read_dir(claude_dir.join("projects")) else {
        return Vec::new();
    };
    let mut files: Vec<(PathBuf, u64)> = folders
        .flatten()
        .filter_map(|f| std::fs::read_dir(f.path()).ok())
        .flat_map(|files| files.flatten())
        .filter(|f| f.path().extension().is_some_and(|e| e == "jsonl"))
        .filter_map(|f| {
            let meta = std::fs::metadata(f.path())
                .ok()
                .filter(std::fs::Metadata::is_file)?;
            Some((f.path(), meta.len()))
        })
        .collect();
    files.sort();
    files
}

/// What a transcript added since `from` (whole lines only), read at `at` for lines with no time.
struct Added {
    session_id: String,
    folder: Option<String>,
    from: u64,
    to: u64,
    lines: Vec<(Role, Millis, String)>,
}

fn read_added(path: &Path, known: u64, at: Millis) -> std::io::Result<Option<Added>> {
    let mut file = std::fs::File::open(path)?;
    let size = file.metadata()?.len();
    // Shorter than what was read: rewritten, read again from the start.
    let from = if size < known { 0 } else { known };
    if size == from {
        return Ok(None);
    }
    file.seek(SeekFrom::Start(from))?;
    let mut bytes = Vec::new();
    file.take(READ_MAX).read_to_end(&mut bytes)?;
    let Some(end) = bytes.iter().rposition(|b| *b == b'\n') else {
        return Ok(None);
    };
    bytes.truncate(end + 1);
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut added = Added {
        session_id: stem,
        folder: None,
        from,
        to: from + bytes.len() as u64,
        lines: Vec::new(),
    };
    for line in bytes.split(|b| *b == b'\n') {
        let Some(l) = session_line(line) else {
            continue;
        };
        if added.folder.is_none() {
            added.folder = l.folder.clone();
        }
        let when = l.at.unwrap_or(at);
        added
            .lines
            .extend(l.said.into_iter().map(|(role, text)| (role, when, text)));
    }
    Ok(Some(added))
}

/// Reads what the user's sessions added since the last scan, if they opted in; how many lines it kept.
pub(super) async fn scan(search: &Search) -> usize {
    let _one = search.scanning.lock().await;
    if !search.store.sessions_searched().await.unwrap_or(false) {
        return 0;
    }
    let read: std::collections::HashMap<String, i64> = search
        .store
        .sessions_read()
        .await
        .unwrap_or_default()
        .into_iter()
        .collect();
    let claude_dir = search.claude_dir.clone();
    let files = tokio::task::spawn_blocking(move || transcripts(&claude_dir))
        .await
        .unwrap_or_default();
    let mut kept = 0;
    for (path, size) in files {
        let name = path.to_string_lossy().into_owned();
        let known = read
            .get(&name)
            .map_or(0, |n| u64::try_from(*n).unwrap_or(0));
        if size != known {
            kept += keep_added(search, &path, &name, known).await;
        }
    }
    if kept > 0 {
        let _ = search
            .ui
            .send(crate::ui_event::UiEvent::SessionsRead { lines: kept });
    }
    kept
}

/// Reads what the file at `path` (`name`) added after byte `known` and keeps it; how many lines it kept.
async fn keep_added(search: &Search, path: &Path, name: &str, known: u64) -> usize {
    let at = now();
    let added = {
        let path = path.to_owned();
        tokio::task::spawn_blocking(move || read_added(&path, known, at)).await
    };
    let added = match added {
        Ok(Ok(Some(a))) => a,
        Ok(Ok(None)) | Err(_) => return 0,
        Ok(Err(e)) => {
            tracing::debug!(path = %path.display(), error = %e, "cannot read a session's transcript");
            return 0;
        }
    };
    let keep = SessionRead {
        path: name,
        session_id: &added.session_id,
        folder: added.folder.as_deref(),
        from: i64::try_from(added.from).unwrap_or(i64::MAX),
        to: i64::try_from(added.to).unwrap_or(i64::MAX),
        lines: added.lines,
    };
    match search.store.keep_session_read(&keep).await {
        Ok(()) => keep.lines.len(),
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "cannot keep a session's lines");
            0
        }
    }
}

/// Scans every [`SCAN_EVERY`] while the hub runs (each scan does nothing unless the user opted in).
pub(super) async fn watch(search: Search) {
    let mut tick = tokio::time::interval(SCAN_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        scan(&search).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_lines_are_read_and_a_rewritten_file_again_from_its_start() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("0b5e.jsonl");
        let prompt =
            r#"{"type":"user","cwd":"/src/app","message":{"content":"fix the login test"}}"#;
        std::fs::write(&path, format!("{prompt}\n{{\"type\":\"user\",\"mess")).unwrap();
        let a = read_added(&path, 0, Millis(5)).unwrap().unwrap();
        assert_eq!(
            (a.session_id.as_str(), a.folder.as_deref()),
            ("0b5e", Some("/src/app"))
        );
        assert_eq!(
            a.lines,
            [(Role::User, Millis(5), "fix the login test".to_owned())]
        );
        assert_eq!(a.to, prompt.len() as u64 + 1, "the half line waits");
        assert!(read_added(&path, a.to, Millis(6)).unwrap().is_none());
        std::fs::write(
            &path,
            "{\"type\":\"user\",\"message\":{\"content\":\"new\"}}\n",
        )
        .unwrap();
        let again = read_added(&path, a.to + 100, Millis(7)).unwrap().unwrap();
        assert_eq!((again.from, again.lines.len()), (0, 1));
    }
}
