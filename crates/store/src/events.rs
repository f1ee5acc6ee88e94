//! Agent events and the decision log.
//!
//! [`Store::apply`] is the only way an agent's state changes: in one transaction it stores the raw event,
//! steps the machine from the stored snapshot, records the decision and updates the snapshot. So the
//! snapshot is always exactly the projection of the events before it, which [`Store::replay`] recomputes.

use clawmux_core::{step, Decision, Event, Millis, Outcome, Snapshot, Source};
use sqlx::Connection;
use sqlx::Row;

use crate::agents::{agent_from_row, AGENT_COLUMNS};
use crate::{Store, StoreError};

/// An event on its way into the store.
#[derive(Debug, Clone, Copy)]
pub struct Incoming<'a> {
    /// The agent it concerns.
    pub agent: &'a str,
    /// Who reported it.
    pub source: Source,
    /// The event, parsed from `payload` (for hooks) or built by the hub.
    pub event: &'a Event,
    /// The raw payload as received (a hook's JSON body), empty for the hub's own events.
    pub payload: &'a [u8],
    /// When it happened at its source.
    pub at: Millis,
    /// When the hub received it.
    pub received_at: Millis,
}

/// What applying an event did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The stored event's id.
    pub event_id: i64,
    /// The agent's snapshot before.
    pub before: Snapshot,
    /// The agent's snapshot after.
    pub after: Snapshot,
    /// The decision, as recorded.
    pub decision: Decision,
}

/// A stored event, as received.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct StoredEvent {
    /// Its id (the cursor).
    pub id: i64,
    /// The agent.
    pub agent: String,
    /// Who reported it.
    pub source: String,
    /// Its kind (`hook:PreToolUse`, `wait:connect`, ...).
    pub kind: String,
    /// The raw payload, lossily decoded as UTF-8 for reading.
    pub payload: String,
    /// When it happened at its source.
    pub source_time: Millis,
    /// When it was received.
    pub received_at: Millis,
    /// Why it could not be used, if it could not.
    pub error: Option<String>,
}

/// A row of the decision log.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct StoredDecision {
    /// Its id.
    pub id: i64,
    /// The event that caused it.
    pub event_id: i64,
    /// The agent.
    pub agent: String,
    /// The decision.
    #[serde(flatten)]
    pub decision: Decision,
}

impl Store {
    /// Stores an event and applies it to the agent's state, atomically. Returns the decision, which may be
    /// a suppression; the only errors are an unknown agent and the database's own.
    pub async fn apply(&self, e: Incoming<'_>) -> Result<Applied, StoreError> {
        let mut writer = self.write().await;
        let mut tx = writer.begin().await?;
        let row = sqlx::query(&format!(
            "SELECT {AGENT_COLUMNS} FROM agents WHERE name = ?1"
        ))
        .bind(e.agent)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or_else(|| StoreError::UnknownAgent(e.agent.to_owned()))?;
        let before = agent_from_row(&row)?.snapshot;
        let (after, decision) = step(&before, e.event, e.source, e.at);
        let error = match e.event {
            Event::Rejected { error, .. } => Some(error.as_str()),
            Event::WaitConnected
            | Event::WaitDisconnected
            | Event::Spawned
            | Event::Terminated
            | Event::Hook(_) => None,
        };
        let event_id: i64 = sqlx::query_scalar(
            "INSERT INTO agent_events (agent, source, kind, payload, source_time, received_at, error) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id",
        )
        .bind(e.agent)
        .bind(e.source.as_str())
        .bind(&decision.trigger)
        .bind(e.payload)
        .bind(e.at.0)
        .bind(e.received_at.0)
        .bind(error)
        .fetch_one(&mut *tx)
        .await?;
        let (outcome, reason) = outcome_columns(&decision.outcome);
        sqlx::query(
            "INSERT INTO transitions (event_id, agent, trigger, source, source_time, from_state, to_state, \
             activity, outcome, reason, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )
        .bind(event_id)
        .bind(e.agent)
        .bind(&decision.trigger)
        .bind(decision.source.as_str())
        .bind(decision.at.0)
        .bind(decision.from.as_str())
        .bind(decision.to.as_str())
        .bind(decision.activity.as_deref())
        .bind(outcome)
        .bind(reason)
        .bind(decision.detail.as_deref())
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "UPDATE agents SET state = ?2, activity = ?3, state_since = ?4, last_event = ?5 WHERE name = ?1",
        )
        .bind(e.agent)
        .bind(after.state.as_str())
        .bind(&after.activity)
        .bind(after.since.0)
        .bind(event_id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Applied {
            event_id,
            before,
            after,
            decision,
        })
    }

