//! Agent events and the decision log.
//!
//! [`Store::apply`] is the only way an agent's state changes: in one transaction it stores the raw event,
//! steps the machine from the stored snapshot, records the decision and updates the snapshot. So the
//! snapshot is always exactly the projection of the events before it, which [`Store::replay`] recomputes.

use clawmux_core::{step, Decision, Event, Millis, Outcome, Snapshot, Source};
use sqlx::{Row, SqliteConnection};
use tokio::sync::oneshot;

use crate::agents::{agent_from_row, AGENT_COLUMNS};
use crate::{Store, StoreError, Writer};

/// The most events committed in one transaction (bounds the statements' sizes and the wait of the last).
const MAX_BATCH: usize = 32;

/// An event waiting for the writer.
#[derive(Debug)]
struct Pending {
    agent: String,
    source: Source,
    event: Event,
    payload: Vec<u8>,
    at: Millis,
    received_at: Millis,
    done: oneshot::Sender<Result<Applied, StoreError>>,
}

/// Events waiting for the writer. A std mutex: held only to push or to take, never across an await.
#[derive(Debug, Clone, Default)]
pub(crate) struct Queue(std::sync::Arc<std::sync::Mutex<std::collections::VecDeque<Pending>>>);

impl Queue {
    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::VecDeque<Pending>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn push(&self, p: Pending) {
        self.lock().push_back(p);
    }

    fn take(&self, max: usize) -> Vec<Pending> {
        let mut q = self.lock();
        let n = q.len().min(max);
        q.drain(..n).collect()
    }
}

/// A decided event, ready to be written.
struct Decided {
    id: i64,
    pending: Pending,
    before: Snapshot,
    after: Snapshot,
    decision: Decision,
}

/// Decides and commits a batch of events in one transaction, then answers each caller.
async fn commit_batch(writer: &mut Writer, batch: Vec<Pending>) {
    // Decide in order against the cached snapshots, without touching the cache until the commit.
    let mut snapshots: std::collections::HashMap<String, Snapshot> =
        std::collections::HashMap::new();
    let mut decided = Vec::with_capacity(batch.len());
    let mut next_id = writer.next_event;
    for p in batch {
        let before = match snapshots
            .get(&p.agent)
            .or_else(|| writer.snapshots.get(&p.agent))
        {
            Some(s) => s.clone(),
            None => match load_snapshot(&mut writer.conn, &p.agent).await {
                Ok(Some(s)) => {
                    writer.snapshots.insert(p.agent.clone(), s.clone());
                    s
                }
                Ok(None) => {
                    let _ = p.done.send(Err(StoreError::UnknownAgent(p.agent.clone())));
                    continue;
                }
                Err(e) => {
                    let _ = p.done.send(Err(e));
                    continue;
                }
            },
        };
        let (after, decision) = step(&before, &p.event, p.source, p.at);
        snapshots.insert(p.agent.clone(), after.clone());
        decided.push(Decided {
            id: next_id,
            pending: p,
            before,
            after,
            decision,
        });
        next_id += 1;
    }
    if decided.is_empty() {
        return;
    }
    match write_batch(&mut writer.conn, &decided, &snapshots).await {
        Ok(()) => {
            writer.next_event = next_id;
            writer.snapshots.extend(snapshots);
            for d in decided {
                let _ = d.pending.done.send(Ok(Applied {
                    event_id: d.id,
                    before: d.before,
                    after: d.after,
                    decision: d.decision,
                }));
            }
        }
        Err(e) => {
            let why = e.to_string();
            for d in decided {
                let _ = d.pending.done.send(Err(StoreError::Write(why.clone())));
            }
        }
    }
}

async fn load_snapshot(
    conn: &mut SqliteConnection,
    agent: &str,
) -> Result<Option<Snapshot>, StoreError> {
    let row = sqlx::query(&format!(
        "SELECT {AGENT_COLUMNS} FROM agents WHERE name = ?1"
    ))
    .bind(agent)
    .fetch_optional(&mut *conn)
    .await?;
    row.as_ref()
        .map(|r| agent_from_row(r).map(|a| a.snapshot))
        .transpose()
}

