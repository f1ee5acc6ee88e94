//! Agent events in the store against a real SQLite file: applied, decided, replayed, and safe when a batch fails or a caller goes away.

#![allow(clippy::unwrap_used, missing_docs)]

use clawmux_core::{Event, Millis, Outcome, Source, State};
use clawmux_store::{Incoming, Store, StoreError};
use proptest::prelude::*;

#[allow(dead_code)]
mod common;
use common::fresh;

async fn apply(
    store: &Store,
    agent: &str,
    source: Source,
    event: &Event,
    payload: &[u8],
    t: i64,
) -> clawmux_store::Applied {
    store
        .apply(Incoming {
            agent,
            source,
            event,
            payload,
            at: Millis(t),
            received_at: Millis(t),
        })
        .await
        .unwrap()
}

#[tokio::test]
async fn events_are_stored_decided_and_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clawmux.db");
    {
        let store = Store::open(&path).await.unwrap();
        store.add_agent("sky", "/w/sky", Millis(1)).await.unwrap();
        let applied = apply(&store, "sky", Source::Wait, &Event::WaitConnected, b"", 5).await;
        assert_eq!(
            (applied.before.state, applied.after.state),
            (State::Starting, State::Idle)
        );
        let body =
            br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#;
        let (event, _) = Event::from_hook_payload(body);
        apply(&store, "sky", Source::Hook, &event, body, 6).await;
        // A malformed event is stored, decided as suppressed, and changes nothing.
        let (bad, err) = Event::from_hook_payload(b"{oops");
        assert!(err.is_some());
        let applied = apply(&store, "sky", Source::Hook, &bad, b"{oops", 7).await;
        assert!(matches!(applied.decision.outcome, Outcome::Suppressed(_)));
        assert_eq!(applied.before, applied.after);
        store.close().await;
    }
    let store = Store::open(&path).await.unwrap();
    let sky = store.agent("sky").await.unwrap();
    assert_eq!(
        (sky.snapshot.state, sky.snapshot.activity.as_str()),
        (State::Idle, "Running ls")
    );
    assert_eq!(store.replay("sky").await.unwrap(), sky.snapshot);
    let events = store.events("sky", 0, 100).await.unwrap();
    assert_eq!(events.len(), 3);
    assert_eq!(events[2].payload, "{oops");
    assert!(events[2]
        .error
        .as_deref()
        .unwrap()
        .contains("not valid JSON"));
    let decisions = store.decisions("sky", 0, 100).await.unwrap();
    assert_eq!(
        decisions.iter().map(|d| d.event_id).collect::<Vec<_>>(),
        events.iter().map(|e| e.id).collect::<Vec<_>>()
    );
    assert_eq!(decisions[0].decision.outcome, Outcome::Moved);
    let unknown = Event::WaitConnected;
    assert!(matches!(
        store
            .apply(Incoming {
                agent: "ghost",
                source: Source::Wait,
                event: &unknown,
                payload: b"",
                at: Millis(0),
                received_at: Millis(0)
            })
            .await,
        Err(StoreError::UnknownAgent(_))
    ));
}

