//! Claude Code's own sessions, searchable when the user opts in (the migration `session_search.sql`): each
//! transcript file read incrementally, what it adds kept as lines indexed by FTS5, and how far each file was
//! read kept in the same transaction as its lines, so a crash neither loses nor repeats any.

use clawmux_core::search::{FoundInSession, Role, MARK_END, MARK_START};
use clawmux_core::Millis;

use crate::{Store, StoreError};

/// Lines read from one transcript, to keep.
#[derive(Debug, Clone)]
pub struct SessionRead<'a> {
    /// The transcript's path.
    pub path: &'a str,
    /// Its session.
    pub session_id: &'a str,
    /// The folder it ran in, once a line says.
    pub folder: Option<&'a str>,
    /// Where the read began: the bytes read before (0 reads it from its start, dropping what was kept).
    pub from: i64,
    /// Where it ended.
    pub to: i64,
    /// What it said: who, when, what.
    pub lines: Vec<(Role, Millis, String)>,
}

impl Store {
    /// Whether the user opted in to searching their Claude Code sessions.
    pub async fn sessions_searched(&self) -> Result<bool, StoreError> {
        let on: i64 = sqlx::query_scalar("SELECT sessions FROM search_settings WHERE id = 1")
            .fetch_one(&self.reader)
            .await?;
        Ok(on == 1)
    }

    /// Opts in or out of searching the user's Claude Code sessions; out forgets what was read.
    pub async fn set_sessions_searched(&self, on: bool) -> Result<(), StoreError> {
        let mut w = self.write().await;
        let mut tx = sqlx::Connection::begin(&mut w.conn).await?;
        sqlx::query("UPDATE search_settings SET sessions = ?1 WHERE id = 1")
            .bind(i64::from(on))
            .execute(&mut *tx)
            .await?;
        if !on {
            sqlx::query("DELETE FROM session_lines")
                .execute(&mut *tx)
                .await?;
            sqlx::query("DELETE FROM session_files")
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// How far each transcript was read: (path, bytes).
    pub async fn sessions_read(&self) -> Result<Vec<(String, i64)>, StoreError> {
        Ok(sqlx::query_as("SELECT path, indexed_to FROM session_files")
            .fetch_all(&self.reader)
            .await?)
    }

    /// Keeps what one read of a transcript brought, and how far it got, in one transaction. A read from 0
    /// of a file read before (it was rewritten) replaces what was kept of it.
    pub async fn keep_session_read(&self, r: &SessionRead<'_>) -> Result<(), StoreError> {
        let mut w = self.write().await;
        let mut tx = sqlx::Connection::begin(&mut w.conn).await?;
        let file: i64 = sqlx::query_scalar(
            "INSERT INTO session_files (path, session_id, folder, indexed_to) VALUES (?1, ?2, ?3, ?4) \
             ON CONFLICT(path) DO UPDATE SET indexed_to = ?4, folder = COALESCE(folder, ?3) \
             RETURNING id",
        )
        .bind(r.path)
        .bind(r.session_id)
        .bind(r.folder)
        .bind(r.to)
        .fetch_one(&mut *tx)
        .await?;
        if r.from == 0 {
            sqlx::query("DELETE FROM session_lines WHERE file = ?1")
                .bind(file)
                .execute(&mut *tx)
                .await?;
        }
        for (role, at, text) in &r.lines {
            sqlx::query("INSERT INTO session_lines (file, role, at, text) VALUES (?1, ?2, ?3, ?4)")
                .bind(file)
                .bind(role.as_str())
                .bind(at.0)
                .bind(text)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Lines of the user's Claude Code sessions matching `fts` (an FTS5 query from
    /// `clawmux_core::search::fts_query`), from `since` on, the newest first.
    pub async fn search_sessions(
        &self,
        fts: &str,
        since: Option<Millis>,
        limit: u32,
    ) -> Result<Vec<FoundInSession>, StoreError> {
        let rows: Vec<(String, Option<String>, String, i64, String)> = sqlx::query_as(
            "SELECT f.session_id, f.folder, l.role, l.at, \
                    snippet(session_lines_fts, 0, ?3, ?4, '…', 16) \
             FROM session_lines_fts JOIN session_lines l ON l.id = session_lines_fts.rowid \
             JOIN session_files f ON f.id = l.file \
             WHERE session_lines_fts MATCH ?1 AND (?2 IS NULL OR l.at >= ?2) \
             ORDER BY session_lines_fts.rowid DESC LIMIT ?5",
        )
        .bind(fts)
        .bind(since.map(|t| t.0))
        .bind(MARK_START.to_string())
        .bind(MARK_END.to_string())
        .bind(i64::from(limit))
        .fetch_all(&self.reader)
        .await?;
        Ok(rows
            .into_iter()
            .filter_map(|(session_id, folder, role, at, snippet)| {
                Some(FoundInSession {
                    session_id,
                    folder,
                    role: Role::parse(&role)?,
                    at,
                    snippet,
                })
            })
            .collect())
    }
}