/// Writes a decided batch: all events in one statement, all decisions in another, one snapshot update per
/// agent, in one transaction.
///
/// The whole transaction is one query string, sent to SQLite's thread in one round trip: each statement
/// sent apart costs a hand-off to that thread and back, and five of them were most of a hook's latency.
async fn write_batch(
    conn: &mut SqliteConnection,
    decided: &[Decided],
    snapshots: &std::collections::HashMap<String, Snapshot>,
) -> Result<(), StoreError> {
    // Anonymous `?` placeholders, bound in order across the statements: sqlx resolves a numbered `?NNN`
    // by name, for each of the hundreds of parameters of a full batch.
    let rows = |n: usize, width: usize| -> String {
        let row = format!("({})", vec!["?"; width].join(", "));
        vec![row; n].join(", ")
    };
    let mut sql = format!(
        "BEGIN IMMEDIATE; \
         INSERT INTO agent_events (id, agent, source, kind, payload, source_time, received_at, error) VALUES {}; \
         INSERT INTO transitions (event_id, agent, trigger, source, source_time, from_state, to_state, \
         activity, outcome, reason, detail, attention) VALUES {};",
        rows(decided.len(), 8),
        rows(decided.len(), 12)
    );
    for _ in snapshots {
        sql.push_str(
            " UPDATE agents SET state = ?, activity = ?, state_since = ?, last_event = ?, attention = ?, \
             last_tool = ?, watermark = ? WHERE name = ?;",
        );
    }
    sql.push_str(" COMMIT;");
    let mut q = sqlx::query(&sql);
    for d in decided {
        let error = match &d.pending.event {
            Event::Rejected { error, .. } => Some(error.as_str()),
            Event::WaitConnected
            | Event::WaitDisconnected
            | Event::Spawned
            | Event::Terminated
            | Event::Interrupted
            | Event::Transcript(_)
            | Event::Hook(_) => None,
        };
        q = q
            .bind(d.id)
            .bind(d.pending.agent.as_str())
            .bind(d.pending.source.as_str())
            .bind(d.decision.trigger.as_str())
            .bind(d.pending.payload.as_slice())
            .bind(d.pending.at.0)
            .bind(d.pending.received_at.0)
            .bind(error);
    }
    for d in decided {
        let (outcome, reason) = outcome_columns(&d.decision.outcome);
        q = q
            .bind(d.id)
            .bind(d.pending.agent.as_str())
            .bind(d.decision.trigger.as_str())
            .bind(d.decision.source.as_str())
            .bind(d.decision.at.0)
            .bind(d.decision.from.as_str())
            .bind(d.decision.to.as_str())
            .bind(d.decision.activity.as_deref())
            .bind(outcome)
            .bind(reason)
            .bind(d.decision.detail.as_deref())
            .bind(to_json(d.decision.attention.as_ref()));
    }
    for (agent, s) in snapshots {
        let last = decided
            .iter()
            .rev()
            .find(|d| &d.pending.agent == agent)
            .map_or(0, |d| d.id);
        q = q
            .bind(s.state.as_str())
            .bind(s.activity.as_str())
            .bind(s.since.0)
            .bind(last)
            .bind(to_json(s.attention.as_ref()))
            .bind(to_json(s.last_tool.as_ref()))
            .bind(s.watermark.0)
            .bind(agent.as_str());
    }
    if let Err(e) = q.execute(&mut *conn).await {
        // A statement failed half way: the transaction it opened must not stay open for the next batch.
        let _ = sqlx::query("ROLLBACK").execute(&mut *conn).await;
        return Err(e.into());
    }
    Ok(())
}

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
    ///
    /// Group commit: the event joins a queue, and whoever holds the writer commits the whole queue in one
    /// transaction. Alone, an event costs one short transaction; under load, many events share one.
    ///
    /// Safe to cancel at any await: the commit runs in a task of its own, so a caller that stops waiting (a
    /// request whose client went away) leaves its event either queued and committed by the next writer, or
    /// committed with the writer's ids and snapshots advanced with it; never a transaction that committed
    /// while the writer's bookkeeping did not, nor a batch of other callers' events taken and dropped.
    pub async fn apply(&self, e: Incoming<'_>) -> Result<Applied, StoreError> {
        let (done, result) = oneshot::channel();
        self.queue.push(Pending {
            agent: e.agent.to_owned(),
            source: e.source,
            event: e.event.clone(),
            payload: e.payload.to_vec(),
            at: e.at,
            received_at: e.received_at,
            done,
        });
        let (writer, queue) = (self.writer.clone(), self.queue.clone());
        tokio::spawn(async move {
            let mut writer = writer.lock_owned().await;
            // Our event is committed by now, or it is in this batch: every event queued has a task that
            // takes the writer after queueing it, so nobody's event is left behind.
            loop {
                let batch = queue.take(MAX_BATCH);
                if batch.is_empty() {
                    break;
                }
                commit_batch(&mut writer, batch).await;
            }
        });
        result
            .await
            .unwrap_or_else(|_| Err(StoreError::Write("the event was dropped unwritten".into())))
    }

    /// Recomputes an agent's snapshot from its stored events alone, from registration on.
    pub async fn replay(&self, agent: &str) -> Result<Snapshot, StoreError> {
        let row = self.agent(agent).await?;
        let created = row.created_at;
        let rows = sqlx::query(
            "SELECT source, kind, payload, source_time FROM agent_events WHERE agent = ?1 ORDER BY id",
        )
        .bind(agent)
        .fetch_all(&self.reader)
        .await?;
        let mut snapshot = if row.snapshot.observed {
            Snapshot::observed(created)
        } else {
            Snapshot::new(created)
        };
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
             outcome, reason, detail, attention FROM transitions WHERE agent = ?1 AND id > ?2 ORDER BY id LIMIT ?3",
        )
        .bind(agent)
        .bind(after_id)
        .bind(limit)
        .fetch_all(&self.reader)
        .await?;
        rows.iter().map(decision_from_row).collect()
    }
}

/// A JSON column's text; NULL for `None`. Our own types always serialise.
fn to_json<T: serde::Serialize>(value: Option<&T>) -> Option<String> {
    value.and_then(|v| serde_json::to_string(v).ok())
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
            attention: match r.try_get::<Option<String>, _>("attention")? {
                Some(t) => Some(serde_json::from_str(&t).map_err(|_| corrupt("attention", &t))?),
                None => None,
            },
        },
    })
}
