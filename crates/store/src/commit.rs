//! The store's write path for agent events: at once when the writer is free, group commit when it is not.
//!
//! Every hook of every agent comes through here, so the path is as short as it can be: with the writer
//! free, [`Store::submit`] commits the event in its caller's own call; with the writer busy, it queues the
//! event and makes sure a task holding the writer commits the queue. Either way each batch is decided in
//! order against the writer's cached snapshots, then written in one transaction (the raw events, their
//! decisions, one snapshot update per agent) on the writer's direct connection, in-process, and only then
//! are the writer's ids and snapshots advanced and the callers answered.

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

/// Reads the snapshots the writer has not cached yet (each agent's first event since the store opened),
/// then decides and commits the batch.
async fn commit_batch(writer: &mut Writer, batch: Vec<Pending>) {
    let mut ready = Vec::with_capacity(batch.len());
    for p in batch {
        if !writer.snapshots.contains_key(&p.agent) {
            match load_snapshot(&mut writer.conn, &p.agent).await {
                Ok(Some(s)) => {
                    writer.snapshots.insert(p.agent.clone(), s);
                }
                // Left uncached: deciding answers it as an unknown agent.
                Ok(None) => {}
                Err(e) => {
                    let _ = p.done.send(Err(e));
                    continue;
                }
            }
        }
        ready.push(p);
    }
    commit_cached(writer, ready);
}

