//! The store's write path for agent events: group commit.
//!
//! [`Store::apply`] queues the event and makes sure a task holding the writer commits the queue: each
//! batch is decided in order against the writer's cached snapshots, then written in one transaction (the
//! raw events, the decisions, one snapshot update per agent), and only then are the writer's ids and
//! snapshots advanced and the callers answered.

use clawmux_core::{step, Decision, Event, Millis, Outcome, Snapshot, Source};
use sqlx::SqliteConnection;
use tokio::sync::oneshot;

use crate::agents::{agent_from_row, AGENT_COLUMNS};
use crate::events::{Applied, Incoming};
use crate::{Store, StoreError, Writer};

/// Events waiting for the writer.
pub(crate) type Queue = crate::queue::Queue<Pending>;

/// The most events committed in one transaction (bounds the statements' sizes and the wait of the last).
const MAX_BATCH: usize = 32;

impl crate::queue::Batched for Pending {
    const MAX: usize = MAX_BATCH;

    fn commit(
        writer: &mut Writer,
        batch: Vec<Self>,
    ) -> impl std::future::Future<Output = ()> + Send {
        commit_batch(writer, batch)
    }
}

/// An event waiting for the writer.
#[derive(Debug)]
pub(crate) struct Pending {
    agent: String,
    source: Source,
    event: Event,
    payload: Vec<u8>,
    at: Millis,
    received_at: Millis,
    done: oneshot::Sender<Result<Applied, StoreError>>,
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
            answer(decided);
        }
        Err(e) => {
            let why = e.to_string();
            for d in decided {
                let _ = d.pending.done.send(Err(StoreError::Write(why.clone())));
            }
        }
    }
}

/// Tells each caller of a committed batch what its event did.
fn answer(decided: Vec<Decided>) {
    for d in decided {
        let _ = d.pending.done.send(Ok(Applied {
            event_id: d.id,
            before: d.before,
            after: d.after,
            decision: d.decision,
        }));
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

/// A query of the store, with its arguments bound so far.
type Query<'q> = sqlx::query::Query<'q, sqlx::Sqlite, sqlx::sqlite::SqliteArguments<'q>>;

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
    let sql = batch_sql(decided.len(), snapshots.len());
    let q = bind_snapshots(
        bind_decisions(bind_events(sqlx::query(&sql), decided), decided),
        decided,
        snapshots,
    );
    if let Err(e) = q.execute(&mut *conn).await {
        // A statement failed half way: the transaction it opened must not stay open for the next batch.
        let _ = sqlx::query("ROLLBACK").execute(&mut *conn).await;
        return Err(e.into());
    }
    Ok(())
}

/// The batch's transaction for `events` events of `agents` agents. Anonymous `?` placeholders, bound in
/// order across the statements: sqlx resolves a numbered `?NNN` by name, for each of the hundreds of
/// parameters of a full batch.
fn batch_sql(events: usize, agents: usize) -> String {
    let rows = |width: usize| -> String {
        let row = format!("({})", vec!["?"; width].join(", "));
        vec![row; events].join(", ")
    };
    let mut sql = format!(
        "BEGIN IMMEDIATE; \
         INSERT INTO agent_events (id, agent, source, kind, payload, source_time, received_at, error) VALUES {}; \
         INSERT INTO transitions (event_id, agent, trigger, source, source_time, from_state, to_state, \
         activity, outcome, reason, detail, attention) VALUES {};",
        rows(8),
        rows(12)
    );
    for _ in 0..agents {
        sql.push_str(
            " UPDATE agents SET state = ?, activity = ?, state_since = ?, last_event = ?, attention = ?, \
             last_tool = ?, watermark = ? WHERE name = ?;",
        );
    }
    sql.push_str(" COMMIT;");
    sql
}

fn bind_events<'q>(mut q: Query<'q>, decided: &'q [Decided]) -> Query<'q> {
    for d in decided {
        let error = match &d.pending.event {
            Event::Rejected { error, .. } => Some(error.as_str()),
            Event::WaitConnected
            | Event::WaitDisconnected
            | Event::Spawned
            | Event::Terminated
            | Event::Interrupted
            | Event::Dismissed
            | Event::SecondOpinion(_)
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
    q
}

fn bind_decisions<'q>(mut q: Query<'q>, decided: &'q [Decided]) -> Query<'q> {
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
    q
}

fn bind_snapshots<'q>(
    mut q: Query<'q>,
    decided: &[Decided],
    snapshots: &'q std::collections::HashMap<String, Snapshot>,
) -> Query<'q> {
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
    q
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
        self.queue.commit(
            Pending {
                agent: e.agent.to_owned(),
                source: e.source,
                event: e.event.clone(),
                payload: e.payload.to_vec(),
                at: e.at,
                received_at: e.received_at,
                done,
            },
            &self.writer,
        );
        result
            .await
            .unwrap_or_else(|_| Err(StoreError::Write("the event was dropped unwritten".into())))
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
