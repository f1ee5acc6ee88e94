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

use std::path::{Path, PathBuf};

use sqlx::migrate::Migrator;
use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};
use sqlx::Connection;

use crate::error::StoreError;

/// Every migration this version knows, in order (`migrations/`, never edited once landed).
pub(crate) static MIGRATOR: Migrator = sqlx::migrate!("./migrations");

/// The folder, beside the database, that holds the copies made before migrations.
pub const BACKUPS_DIR: &str = "backups";

/// How many copies are kept: the newest three.
pub const BACKUPS_KEPT: usize = 3;

/// The newest schema this version writes: its last migration's version.
pub fn newest() -> i64 {
    MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0)
}

/// Checks an existing store before it is opened to write: refuses one a newer version wrote, and copies one
/// an older version wrote aside before it is upgraded. Returns the copy, if one was made. A new or empty
/// file, or one already at this version, is left alone.
pub(crate) async fn prepare(
    path: &Path,
    options: &SqliteConnectOptions,
) -> Result<Option<PathBuf>, StoreError> {
    if !tokio::fs::try_exists(path).await.unwrap_or(false) {
        return Ok(None);
    }
    let mut conn = SqliteConnection::connect_with(&options.clone().read_only(true)).await?;
    let applied = applied(&mut conn).await?;
    let Some(&written) = applied.iter().max() else {
        conn.close().await?;
        return Ok(None);
    };
    if let Some(&unknown) = applied.iter().find(|v| !MIGRATOR.version_exists(**v)) {
        conn.close().await?;
        return Err(StoreError::Newer {
            path: path.to_owned(),
            written: written.max(unknown),
            known: newest(),
        });
    }
    let pending = MIGRATOR.iter().any(|m| !applied.contains(&m.version));
    let copy = if pending {
        Some(backup(&mut conn, path, written).await?)
    } else {
        None
    };
    conn.close().await?;
    Ok(copy)
}

/// The migrations the file records as applied (none when it has no schema yet).
async fn applied(conn: &mut SqliteConnection) -> Result<Vec<i64>, StoreError> {
    let has_table: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations')",
    )
    .fetch_one(&mut *conn)
    .await?;
    if !has_table {
        return Ok(Vec::new());
    }
    Ok(
        sqlx::query_scalar("SELECT version FROM _sqlx_migrations ORDER BY version")
            .fetch_all(&mut *conn)
            .await?,
    )
}

/// Copies the store, as one consistent snapshot (`VACUUM INTO`, the WAL's commits included), to
/// `backups/<ms since the epoch>-schema-<version>.db`, then lets go of all but the newest copies.
async fn backup(
    conn: &mut SqliteConnection,
    path: &Path,
    written: i64,
) -> Result<PathBuf, StoreError> {
    let failed = |what: &str, e: &dyn std::fmt::Display| {
        StoreError::Write(format!(
            "cannot copy the store aside before upgrading it ({what}): {e}"
        ))
    };
    let dir = path
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join(BACKUPS_DIR);
    let mut builder = tokio::fs::DirBuilder::new();
    builder.recursive(true).mode(0o700);
    builder
        .create(&dir)
        .await
        .map_err(|e| failed("its folder", &e))?;
    tokio::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o700))
        .await
        .map_err(|e| failed("its folder", &e))?;
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let copy = made_empty(&dir, ms, written)
        .await
        .map_err(|e| failed("its file", &e))?;
    let name = copy
        .to_str()
        .ok_or_else(|| failed("its name", &"not UTF-8"))?;
    if let Err(e) = sqlx::query("VACUUM INTO ?")
        .bind(name)
        .execute(&mut *conn)
        .await
    {
        let _ = tokio::fs::remove_file(&copy).await;
        return Err(failed("the copy", &e));
    }
    prune(&dir).await.map_err(|e| failed("older copies", &e))?;
    tracing::info!(copy = %copy.display(), schema = written, "store copied aside before its upgrade");
    Ok(copy)
}

/// Makes the copy's file, empty and private (SQLite writes into an empty file and keeps its mode), named
/// for the time: the next millisecond's name if two copies are made within one.
async fn made_empty(dir: &Path, ms: u128, written: i64) -> std::io::Result<PathBuf> {
    let mut tried = 0;
    loop {
        let copy = dir.join(format!("{:015}-schema-{written}.db", ms + tried));
        match tokio::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&copy)
            .await
        {
            Ok(_) => return Ok(copy),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && tried < 1000 => tried += 1,
            Err(e) => return Err(e),
        }
    }
}

/// Removes all but the newest [`BACKUPS_KEPT`] copies (their names sort by when they were made).
async fn prune(dir: &Path) -> std::io::Result<()> {
    let mut copies = Vec::new();
    let mut entries = tokio::fs::read_dir(dir).await?;
    while let Some(entry) = entries.next_entry().await? {
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
        tokio::fs::remove_file(copy).await?;
    }
    Ok(())
}