    /// Recomputes an agent's snapshot from its stored events alone, from registration on.
    pub async fn replay(&self, agent: &str) -> Result<Snapshot, StoreError> {
        let created = self.agent(agent).await?.created_at;
        let rows = sqlx::query(
            "SELECT source, kind, payload, source_time FROM agent_events WHERE agent = ?1 ORDER BY id",
        )
        .bind(agent)
        .fetch_all(&self.reader)
        .await?;
        let mut snapshot = Snapshot::new(created);
        for row in rows {
            let source: String = row.try_get("source")?;
            let source = Source::parse(&source)
                .ok_or_else(|| StoreError::Corrupt(format!("event source `{source}`")))?;
            let kind: String = row.try_get("kind")?;
            let payload: Vec<u8> = row.try_get("payload")?;
            let event = Event::from_stored(&kind, &payload);
            snapshot = step(
                &snapshot,
                &event,
                source,
                Millis(row.try_get("source_time")?),
            )
            .0;
        }
        Ok(snapshot)
    }

    /// An agent's raw events after `after_id`, oldest first, at most `limit`.
    pub async fn events(
        &self,
        agent: &str,
        after_id: i64,
        limit: u32,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, agent, source, kind, payload, source_time, received_at, error FROM agent_events \
             WHERE agent = ?1 AND id > ?2 ORDER BY id LIMIT ?3",
        )
        .bind(agent)
        .bind(after_id)
        .bind(limit)
        .fetch_all(&self.reader)
        .await?;
        rows.iter()
            .map(|r| {
                let payload: Vec<u8> = r.try_get("payload")?;
                Ok(StoredEvent {
                    id: r.try_get("id")?,
                    agent: r.try_get("agent")?,
                    source: r.try_get("source")?,
                    kind: r.try_get("kind")?,
                    payload: String::from_utf8_lossy(&payload).into_owned(),
                    source_time: Millis(r.try_get("source_time")?),
                    received_at: Millis(r.try_get("received_at")?),
                    error: r.try_get("error")?,
                })
            })
            .collect()
    }

    /// An agent's decisions after `after_id`, oldest first, at most `limit`.
    pub async fn decisions(
        &self,
        agent: &str,
        after_id: i64,
        limit: u32,
    ) -> Result<Vec<StoredDecision>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, event_id, agent, trigger, source, source_time, from_state, to_state, activity, \
             outcome, reason, detail FROM transitions WHERE agent = ?1 AND id > ?2 ORDER BY id LIMIT ?3",
        )
        .bind(agent)
        .bind(after_id)
        .bind(limit)
        .fetch_all(&self.reader)
        .await?;
        rows.iter().map(decision_from_row).collect()
    }
}

fn outcome_columns(outcome: &Outcome) -> (&'static str, Option<String>) {
    match outcome {
        Outcome::Moved => ("moved", None),
        Outcome::Stayed => ("stayed", None),
        Outcome::Suppressed(reason) => (
            "suppressed",
            Some(serde_json::to_string(reason).unwrap_or_else(|_| reason.to_string())),
        ),
    }
}

fn decision_from_row(r: &sqlx::sqlite::SqliteRow) -> Result<StoredDecision, StoreError> {
    let corrupt = |what: &str, v: &str| StoreError::Corrupt(format!("{what} `{v}`"));
    let source: String = r.try_get("source")?;
    let from: String = r.try_get("from_state")?;
    let to: String = r.try_get("to_state")?;
    let outcome: String = r.try_get("outcome")?;
    let reason: Option<String> = r.try_get("reason")?;
    let outcome = match (outcome.as_str(), reason) {
        ("moved", _) => Outcome::Moved,
        ("stayed", _) => Outcome::Stayed,
        ("suppressed", Some(reason)) => Outcome::Suppressed(
            serde_json::from_str(&reason).map_err(|_| corrupt("reason", &reason))?,
        ),
        (other, _) => return Err(corrupt("outcome", other)),
    };
    Ok(StoredDecision {
        id: r.try_get("id")?,
        event_id: r.try_get("event_id")?,
        agent: r.try_get("agent")?,
        decision: Decision {
            trigger: r.try_get("trigger")?,
            source: Source::parse(&source).ok_or_else(|| corrupt("source", &source))?,
            at: Millis(r.try_get("source_time")?),
            from: clawmux_core::State::parse(&from).ok_or_else(|| corrupt("state", &from))?,
            to: clawmux_core::State::parse(&to).ok_or_else(|| corrupt("state", &to))?,
            activity: r.try_get("activity")?,
            outcome,
            detail: r.try_get("detail")?,
        },
    })
}
