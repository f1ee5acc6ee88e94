//! The shared board's records: items added, listed and moved, and who is told when one is done. A move
//! reads the item, applies `clawmux_core::board::apply` and writes the outcome in one transaction on the
//! single writer, so two agents taking one item cannot both win.

use clawmux_core::board::{apply, Actor, Move, Refused, Task, TaskState};
use clawmux_core::Millis;
use sqlx::sqlite::SqliteRow;
use sqlx::{Connection, Row};

use crate::{Store, StoreError};

const TASK_COLUMNS: &str = "id, title, body, state, owner, branch, creator, created_at, updated_at";

fn task_from_row(row: &SqliteRow) -> Result<Task, StoreError> {
    let state: String = row.try_get("state")?;
    Ok(Task {
        id: row.try_get("id")?,
        title: row.try_get("title")?,
        body: row.try_get("body")?,
        state: TaskState::parse(&state)
            .ok_or_else(|| StoreError::Corrupt(format!("task state `{state}`")))?,
        owner: row.try_get("owner")?,
        branch: row.try_get("branch")?,
        creator: row.try_get("creator")?,
        created_at: Millis(row.try_get("created_at")?),
        updated_at: Millis(row.try_get("updated_at")?),
    })
}

/// Which items a list shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskFilter {
    /// In this state only.
    pub state: Option<TaskState>,
    /// Held by this agent only.
    pub owner: Option<String>,
    /// With these words in the title or the body.
    pub text: Option<String>,
    /// At most this many, the newest first.
    pub limit: i64,
}

/// A new item.
#[derive(Debug, Clone, Copy)]
pub struct NewTask<'a> {
    /// One line.
    pub title: &'a str,
    /// What it asks.
    pub body: &'a str,
    /// An agent, or `user`.
    pub creator: &'a str,
    /// When.
    pub at: Millis,
}

/// Why a move changed nothing.
#[derive(Debug)]
pub enum MoveError {
    /// No item by that number.
    Unknown(i64),
    /// The board's rule refused it.
    Refused(Refused),
    /// The store failed.
    Store(StoreError),
}

impl From<sqlx::Error> for MoveError {
    fn from(e: sqlx::Error) -> MoveError {
        MoveError::Store(e.into())
    }
}

impl From<StoreError> for MoveError {
    fn from(e: StoreError) -> MoveError {
        MoveError::Store(e)
    }
}

impl Store {
    /// Adds an item, open and nobody's; its creator, if an agent, is told when it is done.
    pub async fn add_task(&self, new: &NewTask<'_>) -> Result<Task, StoreError> {
        let mut writer = self.write().await;
        let mut tx = writer.conn.begin().await?;
        let row = sqlx::query(&format!(
            "INSERT INTO tasks (title, body, state, creator, created_at, updated_at) \
             VALUES (?1, ?2, 'open', ?3, ?4, ?4) RETURNING {TASK_COLUMNS}"
        ))
        .bind(new.title)
        .bind(new.body)
        .bind(new.creator)
        .bind(new.at.0)
        .fetch_one(&mut *tx)
        .await?;
        let task = task_from_row(&row)?;
        sqlx::query(
            "INSERT OR IGNORE INTO task_watchers (task, agent) \
             SELECT ?1, name FROM agents WHERE name = ?2",
        )
        .bind(task.id)
        .bind(new.creator)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(task)
    }

    /// One item.
    pub async fn task(&self, id: i64) -> Result<Option<Task>, StoreError> {
        let row = sqlx::query(&format!("SELECT {TASK_COLUMNS} FROM tasks WHERE id = ?1"))
            .bind(id)
            .fetch_optional(&self.reader)
            .await?;
        row.as_ref().map(task_from_row).transpose()
    }

    /// The items `filter` names, the newest first.
    pub async fn tasks(&self, filter: &TaskFilter) -> Result<Vec<Task>, StoreError> {
        let like = filter.text.as_ref().map(|t| {
            format!(
                "%{}%",
                t.replace('\\', "\\\\")
                    .replace('%', "\\%")
                    .replace('_', "\\_")
            )
        });
        // One JSON array built inside SQLite: a page crosses from its thread once, not row by row.
        let json: String = sqlx::query_scalar(
            "SELECT COALESCE(json_group_array(json_object('id', id, 'title', title, 'body', body, \
             'state', state, 'owner', owner, 'branch', branch, 'creator', creator, \
             'created_at', created_at, 'updated_at', updated_at) ORDER BY id DESC), '[]') FROM ( \
             SELECT * FROM tasks WHERE (?1 IS NULL OR state = ?1) \
             AND (?2 IS NULL OR owner = ?2) \
             AND (?3 IS NULL OR title LIKE ?3 ESCAPE '\\' OR body LIKE ?3 ESCAPE '\\') \
             ORDER BY id DESC LIMIT ?4)",
        )
        .bind(filter.state.map(TaskState::as_str))
        .bind(filter.owner.as_deref())
        .bind(like)
        .bind(filter.limit)
        .fetch_one(&self.reader)
        .await?;
        serde_json::from_str(&json).map_err(|e| StoreError::Corrupt(format!("task page: {e}")))
    }

    /// `by` makes `what` of item `id`, with `branch` the taker's worktree branch: the item as it is now,
    /// or why nothing changed.
    pub async fn move_task(
        &self,
        id: i64,
        by: Actor<'_>,
        what: &Move,
        branch: Option<&str>,
        at: Millis,
    ) -> Result<Task, MoveError> {
        let mut writer = self.write().await;
        let mut tx = writer.conn.begin().await?;
        let row = sqlx::query(&format!("SELECT {TASK_COLUMNS} FROM tasks WHERE id = ?1"))
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or(MoveError::Unknown(id))?;
        let task = task_from_row(&row)?;
        let (state, owner) = apply(&task, by, what).map_err(MoveError::Refused)?;
        // A new owner's branch replaces the old; an item given back keeps none.
        let branch = match (&owner, what) {
            (None, _) => None,
            (Some(_), Move::Take | Move::Assign { .. }) => branch.map(str::to_owned),
            (Some(_), Move::Review | Move::Done | Move::Drop) => task.branch.clone(),
        };
        let row = sqlx::query(&format!(
            "UPDATE tasks SET state = ?2, owner = ?3, branch = ?4, updated_at = ?5 WHERE id = ?1 \
             RETURNING {TASK_COLUMNS}"
        ))
        .bind(id)
        .bind(state.as_str())
        .bind(owner.as_deref())
        .bind(branch)
        .bind(at.0)
        .fetch_one(&mut *tx)
        .await?;
        let moved = task_from_row(&row)?;
        tx.commit().await?;
        Ok(moved)
    }

    /// `agent` is told when item `id` is done. False when it was already.
    pub async fn watch_task(&self, id: i64, agent: &str) -> Result<bool, StoreError> {
        let mut writer = self.write().await;
        let done = sqlx::query("INSERT OR IGNORE INTO task_watchers (task, agent) VALUES (?1, ?2)")
            .bind(id)
            .bind(agent)
            .execute(&mut writer.conn)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// The agents told when item `id` is done.
    pub async fn task_watchers(&self, id: i64) -> Result<Vec<String>, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT agent FROM task_watchers WHERE task = ?1 ORDER BY agent")
                .bind(id)
                .fetch_all(&self.reader)
                .await?,
        )
    }
}