/// Decides a batch in order against the writer's cached snapshots, commits it in one transaction, and only
/// then advances the writer's ids and snapshots and answers each caller. Synchronous: nothing can cut it
/// short between the commit and the bookkeeping.
fn commit_cached(writer: &mut Writer, batch: Vec<Pending>) {
    // Decide without touching the cache until the commit.
    let mut snapshots: std::collections::HashMap<String, Snapshot> =
        std::collections::HashMap::new();
    let mut decided = Vec::with_capacity(batch.len());
    let mut next_id = writer.next_event;
    for p in batch {
        let Some(before) = snapshots
            .get(&p.agent)
            .or_else(|| writer.snapshots.get(&p.agent))
            .cloned()
        else {
            let _ = p.done.send(Err(StoreError::UnknownAgent(p.agent.clone())));
            continue;
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
    match write_batch(&writer.direct, &decided, &snapshots) {
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

/// Writes a decided batch in one transaction: each event, its decision, one snapshot update per agent.
///
/// On the writer's own direct connection, in this thread: a batch is a few cached statements that SQLite
/// runs in tens of µs without a sync (`synchronous=NORMAL` in WAL mode syncs only at checkpoints), less than
/// handing it to another thread and being woken with the answer costs.
fn write_batch(
    conn: &rusqlite::Connection,
    decided: &[Decided],
    snapshots: &std::collections::HashMap<String, Snapshot>,
) -> Result<(), StoreError> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    let written = write_rows(conn, decided, snapshots).and_then(|()| conn.execute_batch("COMMIT"));
    if let Err(e) = written {
        // A statement failed half way: the transaction must not stay open for the next batch.
        let _ = conn.execute_batch("ROLLBACK");
        return Err(e.into());
    }
    Ok(())
}

/// The events and transitions of a batch, then the agents' snapshots, in the transaction of `conn`.
fn write_rows(
    conn: &rusqlite::Connection,
    decided: &[Decided],
    snapshots: &std::collections::HashMap<String, Snapshot>,
) -> rusqlite::Result<()> {
    let mut event = conn.prepare_cached(
        "INSERT INTO agent_events (id, agent, source, kind, payload, source_time, received_at, error) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    let mut transition = conn.prepare_cached(
        "INSERT INTO transitions (id, agent, trigger, source, source_time, from_state, to_state, \
         activity, outcome, reason, detail, attention) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?;
    for d in decided {
        let error = match &d.pending.event {
            Event::Rejected { error, .. } => Some(error.as_str()),
            Event::WaitConnected
            | Event::WaitDisconnected
            | Event::Spawned
            | Event::Terminated
            | Event::Interrupted
            | Event::Dismissed
            | Event::Answered
            | Event::Undelivered(_)
            | Event::SecondOpinion(_)
            | Event::Transcript(_)
            | Event::Hook(_) => None,
        };
        event.execute(rusqlite::params![
            d.id,
            d.pending.agent,
            d.pending.source.as_str(),
            d.decision.trigger.as_str(),
            d.pending.payload,
            d.pending.at.0,
            d.pending.received_at.0,
            error,
        ])?;
        let (outcome, reason) = outcome_columns(&d.decision.outcome);
        transition.execute(rusqlite::params![
            d.id,
            d.pending.agent,
            d.decision.trigger.as_str(),
            d.decision.source.as_str(),
            d.decision.at.0,
            d.decision.from.as_str(),
            d.decision.to.as_str(),
            d.decision.activity.as_deref(),
            outcome,
            reason,
            d.decision.detail.as_deref(),
            to_json(d.decision.attention.as_ref()),
        ])?;
    }
    write_snapshots(conn, decided, snapshots)
}

/// Each agent's snapshot after the batch, with the id of its last event.
fn write_snapshots(
    conn: &rusqlite::Connection,
    decided: &[Decided],
    snapshots: &std::collections::HashMap<String, Snapshot>,
) -> rusqlite::Result<()> {
    let mut snapshot = conn.prepare_cached(
        "UPDATE agents SET state = ?1, activity = ?2, state_since = ?3, last_event = ?4, attention = ?5, \
         last_tool = ?6, watermark = ?7 WHERE name = ?8",
    )?;
    for (agent, s) in snapshots {
        let last = decided
            .iter()
            .rev()
            .find(|d| &d.pending.agent == agent)
            .map_or(0, |d| d.id);
        snapshot.execute(rusqlite::params![
            s.state.as_str(),
            s.activity.as_str(),
            s.since.0,
            last,
            to_json(s.attention.as_ref()),
            to_json(s.last_tool.as_ref()),
            s.watermark.0,
            agent,
        ])?;
    }
    Ok(())
}

/// An event handed to the store: applied already, or queued behind the writer.
#[derive(Debug)]
pub enum Submitted {
    /// Committed in the caller's own call: the writer was free and the agent's snapshot known.
    Done(Box<Result<Applied, StoreError>>),
    /// Queued: a task of the store's commits it, whether or not anybody waits for it.
    Queued(Later),
}

/// The outcome of a queued event, once its batch is committed.
#[derive(Debug)]
pub struct Later(oneshot::Receiver<Result<Applied, StoreError>>);

impl Later {
    /// Waits for the batch; safe to drop, which leaves the event to be committed all the same.
    pub async fn wait(self) -> Result<Applied, StoreError> {
        self.0.await.unwrap_or_else(|_| Err(unwritten()))
    }
}

/// What a caller hears whose event's answer was dropped without one (its batch never written).
fn unwritten() -> StoreError {
    StoreError::Write("the event was dropped unwritten".into())
}

impl Store {
    /// Stores an event and applies it to the agent's state, atomically. Returns the decision, which may be
    /// a suppression; the only errors are an unknown agent and the database's own.
    ///
    /// Safe to cancel at any await: see [`Store::submit`]. Cooperative: an event committed at once is
    /// ready without waiting for anything, so a loop of them would never give the runtime's thread back
    /// (the checkpointer and the readers on it starved); each call spends a unit of the task's budget,
    /// before anything is done, and yields when the budget is spent.
    pub async fn apply(&self, e: Incoming<'_>) -> Result<Applied, StoreError> {
        tokio::task::coop::consume_budget().await;
        match self.submit(e) {
            Submitted::Done(applied) => *applied,
            Submitted::Queued(later) => later.wait().await,
        }
    }

    /// Hands an event to the store: committed at once when the writer is free, else queued.
    ///
    /// Group commit: with the writer busy the event joins a queue, and whoever holds the writer commits
    /// the whole queue, batch by batch, one transaction each. With the writer free, nothing waits to share
    /// the commit, so the caller commits its event itself, synchronously, with no hand-off to another task
    /// (a wake-up of another thread, most of a lone hook's cost).
    ///
    /// Neither can be cut short half way: the commit at once has no await, and a queued event is committed
    /// by a task of its own, so a caller that stops waiting leaves its event either queued and committed
    /// by the next writer, or committed with the writer's ids and snapshots advanced with it; never a
    /// transaction that committed while the writer's bookkeeping did not, nor a batch of other callers'
    /// events taken and dropped.
    pub fn submit(&self, e: Incoming<'_>) -> Submitted {
        let (done, mut result) = oneshot::channel();
        let pending = Pending {
            agent: e.agent.to_owned(),
            source: e.source,
            event: e.event.clone(),
            payload: e.payload.to_vec(),
            at: e.at,
            received_at: e.received_at,
            done,
        };
        if let Ok(mut writer) = self.writer.try_lock() {
            // Nothing queued ahead of it (its drainer has not taken the writer yet), and its agent's
            // snapshot cached (reading it back is an await).
            if self.queue.is_empty() && writer.snapshots.contains_key(e.agent) {
                commit_cached(writer.taken(), vec![pending]);
                return Submitted::Done(Box::new(
                    result.try_recv().unwrap_or_else(|_| Err(unwritten())),
                ));
            }
        }
        self.queue.commit(pending, &self.writer);
        Submitted::Queued(Later(result))
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

#[cfg(test)]
mod tests;
