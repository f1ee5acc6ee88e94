//! The store's schema across versions: what an existing file was written with, checked before anything
//! touches it.
//!
//! Why: a user moves between versions (an update, a downgrade to get out of trouble, a package from another
//! machine). A store an older ClawMux wrote is upgraded, and copied aside first, so a migration that goes
//! wrong costs nothing: `<data dir>/backups/`, the last [`BACKUPS_KEPT`] kept, each 0600 in a 0700 folder
//! (they hold every message). A store a newer ClawMux wrote is refused and left as it is: this version would
//! not know its tables, and sqlx would otherwise only say a migration is "missing".
//!
//! Everything here reads the file on a read-only connection; only the backup writes, and to its own file.

use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use sqlx::migrate::Migrator;

use crate::error::StoreError;

/// Every migration this version knows, in order (`migrations/`, never edited once landed).
pub(crate) static MIGRATOR: Migrator = sqlx::migrate!("./migrations");

/// The folder, beside the database, that holds the copies made before migrations.
pub const BACKUPS_DIR: &str = "backups";

/// How many copies are kept: the newest three.
const BACKUPS_KEPT: usize = 3;

/// The newest schema this version writes: its last migration's version.
fn newest() -> i64 {
    MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0)
}

/// Checks an existing store before it is opened to write: refuses one a newer version wrote, and copies one
/// an older version wrote aside before it is upgraded (the copy is logged). A new or empty file, or one
/// already at this version, is left alone.
///
/// The file is read on a plain read-only connection (rusqlite, on a blocking thread): sqlx's would set WAL
/// mode, a write, which an empty file refuses read-only and a newer store must not get.
pub(crate) async fn prepare(path: &Path) -> Result<(), StoreError> {
    let path = path.to_owned();
    tokio::task::spawn_blocking(move || prepare_now(&path))
        .await
        .map_err(|e| StoreError::Write(format!("the store's check stopped: {e}")))?
}

fn prepare_now(path: &Path) -> Result<(), StoreError> {
    if !path.exists() {
        return Ok(());
    }
    let conn = rusqlite::Connection::open_with_flags(
        path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    let applied = applied(&conn)?;
    let Some(&written) = applied.iter().max() else {
        return Ok(());
    };
    if applied.iter().any(|v| !MIGRATOR.version_exists(*v)) {
        return Err(StoreError::Newer {
            path: path.to_owned(),
            written,
            known: newest(),
        });
    }
    if MIGRATOR.iter().all(|m| applied.contains(&m.version)) {
        return Ok(());
    }
    backup(&conn, path, written)
}

/// The migrations the file records as applied (none when it has no schema yet).
fn applied(conn: &rusqlite::Connection) -> Result<Vec<i64>, StoreError> {
    let has_table: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations')",
        [],
        |row| row.get(0),
    )?;
    if !has_table {
        return Ok(Vec::new());
    }
    let mut versions = conn.prepare("SELECT version FROM _sqlx_migrations ORDER BY version")?;
    let applied = versions
        .query_map([], |row| row.get(0))?
        .collect::<Result<Vec<i64>, _>>()?;
    Ok(applied)
}

/// Copies the store, as one consistent snapshot (`VACUUM INTO`, the WAL's commits included), to
/// `backups/<ms since the epoch>-schema-<version>.db`, then lets go of all but the newest copies.
fn backup(conn: &rusqlite::Connection, path: &Path, written: i64) -> Result<(), StoreError> {
    let failed = |what: &str, e: &dyn std::fmt::Display| {
        StoreError::Write(format!(
            "cannot copy the store aside before upgrading it ({what}): {e}"
        ))
    };
    let dir = path
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join(BACKUPS_DIR);
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)
        .map_err(|e| failed("its folder", &e))?;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| failed("its folder", &e))?;
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let copy = made_empty(&dir, ms, written).map_err(|e| failed("its file", &e))?;
    let name = copy
        .to_str()
        .ok_or_else(|| failed("its name", &"not UTF-8"))?;
    if let Err(e) = conn.execute("VACUUM INTO ?1", [name]) {
        let _ = std::fs::remove_file(&copy);
        return Err(failed("the copy", &e));
    }
    prune(&dir).map_err(|e| failed("older copies", &e))?;
    tracing::info!(copy = %copy.display(), schema = written, "store copied aside before its upgrade");
    Ok(())
}

/// Makes the copy's file, empty and private (SQLite writes into an empty file and keeps its mode), named
/// for the time: the next millisecond's name if two copies are made within one.
fn made_empty(dir: &Path, ms: u128, written: i64) -> std::io::Result<PathBuf> {
    let mut tried = 0;
    loop {
        let copy = dir.join(format!("{:015}-schema-{written}.db", ms + tried));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&copy)
        {
            Ok(_) => return Ok(copy),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && tried < 1000 => tried += 1,
            Err(e) => return Err(e),
        }
    }
}

/// Removes all but the newest [`BACKUPS_KEPT`] copies (their names sort by when they were made).
fn prune(dir: &Path) -> std::io::Result<()> {
    let mut copies = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let is_copy = name.to_str().is_some_and(|n| {
            n.ends_with(".db")
                && n.contains("-schema-")
                && n.starts_with(|c: char| c.is_ascii_digit())
        });
        if is_copy {
            copies.push(entry.path());
        }
    }
    copies.sort();
    let old = copies.len().saturating_sub(BACKUPS_KEPT);
    for copy in &copies[..old] {
        std::fs::remove_file(copy)?;
    }
    Ok(())
}
