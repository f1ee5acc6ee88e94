//! Agent events and the decision log.
//!
//! [`Store::apply`] is the only way an agent's state changes: in one transaction it stores the raw event,
//! steps the machine from the stored snapshot, records the decision and updates the snapshot. So the
//! snapshot is always exactly the projection of the events before it, which [`Store::replay`] recomputes.

use clawmux_core::{step, Decision, Event, Millis, Outcome, Snapshot, Source};
use sqlx::Row;

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
    /// Recomputes an agent's snapshot from its stored events alone, from registration on.
    pub async fn replay(&self, agent: &str) -> Result<Snapshot, StoreError> {
        let row = self.agent(agent).await?;
        self.replay_before(&row, i64::MAX).await
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
            .map(|r| event_from_row(r).map(|(event, _)| event))
            .collect()
    }

    /// An agent's decisions after `after_id`, oldest first, at most `limit`.
    pub async fn decisions(
        &self,
        agent: &str,
        after_id: i64,
        limit: u32,
    ) -> Result<Vec<StoredDecision>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {DECISION_COLUMNS} FROM {AGENT_DECISIONS} AND e.id > ?2 ORDER BY e.id LIMIT ?3"
        ))
        .bind(agent)
        .bind(after_id)
        .bind(limit)
        .fetch_all(&self.reader)
        .await?;
        rows.iter().map(decision_from_row).collect()
    }
}

/// An agent's events from a moment on, each with the decision recorded for it, and its snapshot before
/// the first of them: a span that replays alone (`clawmux report`).
#[derive(Debug, Clone)]
pub struct Span {
    /// The snapshot before the span's first event.
    pub start: Snapshot,
    /// The events, oldest first, with their raw payloads and recorded decisions.
    pub events: Vec<(StoredEvent, Vec<u8>, Option<Decision>)>,
}

/// The columns of a decision row.
const DECISION_COLUMNS: &str =
    "t.id, t.event_id, t.agent, t.trigger, t.source, t.source_time, t.from_state, t.to_state, \
     t.activity, t.outcome, t.reason, t.detail, t.attention";

/// An agent's decisions (`t`), found through its events (`e`, the agent `?1`): a decision's id is its
/// event's, so the events' index by agent serves both, and a hook's commit writes one such index, not two.
const AGENT_DECISIONS: &str = "agent_events e JOIN transitions t ON t.id = e.id WHERE e.agent = ?1";

