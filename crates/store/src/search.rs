//! Finding messages by their words: SQLite FTS5 over `messages.text` (the migration `search.sql`: a trigger
//! indexes each message in the statement that stores it), the newest match first by when it was said (not
//! by when it was stored: `clawmux import` stores older conversations after newer ones), with a snippet of
//! each. The messages fall into runs whose times never drop (`search_runs`, kept by a trigger: almost
//! always one run, a few more after imports); each run is read newest first by the index's own order,
//! which stops at a page, and the runs' pages are merged: no search sorts every match of a common word.
//! The query is FTS5 syntax made from the user's words by `clawmux_core::search::fts_query`, never the
//! words themselves.
//!
//! Messages stored before search came are indexed by [`Store::index_older`], a batch per transaction, newest
//! first, while the hub runs: the hub starts as soon as the store opens.

use clawmux_core::search::{Found, MARK_END, MARK_START};
use clawmux_core::wire::Kind;
use clawmux_core::Millis;

use crate::{Store, StoreError};

/// What to look for, and where.
#[derive(Debug, Clone, Default)]
pub struct SearchQuery {
    /// An FTS5 query (`clawmux_core::search::fts_query`).
    pub fts: String,
    /// Only this agent's conversation.
    pub agent: Option<String>,
    /// Only what these spoke; all if empty.
    pub kinds: Vec<Kind>,
    /// Only messages from this time on.
    pub since: Option<Millis>,
    /// Only messages after this one in the order of the results, older (the next page of results).
    pub before: Option<i64>,
    /// At most this many.
    pub limit: u32,
}

/// How far the indexing of older messages is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backlog {
    /// Messages still to index.
    pub left: i64,
}

/// A match as read: seq, id, agent, kind, sender, time, snippet.
type Row = (i64, String, String, String, String, i64, String);

/// Words of context a snippet shows around its matches.
const SNIPPET_TOKENS: i64 = 16;

impl Store {
    /// The messages matching `q`, newest first.
    pub async fn search(&self, q: &SearchQuery) -> Result<Vec<Found>, StoreError> {
        let starts: Vec<i64> = sqlx::query_scalar("SELECT start FROM search_runs ORDER BY start")
            .fetch_all(&self.reader)
            .await?;
        let kinds = serde_json::to_string(&q.kinds.iter().map(|k| k.as_str()).collect::<Vec<_>>())
            .unwrap_or_else(|_| "[]".to_owned());
        let mut bounds = vec![1];
        bounds.extend(starts);
        let mut rows = Vec::new();
        for (i, lo) in bounds.iter().enumerate() {
            let hi = bounds.get(i + 1).map_or(i64::MAX, |next| next - 1);
            rows.extend(self.search_run(q, &kinds, *lo, hi).await?);
        }
        // Newest first by when it was said; the same time in the order stored.
        rows.sort_by_key(|r| std::cmp::Reverse((r.5, r.0)));
        rows.truncate(usize::try_from(q.limit).unwrap_or(usize::MAX));
        Ok(rows
            .into_iter()
            .filter_map(|(seq, id, agent, kind, sender, at, snippet)| {
                Some(Found {
                    seq,
                    id,
                    agent,
                    kind: Kind::parse(&kind)?,
                    sender,
                    at,
                    snippet,
                })
            })
            .collect())
    }

    /// The newest page of `q`'s matches among the messages `lo..=hi`, a run whose times never drop: the
    /// index's order is the order of time there, and the read stops at the page. `kinds` is `q.kinds` as
    /// the JSON list the statement reads.
    async fn search_run(
        &self,
        q: &SearchQuery,
        kinds: &str,
        lo: i64,
        hi: i64,
    ) -> Result<Vec<Row>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT m.seq, m.id, m.agent, m.kind, m.sender, m.at, \
                    snippet(messages_fts, 0, ?6, ?7, '…', ?8) \
             FROM messages_fts JOIN messages m ON m.seq = messages_fts.rowid \
             WHERE messages_fts MATCH ?1 \
               AND messages_fts.rowid BETWEEN ?10 AND ?11 \
               AND (?2 IS NULL OR m.agent = ?2) \
               AND (?3 IS NULL OR m.at >= ?3) \
               AND (?4 IS NULL OR (m.at, m.seq) < (SELECT at, seq FROM messages WHERE seq = ?4)) \
               AND (?9 = '[]' OR m.kind IN (SELECT value FROM json_each(?9))) \
             ORDER BY messages_fts.rowid DESC LIMIT ?5",
        )
        .bind(&q.fts)
        .bind(q.agent.as_deref())
        .bind(q.since.map(|t| t.0))
        .bind(q.before)
        .bind(i64::from(q.limit))
        .bind(MARK_START.to_string())
        .bind(MARK_END.to_string())
        .bind(SNIPPET_TOKENS)
        .bind(kinds)
        .bind(lo)
        .bind(hi)
        .fetch_all(&self.reader)
        .await?)
    }

    /// Messages stored before search came and not indexed yet.
    pub async fn search_backlog(&self) -> Result<Backlog, StoreError> {
        let left: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM messages WHERE seq < (SELECT below FROM search_backfill)",
        )
        .fetch_one(&self.reader)
        .await?;
        Ok(Backlog { left })
    }

    /// Indexes up to `batch` of the newest older messages not indexed yet, in one transaction with the
    /// note of how far it got: how many it indexed, `None` when none were left. (What is left is
    /// [`Store::search_backlog`]'s to count, once, on a reader: counting here would hold the writer.)
    pub async fn index_older(&self, batch: i64) -> Result<Option<u64>, StoreError> {
        let mut w = self.write().await;
        let mut tx = sqlx::Connection::begin(&mut w.conn).await?;
        let below: i64 = sqlx::query_scalar("SELECT below FROM search_backfill")
            .fetch_one(&mut *tx)
            .await?;
        if below <= 1 {
            return Ok(None);
        }
        let from = (below - batch).max(1);
        let indexed = sqlx::query(
            "INSERT INTO messages_fts (rowid, text) \
             SELECT seq, text FROM messages WHERE seq >= ?1 AND seq < ?2",
        )
        .bind(from)
        .bind(below)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        sqlx::query("UPDATE search_backfill SET below = ?1")
            .bind(from)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(Some(indexed))
    }

    /// Whether the index holds exactly the stored messages: each once, none missing (FTS5's own check
    /// against its content table). On the connection that writes the messages and their index (a failed
    /// check leaves FTS5's state on its connection to be cleared by that connection's next transaction).
    pub async fn search_index_is_whole(&self) -> Result<bool, StoreError> {
        let w = self.write().await;
        let checked = w.direct.execute(
            "INSERT INTO messages_fts (messages_fts, rank) VALUES ('integrity-check', 1)",
            [],
        );
        match checked {
            Ok(_) => Ok(true),
            Err(rusqlite::Error::SqliteFailure(e, message))
                if e.extended_code == rusqlite::ffi::SQLITE_CORRUPT_VTAB
                    || message.as_deref().is_some_and(|m| m.contains("malformed")) =>
            {
                Ok(false)
            }
            Err(e) => Err(e.into()),
        }
    }
}
