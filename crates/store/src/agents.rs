//! Agents: who exists, where it works, and the cached projection of its events.

use clawmux_core::wire::check_agent_name;
use clawmux_core::{Millis, Snapshot, State};
use sqlx::sqlite::SqliteRow;
use sqlx::Row;

use crate::{Store, StoreError};

/// An agent as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentRow {
    /// The agent's name, which is also its session id (`CLAWMUX_SESSION_ID`).
    pub name: String,
    /// Its work folder.
    pub work_dir: String,
    /// When it was registered.
    pub created_at: Millis,
    /// Its state, status_text and time in state: the projection of its events.
    pub snapshot: Snapshot,
    /// The id of the last event applied (0 if none).
    pub last_event: i64,
    /// The seq of the last message handed to it.
    pub inbox_cursor: i64,
    /// The seq of the last message of its conversation the user has seen.
    pub read_cursor: i64,
    /// Claude Code's conversation id, to resume it.
    pub claude_session_id: Option<String>,
    /// How the hub starts this agent (JSON of the hub's launch spec); `None` for an agent that runs on
    /// its own.
    pub launch: Option<String>,
}

pub(crate) const AGENT_COLUMNS: &str = "name, work_dir, created_at, state, activity, state_since, \
     last_event, inbox_cursor, read_cursor, claude_session_id, launch, attention, last_tool, observed, \
     watermark";

/// A JSON column: NULL is `None`, anything unreadable is corrupt.
fn json_column<T: serde::de::DeserializeOwned>(
    row: &SqliteRow,
    column: &str,
) -> Result<Option<T>, StoreError> {
    let text: Option<String> = row.try_get(column)?;
    text.map(|t| {
        serde_json::from_str(&t).map_err(|_| StoreError::Corrupt(format!("{column} `{t}`")))
    })
    .transpose()
}

pub(crate) fn agent_from_row(row: &SqliteRow) -> Result<AgentRow, StoreError> {
    let state: String = row.try_get("state")?;
    Ok(AgentRow {
        name: row.try_get("name")?,
        work_dir: row.try_get("work_dir")?,
        created_at: Millis(row.try_get("created_at")?),
        snapshot: Snapshot {
            state: State::parse(&state)
                .ok_or_else(|| StoreError::Corrupt(format!("state `{state}`")))?,
            activity: row.try_get("activity")?,
            since: Millis(row.try_get("state_since")?),
            attention: json_column(row, "attention")?,
            last_tool: json_column(row, "last_tool")?,
            observed: row.try_get::<i64, _>("observed")? == 1,
            watermark: Millis(row.try_get("watermark")?),
        },
        last_event: row.try_get("last_event")?,
        inbox_cursor: row.try_get("inbox_cursor")?,
        read_cursor: row.try_get("read_cursor")?,
        claude_session_id: row.try_get("claude_session_id")?,
        launch: row.try_get("launch")?,
    })
}

impl Store {
    /// Registers a new agent in STARTING. Refuses a bad name or a name already taken.
    pub async fn add_agent(
        &self,
        name: &str,
        work_dir: &str,
        at: Millis,
    ) -> Result<AgentRow, StoreError> {
        self.add_launched_agent(name, work_dir, None, at).await
    }

    /// Registers a new agent in STARTING, with how the hub starts it (`launch`, see [`AgentRow::launch`]),
    /// in one write: an agent the hub spawned is never stored without it.
    pub async fn add_launched_agent(
        &self,
        name: &str,
        work_dir: &str,
        launch: Option<&str>,
        at: Millis,
    ) -> Result<AgentRow, StoreError> {
        check_agent_name(name)?;
        let snapshot = Snapshot::new(at);
        let inserted = sqlx::query(
            "INSERT INTO agents (name, work_dir, created_at, state, activity, state_since, launch, watermark) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?3, ?6, ?3) ON CONFLICT(name) DO NOTHING",
        )
        .bind(name)
        .bind(work_dir)
        .bind(at.0)
        .bind(snapshot.state.as_str())
        .bind(&snapshot.activity)
        .bind(launch)
        .execute(&mut self.write().await.conn)
        .await?;
        if inserted.rows_affected() == 0 {
            return Err(StoreError::AgentExists(name.to_owned()));
        }
        self.agent(name).await
    }