impl Store {
    /// An agent's latest decisions, oldest first, at most `limit`.
    pub async fn recent_decisions(
        &self,
        agent: &str,
        limit: u32,
    ) -> Result<Vec<StoredDecision>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {DECISION_COLUMNS} FROM {AGENT_DECISIONS} ORDER BY e.id DESC LIMIT ?2"
        ))
        .bind(agent)
        .bind(limit)
        .fetch_all(&self.reader)
        .await?;
        let mut out = rows
            .iter()
            .map(decision_from_row)
            .collect::<Result<Vec<_>, _>>()?;
        out.reverse();
        Ok(out)
    }

    /// The latest decision that moved the agent, and the latest that raised its "needs you".
    pub async fn latest_causes(
        &self,
        agent: &str,
    ) -> Result<(Option<StoredDecision>, Option<StoredDecision>), StoreError> {
        let moved_sql = format!(
            "SELECT {DECISION_COLUMNS} FROM {AGENT_DECISIONS} AND t.outcome = 'moved' \
             ORDER BY e.id DESC LIMIT 1"
        );
        let raised_sql = format!(
            "SELECT {DECISION_COLUMNS} FROM {AGENT_DECISIONS} \
             AND t.attention LIKE '{{\"change\":\"set\"%' ORDER BY e.id DESC LIMIT 1"
        );
        let moved = sqlx::query(&moved_sql)
            .bind(agent)
            .fetch_optional(&self.reader)
            .await?;
        let raised = sqlx::query(&raised_sql)
            .bind(agent)
            .fetch_optional(&self.reader)
            .await?;
        Ok((
            moved.as_ref().map(decision_from_row).transpose()?,
            raised.as_ref().map(decision_from_row).transpose()?,
        ))
    }

    /// The agent's events received at or after `since` (at most `limit`, the latest), with their decisions,
    /// and its snapshot before them.
    pub async fn span(&self, agent: &str, since: Millis, limit: u32) -> Result<Span, StoreError> {
        let row = self.agent(agent).await?;
        let rows = sqlx::query(
            "SELECT e.id, e.agent, e.source, e.kind, e.payload, e.source_time, e.received_at, e.error \
             FROM agent_events e WHERE e.agent = ?1 AND e.received_at >= ?2 ORDER BY e.id DESC LIMIT ?3",
        )
        .bind(agent)
        .bind(since.0)
        .bind(limit)
        .fetch_all(&self.reader)
        .await?;
        let first = rows.last().map_or(Ok(i64::MAX), |r| r.try_get("id"))?;
        // The span's decisions in one query, not one per event.
        let decided = sqlx::query(&format!(
            "SELECT {DECISION_COLUMNS} FROM {AGENT_DECISIONS} AND e.id >= ?2"
        ))
        .bind(agent)
        .bind(first)
        .fetch_all(&self.reader)
        .await?;
        let mut decisions = std::collections::HashMap::with_capacity(decided.len());
        for r in &decided {
            let d = decision_from_row(r)?;
            decisions.insert(d.event_id, d.decision);
        }
        let mut events = Vec::with_capacity(rows.len());
        for r in rows.iter().rev() {
            let (event, payload) = event_from_row(r)?;
            let decision = decisions.remove(&event.id);
            events.push((event, payload, decision));
        }
        let start = self.replay_before(&row, first).await?;
        Ok(Span { start, events })
    }

    /// The agent's snapshot from its events before `event_id`.
    async fn replay_before(
        &self,
        row: &crate::AgentRow,
        event_id: i64,
    ) -> Result<Snapshot, StoreError> {
        let rows = sqlx::query(
            "SELECT source, kind, payload, source_time FROM agent_events WHERE agent = ?1 AND id < ?2 ORDER BY id",
        )
        .bind(&row.name)
        .bind(event_id)
        .fetch_all(&self.reader)
        .await?;
        let mut snapshot = if row.snapshot.observed {
            Snapshot::observed(row.created_at)
        } else {
            Snapshot::new(row.created_at)
        };
        for r in rows {
            let source: String = r.try_get("source")?;
            let source = Source::parse(&source)
                .ok_or_else(|| StoreError::Corrupt(format!("event source `{source}`")))?;
            let kind: String = r.try_get("kind")?;
            let payload: Vec<u8> = r.try_get("payload")?;
            snapshot = step(
                &snapshot,
                &Event::from_stored(&kind, &payload),
                source,
                Millis(r.try_get("source_time")?),
            )
            .0;
        }
        Ok(snapshot)
    }
}

/// A stored event row, and its raw payload.
fn event_from_row(r: &sqlx::sqlite::SqliteRow) -> Result<(StoredEvent, Vec<u8>), StoreError> {
    let payload: Vec<u8> = r.try_get("payload")?;
    let event = StoredEvent {
        id: r.try_get("id")?,
        agent: r.try_get("agent")?,
        source: r.try_get("source")?,
        kind: r.try_get("kind")?,
        payload: String::from_utf8_lossy(&payload).into_owned(),
        source_time: Millis(r.try_get("source_time")?),
        received_at: Millis(r.try_get("received_at")?),
        error: r.try_get("error")?,
    };
    Ok((event, payload))
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
            attention: match r.try_get::<Option<String>, _>("attention")? {
                Some(t) => Some(serde_json::from_str(&t).map_err(|_| corrupt("attention", &t))?),
                None => None,
            },
        },
    })
}