/// The batch is one query string holding its own BEGIN and COMMIT: a statement failing half way must undo
/// the statements before it and leave no transaction open for the next batch.
#[tokio::test]
async fn a_batch_failing_half_way_stores_nothing_and_the_next_one_commits() {
    use sqlx::Connection;
    let (dir, store) = fresh().await;
    let url = format!("sqlite://{}", dir.path().join("clawmux.db").display());
    let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
    // The events' insert succeeds, then the decisions' fails.
    sqlx::query(
        "CREATE TRIGGER injected BEFORE INSERT ON transitions BEGIN SELECT RAISE(ABORT, 'injected'); END",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    let failed = store
        .apply(Incoming {
            agent: "sky",
            source: Source::Wait,
            event: &Event::WaitConnected,
            payload: b"",
            at: Millis(5),
            received_at: Millis(5),
        })
        .await;
    assert!(
        matches!(&failed, Err(StoreError::Write(why)) if why.contains("injected")),
        "{failed:?}"
    );
    assert!(store.events("sky", 0, 100).await.unwrap().is_empty());
    assert_eq!(
        store.agent("sky").await.unwrap().snapshot.state,
        State::Starting
    );
    sqlx::query("DROP TRIGGER injected")
        .execute(&mut conn)
        .await
        .unwrap();
    let applied = apply(&store, "sky", Source::Wait, &Event::WaitConnected, b"", 6).await;
    assert_eq!(applied.after.state, State::Idle);
    assert_eq!(store.events("sky", 0, 100).await.unwrap().len(), 1);
    assert_eq!(
        store.replay("sky").await.unwrap(),
        store.agent("sky").await.unwrap().snapshot
    );
}

fn any_stored_event() -> impl Strategy<Value = (Source, Vec<u8>, bool)> {
    let bodies = prop::sample::select(vec![
        r#"{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/w/a"}}"#,
        r#"{"hook_event_name":"PostToolUse","tool_name":"Read"}"#,
        r#"{"hook_event_name":"PreCompact","trigger":"auto"}"#,
        r#"{"hook_event_name":"SessionStart","source":"startup"}"#,
        r#"{"hook_event_name":"Stop"}"#,
        r#"{"hook_event_name":"Whatever"}"#,
        r#"{"hook_event_name":"PreToolUse"}"#,
        "garbage",
    ]);
    prop_oneof![
        bodies.prop_map(|b| (Source::Hook, b.as_bytes().to_vec(), true)),
        prop::sample::select(vec![Source::Wait, Source::Hub, Source::Cli]).prop_map(|s| (
            s,
            Vec::new(),
            false
        )),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn replaying_stored_events_gives_the_stored_projection(seq in prop::collection::vec((any_stored_event(), 0u8..4), 0..60)) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let (_dir, store) = fresh().await;
            for (i, ((source, payload, is_hook), pick)) in seq.iter().enumerate() {
                let event = if *is_hook {
                    Event::from_hook_payload(payload).0
                } else {
                    [Event::WaitConnected, Event::WaitDisconnected, Event::Spawned, Event::Terminated][usize::from(*pick)].clone()
                };
                apply(&store, "sky", *source, &event, payload, i64::try_from(i).unwrap()).await;
            }
            let projected = store.agent("sky").await.unwrap().snapshot;
            assert_eq!(store.replay("sky").await.unwrap(), projected);
        });
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn applies_cancelled_at_any_await_leave_a_store_that_keeps_working() {
    let (_dir, store) = fresh().await;
    store.add_agent("moon", "/w/moon", Millis(1)).await.unwrap();
    // As they are stored: a hook with the payload it was parsed from (replay parses it again).
    let pre: &'static [u8] =
        br#"{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{}}"#;
    let post: &'static [u8] = br#"{"hook_event_name":"PostToolUse","tool_name":"Read"}"#;
    let events: [(Source, Event, &'static [u8]); 4] = [
        (Source::Hook, Event::from_hook_payload(pre).0, pre),
        (Source::Hook, Event::from_hook_payload(post).0, post),
        (Source::Wait, Event::WaitConnected, b""),
        (Source::Wait, Event::WaitDisconnected, b""),
    ];
    let mut rng = fastrand::Rng::with_seed(7);
    let mut cancelled = 0;
    // Until 50 callers were dropped while they waited for a queued commit: how many rounds that takes
    // depends on how often the writer is found busy, and so on the machine's load.
    for round in 0..1_000 {
        if cancelled >= 50 {
            break;
        }
        // 16 concurrent callers, each dropped after 0 to 6 polls (or let finish), under load.
        let callers: Vec<_> = (0..16)
            .map(|i| {
                let store = store.clone();
                let (source, event, payload) = events[rng.usize(..events.len())].clone();
                let agent = if rng.bool() { "sky" } else { "moon" };
                let polls = rng.u32(0..8);
                tokio::spawn(async move {
                    let t = round * 100 + i;
                    let apply = async {
                        store
                            .apply(Incoming {
                                agent,
                                source,
                                event: &event,
                                payload,
                                at: Millis(t),
                                received_at: Millis(t),
                            })
                            .await
                    };
                    let outcome = DropAfter {
                        inner: Box::pin(apply),
                        polls,
                    }
                    .await;
                    (polls, outcome)
                })
            })
            .collect();
        for c in callers {
            match c.await.unwrap() {
                // Dropped while it waited for a queued commit (one committed at once has no await).
                (1.., None) => cancelled += 1,
                (0, None) => {}
                (_, Some(r)) => {
                    r.unwrap();
                }
            }
        }
    }
    assert!(
        cancelled >= 50,
        "only {cancelled} callers were cancelled while they waited"
    );
    // Every later write succeeds, and the stored state is the replay of the stored events.
    for t in 0..50 {
        let (source, event, payload) = &events[usize::try_from(t).unwrap() % 4];
        apply(&store, "sky", *source, event, payload, 10_000 + t).await;
    }
    for agent in ["sky", "moon"] {
        let stored = store.agent(agent).await.unwrap().snapshot;
        assert_eq!(store.replay(agent).await.unwrap(), stored, "{agent}");
    }
}

/// Polls `inner` at most `polls` times, then drops it: a caller that stops waiting at an arbitrary await.
struct DropAfter<F> {
    inner: std::pin::Pin<Box<F>>,
    polls: u32,
}

impl<F: std::future::Future> std::future::Future for DropAfter<F> {
    type Output = Option<F::Output>;
    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        if self.polls == 0 {
            return std::task::Poll::Ready(None);
        }
        self.polls -= 1;
        self.inner.as_mut().poll(cx).map(Some)
    }
}

#[tokio::test]
async fn a_span_replays_alone_and_the_latest_causes_are_found() {
    let (_dir, store) = fresh().await;
    apply(&store, "sky", Source::Wait, &Event::WaitConnected, b"", 10).await;
    apply(
        &store,
        "sky",
        Source::Wait,
        &Event::WaitDisconnected,
        b"",
        20,
    )
    .await;
    for (body, t) in [
        (&br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{}}"#[..], 30),
        (br#"{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{}}"#, 40),
        (b"{}", 50),
    ] {
        let (event, _) = Event::from_hook_payload(body);
        apply(&store, "sky", Source::Hook, &event, body, t).await;
    }

    let span = store.span("sky", Millis(25), 100).await.unwrap();
    assert_eq!(
        span.start.state,
        State::Processing,
        "the snapshot before the span"
    );
    assert_eq!(span.events.len(), 3);
    assert_eq!(span.events[0].0.kind, "hook:PreToolUse");
    assert_eq!(span.events[0].1, br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{}}"#);
    assert!(span.events.iter().all(|(_, _, d)| d.is_some()));
    // Only the latest `limit` of the span.
    assert_eq!(
        store.span("sky", Millis(0), 2).await.unwrap().events.len(),
        2
    );

    let recent = store.recent_decisions("sky", 2).await.unwrap();
    assert_eq!(recent.len(), 2);
    assert!(recent[0].id < recent[1].id, "oldest first");
    let (moved, raised) = store.latest_causes("sky").await.unwrap();
    assert_eq!(moved.unwrap().decision.trigger, "wait:disconnect");
    assert_eq!(raised.unwrap().decision.trigger, "hook:PermissionRequest");
    assert_eq!(
        store.replay("sky").await.unwrap(),
        store.agent("sky").await.unwrap().snapshot
    );
}

/// The WAL header's checkpoint sequence number: it counts the times the WAL was started over.
fn wal_restarts(wal: &std::path::Path) -> u32 {
    let head = std::fs::read(wal)
        .map(|b| b.get(12..16).map(<[u8]>::to_vec))
        .ok()
        .flatten();
    head.map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// Under steady writes and reads, the WAL is started over again and again (a PASSIVE checkpoint alone
/// never catches up with a writer that does not stop): its size levels off instead of growing for as long
/// as agents work.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wal_is_started_over_under_steady_writes_and_reads() {
    let (dir, store) = fresh().await;
    let wal = dir.path().join("clawmux.db-wal");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = {
        let (store, stop) = (store.clone(), stop.clone());
        tokio::spawn(async move {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                store.agent("sky").await.unwrap();
            }
        })
    };
    let body = br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t","tool_input":{"command":"make"}}"#;
    let (event, _) = Event::from_hook_payload(body);
    let restarts_before = wal_restarts(&wal);
    let started = std::time::Instant::now();
    let (mut first_half, mut second_half) = (0u64, 0u64);
    let mut t = 10;
    // Writes for 8 s: several checkpoints, and many times the limit's worth of WAL.
    while started.elapsed() < std::time::Duration::from_secs(8) {
        for _ in 0..20 {
            t += 1;
            apply(&store, "sky", Source::Hook, &event, body, t).await;
        }
        let size = std::fs::metadata(&wal).map_or(0, |m| m.len());
        if started.elapsed() < std::time::Duration::from_secs(4) {
            first_half = first_half.max(size);
        } else {
            second_half = second_half.max(size);
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    reader.await.unwrap();
    let restarts = wal_restarts(&wal).wrapping_sub(restarts_before);
    eprintln!(
        "{} events; the WAL started over {restarts} times; its size {:.1} MB in the first 4 s, {:.1} MB in the next",
        t - 10,
        first_half as f64 / 1e6,
        second_half as f64 / 1e6
    );
    assert!(restarts >= 3, "the WAL was started over {restarts} times");
    // Started over, the WAL is written again from its start: its file stays a fraction of what went
    // through it. Each event is a transaction of at least one page (SQLite's default 4096 bytes, and a
    // frame header of 24), so without a restart the file would hold at least that much. (How large it
    // gets between two restarts depends on how busy the machine is: with the checkpointer starved by a
    // loaded machine, 62% was seen; that it stays below the whole does not.)
    let through = u64::try_from(t - 10).unwrap_or(0) * (4096 + 24);
    let largest = first_half.max(second_half);
    assert!(
        largest * 4 < through * 3,
        "the WAL keeps growing: {largest} bytes of the {through} or more written through it"
    );
}
