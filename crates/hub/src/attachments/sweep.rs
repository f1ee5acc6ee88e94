//! Letting go of kept files no message names. A file is kept when the user adds it, before the message
//! is sent; one whose message never went (removed from the tray, the page closed) would stay for good.
//! Once a day, and at start, every file in the folder that no stored message names and that nobody has
//! kept for [`UNSENT_KEPT_FOR`] is removed. The wait is long because a message queued in a page while the
//! hub was down names its files when it is finally sent; and keeping a file again (the same content)
//! renews its time, so a file is never removed between its keeping and its send.
//!
//! A file a message names stays as long as the message: the chat draws it from the history.

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// How long a kept file that no message names is kept.
pub const UNSENT_KEPT_FOR: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// How often the folder is swept while the hub runs.
pub const EVERY: Duration = Duration::from_secs(24 * 60 * 60);

/// Removes from `dir` what no message names (`named`: file names, the attachments' ids) and is older than
/// `UNSENT_KEPT_FOR` at `now`, a temporary left by a crash included. Returns the names removed.
pub fn sweep(dir: &Path, named: &HashSet<String>, now: SystemTime) -> std::io::Result<Vec<String>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut removed = Vec::new();
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if named.contains(&name) {
            continue;
        }
        // The entry itself, never what a link points to.
        let Ok(meta) = std::fs::symlink_metadata(entry.path()) else {
            continue;
        };
        let age = meta
            .modified()
            .ok()
            .and_then(|at| now.duration_since(at).ok())
            .unwrap_or_default();
        if age <= UNSENT_KEPT_FOR || meta.is_dir() {
            continue;
        }
        match std::fs::remove_file(entry.path()) {
            Ok(()) => removed.push(name),
            Err(e) => tracing::warn!(file = name, error = %e, "could not remove an unsent file"),
        }
    }
    Ok(removed)
}

/// Renews a kept file's time: it was just kept again.
pub fn renew(path: &Path) -> std::io::Result<()> {
    std::fs::File::options()
        .append(true)
        .open(path)?
        .set_modified(SystemTime::now())
}