    /// One agent.
    pub async fn agent(&self, name: &str) -> Result<AgentRow, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {AGENT_COLUMNS} FROM agents WHERE name = ?1"
        ))
        .bind(name)
        .fetch_optional(&self.reader)
        .await?
        .ok_or_else(|| StoreError::UnknownAgent(name.to_owned()))?;
        agent_from_row(&row)
    }

    /// Every agent, by name.
    pub async fn agents(&self) -> Result<Vec<AgentRow>, StoreError> {
        let rows = sqlx::query(&format!("SELECT {AGENT_COLUMNS} FROM agents ORDER BY name"))
            .fetch_all(&self.reader)
            .await?;
        rows.iter().map(agent_from_row).collect()
    }

    /// Registers a Claude Code session the hub did not start (seen through the user's own hooks) as an
    /// observed agent, keyed by Claude's session id. Refuses a bad name, a taken name, or a session already
    /// registered.
    pub async fn add_observed_agent(
        &self,
        name: &str,
        work_dir: &str,
        claude_session_id: &str,
        at: Millis,
    ) -> Result<AgentRow, StoreError> {
        check_agent_name(name)?;
        let snapshot = Snapshot::observed(at);
        let inserted = sqlx::query(
            "INSERT INTO agents (name, work_dir, created_at, state, activity, state_since, observed, \
             watermark, claude_session_id) VALUES (?1, ?2, ?3, ?4, '', ?3, 1, ?3, ?5) ON CONFLICT DO NOTHING",
        )
        .bind(name)
        .bind(work_dir)
        .bind(at.0)
        .bind(snapshot.state.as_str())
        .bind(claude_session_id)
        .execute(&mut self.write().await.conn)
        .await?;
        if inserted.rows_affected() == 0 {
            return Err(StoreError::AgentExists(name.to_owned()));
        }
        self.agent(name).await
    }

    /// The observed agent of a Claude Code session, if one is registered.
    pub async fn observed_agent(
        &self,
        claude_session_id: &str,
    ) -> Result<Option<AgentRow>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {AGENT_COLUMNS} FROM agents WHERE observed = 1 AND claude_session_id = ?1"
        ))
        .bind(claude_session_id)
        .fetch_optional(&self.reader)
        .await?;
        row.as_ref().map(agent_from_row).transpose()
    }

    /// The agent (spawned or observed) whose Claude Code conversation is `claude_session_id`, if any.
    pub async fn agent_by_claude_session(
        &self,
        claude_session_id: &str,
    ) -> Result<Option<AgentRow>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {AGENT_COLUMNS} FROM agents WHERE claude_session_id = ?1 ORDER BY observed LIMIT 1"
        ))
        .bind(claude_session_id)
        .fetch_optional(&self.reader)
        .await?;
        row.as_ref().map(agent_from_row).transpose()
    }

    /// Records how the hub starts an agent.
    pub async fn set_launch(&self, name: &str, launch: &str) -> Result<(), StoreError> {
        let done = sqlx::query("UPDATE agents SET launch = ?2 WHERE name = ?1")
            .bind(name)
            .bind(launch)
            .execute(&mut self.write().await.conn)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::UnknownAgent(name.to_owned()));
        }
        Ok(())
    }

    /// Removes an agent that has nothing yet: no message and no event. This undoes a registration whose
    /// start failed, so a failed spawn leaves nothing behind; an agent with any history is never removed.
    pub async fn forget_new_agent(&self, name: &str) -> Result<bool, StoreError> {
        let mut writer = self.write().await;
        let done = sqlx::query(
            "DELETE FROM agents WHERE name = ?1 \
             AND NOT EXISTS (SELECT 1 FROM messages WHERE agent = ?1) \
             AND NOT EXISTS (SELECT 1 FROM agent_events WHERE agent = ?1)",
        )
        .bind(name)
        .execute(&mut writer.conn)
        .await?;
        writer.snapshots.remove(name);
        Ok(done.rows_affected() == 1)
    }

    /// Records Claude Code's conversation id for an agent (to resume it later).
    pub async fn set_claude_session(
        &self,
        name: &str,
        claude_session_id: &str,
    ) -> Result<(), StoreError> {
        let done = sqlx::query("UPDATE agents SET claude_session_id = ?2 WHERE name = ?1")
            .bind(name)
            .bind(claude_session_id)
            .execute(&mut self.write().await.conn)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::UnknownAgent(name.to_owned()));
        }
        Ok(())
    }
}

impl Store {
    /// Marks the user as having read `agent`'s conversation up to `seq` (never backwards).
    pub async fn mark_read(&self, agent: &str, seq: i64) -> Result<(), StoreError> {
        let done =
            sqlx::query("UPDATE agents SET read_cursor = MAX(read_cursor, ?2) WHERE name = ?1")
                .bind(agent)
                .bind(seq)
                .execute(&mut self.write().await.conn)
                .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::UnknownAgent(agent.to_owned()));
        }
        Ok(())
    }

    /// How many messages from agents in `agent`'s conversation the user has not read.
    pub async fn unread(&self, agent: &str) -> Result<i64, StoreError> {
        let n: Option<i64> = sqlx::query_scalar(
            "SELECT (SELECT COUNT(*) FROM messages m WHERE m.agent = a.name AND m.seq > a.read_cursor \
             AND m.kind IN ('assistant', 'agent')) FROM agents a WHERE a.name = ?1",
        )
        .bind(agent)
        .fetch_optional(&self.reader)
        .await?;
        n.ok_or_else(|| StoreError::UnknownAgent(agent.to_owned()))
    }
}
