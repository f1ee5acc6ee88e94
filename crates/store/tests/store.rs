//! The store against a real SQLite file in a temporary folder.

#![allow(clippy::unwrap_used, missing_docs)]

use clawmux_core::wire::{Kind, MsgId};
use clawmux_core::{Event, Millis, Outcome, Source, State};
use clawmux_store::{Channel, Incoming, NewMessage, Store, StoreError};
use proptest::prelude::*;

async fn fresh() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("clawmux.db")).await.unwrap();
    store.add_agent("sky", "/w/sky", Millis(1)).await.unwrap();
    (dir, store)
}

fn user_to(agent: &str, text: &str) -> NewMessage<'static> {
    let agent: &'static str = Box::leak(agent.to_owned().into_boxed_str());
    let text: &'static str = Box::leak(text.to_owned().into_boxed_str());
    NewMessage {
        agent,
        kind: Kind::User,
        sender: "user",
        recipient: Some(agent),
        text,
        parent: None,
        voice: false,
        idem_key: None,
        at: Millis(10),
    }
}

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
async fn pages_by_cursor_and_refuses_unknown_cursors() {
    let (_dir, store) = fresh().await;
    let mut ids = Vec::new();
    for i in 0..25 {
        ids.push(
            store
                .append(&user_to("sky", &format!("m{i}")))
                .await
                .unwrap()
                .message
                .id,
        );
    }
    let after = store.after(Some("sky"), Some(&ids[9]), 10).await.unwrap();
    assert_eq!(
        after.iter().map(|m| &m.id).collect::<Vec<_>>(),
        ids[10..20].iter().collect::<Vec<_>>()
    );
    let all = store.after(Some("sky"), None, 100).await.unwrap();
    assert_eq!(all.len(), 25);
    let latest = store.latest("sky", 5).await.unwrap();
    assert_eq!(
        latest.iter().map(|m| m.text.as_str()).collect::<Vec<_>>(),
        ["m20", "m21", "m22", "m23", "m24"]
    );
    let older = store.before("sky", &ids[20], 5).await.unwrap();
    assert_eq!(older.first().unwrap().text, "m15");
    assert_eq!(older.last().unwrap().text, "m19");
    // The last message as cursor: an empty page, which is the truth.
    assert!(store
        .after(Some("sky"), ids.last(), 10)
        .await
        .unwrap()
        .is_empty());

    let unknown = MsgId::parse("msg-ffffffff").unwrap();
    assert!(matches!(
        store.after(Some("sky"), Some(&unknown), 10).await,
        Err(StoreError::UnknownCursor(_))
    ));
    assert!(matches!(
        store.before("sky", &unknown, 10).await,
        Err(StoreError::UnknownCursor(_))
    ));
    // A cursor from another conversation is unknown in this one.
    store.add_agent("moon", "/w/moon", Millis(1)).await.unwrap();
    let theirs = store
        .append(&user_to("moon", "x"))
        .await
        .unwrap()
        .message
        .id;
    assert!(matches!(
        store.after(Some("sky"), Some(&theirs), 10).await,
        Err(StoreError::UnknownCursor(_))
    ));
    assert_eq!(
        store.after(None, Some(&ids[24]), 10).await.unwrap()[0].id,
        theirs
    );
}

#[tokio::test]
async fn a_retried_send_is_stored_once() {
    let (_dir, store) = fresh().await;
    let mut m = user_to("sky", "hello");
    m.idem_key = Some("ui:123");
    let first = store.append(&m).await.unwrap();
    let again = store.append(&m).await.unwrap();
    assert!(first.created && !again.created);
    assert_eq!(first.message, again.message);
    assert_eq!(store.after(Some("sky"), None, 10).await.unwrap().len(), 1);

    // The same key for different content is refused, and stores nothing.
    m.text = "something else";
    assert!(matches!(
        store.append(&m).await,
        Err(StoreError::KeyReused(_))
    ));
    assert_eq!(store.after(Some("sky"), None, 10).await.unwrap().len(), 1);
}

#[tokio::test]
async fn bad_appends_store_nothing() {
    let (_dir, store) = fresh().await;
    assert!(matches!(
        store.append(&user_to("ghost", "x")).await,
        Err(StoreError::UnknownAgent(_))
    ));
    let mut m = user_to("sky", "x");
    let parent = MsgId::parse("msg-00000bad").unwrap();
    m.parent = Some(&parent);
    assert!(matches!(
        store.append(&m).await,
        Err(StoreError::UnknownParent(_))
    ));
    assert_eq!(store.head().await.unwrap(), 0);
    assert!(matches!(
        store.add_agent("sky", "/x", Millis(0)).await,
        Err(StoreError::AgentExists(_))
    ));
    assert!(matches!(
        store.add_agent("../etc", "/x", Millis(0)).await,
        Err(StoreError::BadName(_))
    ));
}

#[tokio::test]
async fn the_inbox_hands_each_message_over_exactly_once() {
    let (_dir, store) = fresh().await;
    store.add_agent("moon", "/w/moon", Millis(1)).await.unwrap();
    let a = store.append(&user_to("sky", "a")).await.unwrap().message;
    let b = store.append(&user_to("sky", "b")).await.unwrap().message;
    store.append(&user_to("moon", "for moon")).await.unwrap();
    // A reply to the user never enters an inbox.
    store
        .append(&NewMessage {
            kind: Kind::Assistant,
            sender: "sky",
            recipient: Some("user"),
            ..user_to("sky", "reply")
        })
        .await
        .unwrap();
    assert_eq!(store.pending("sky").await.unwrap(), 2);
    let taken = store
        .take_inbox("sky", Channel::Hook, Millis(20))
        .await
        .unwrap();
    assert_eq!(taken, vec![a, b]);
    assert!(store
        .take_inbox("sky", Channel::Wait, Millis(21))
        .await
        .unwrap()
        .is_empty());
    assert_eq!(store.pending("sky").await.unwrap(), 0);
    let c = store.append(&user_to("sky", "c")).await.unwrap().message;
    assert_eq!(
        store
            .take_inbox("sky", Channel::StopHook, Millis(22))
            .await
            .unwrap(),
        vec![c]
    );
    assert_eq!(store.pending("moon").await.unwrap(), 1);
    assert!(matches!(
        store.take_inbox("ghost", Channel::Wait, Millis(0)).await,
        Err(StoreError::UnknownAgent(_))
    ));
}

#[tokio::test]
async fn concurrent_consumers_never_share_a_message() {
    let (_dir, store) = fresh().await;
    let writer = {
        let store = store.clone();
        tokio::spawn(async move {
            for i in 0..300 {
                store
                    .append(&user_to("sky", &format!("m{i}")))
                    .await
                    .unwrap();
            }
        })
    };
    let mut consumers = Vec::new();
    for channel in [Channel::Wait, Channel::Hook, Channel::StopHook] {
        let store = store.clone();
        consumers.push(tokio::spawn(async move {
            let mut got = Vec::new();
            for _ in 0..400 {
                got.extend(store.take_inbox("sky", channel, Millis(0)).await.unwrap());
                tokio::task::yield_now().await;
            }
            got
        }));
    }
    writer.await.unwrap();
    let mut seen: Vec<i64> = Vec::new();
    for c in consumers {
        seen.extend(c.await.unwrap().iter().map(|m| m.seq));
    }
    seen.extend(
        store
            .take_inbox("sky", Channel::Wait, Millis(0))
            .await
            .unwrap()
            .iter()
            .map(|m| m.seq),
    );
    seen.sort_unstable();
    let unique = {
        let mut u = seen.clone();
        u.dedup();
        u
    };
    assert_eq!(seen, unique, "a message was handed over twice");
    assert_eq!(seen.len(), 300, "a message was never handed over");
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

#[tokio::test]
async fn the_database_is_in_wal_mode_and_migrated() {
    use sqlx::Connection;
    let (dir, store) = fresh().await;
    store.close().await;
    let url = format!("sqlite://{}", dir.path().join("clawmux.db").display());
    let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(mode, "wal");
    let versions: Vec<i64> = sqlx::query_scalar("SELECT version FROM _sqlx_migrations")
        .fetch_all(&mut conn)
        .await
        .unwrap();
    assert_eq!(
        versions,
        [20_261_122_000_000, 20_261_122_100_000, 20_261_122_200_000]
    );
}

#[tokio::test]
async fn history_json_imports_once() {
    let (_dir, store) = fresh().await;
    let file = br#"{"voice_id":"af_sky","voice_name":"Sky","claude_session_id":"0b1c-uuid","messages":[
        {"role":"user","text":"hi","ts":1760000000.5,"id":"msg-0000aaaa"},
        {"role":"assistant","text":"hello","ts":1760000001,"id":"msg-0000aaab","parent_id":"msg-0000aaaa"},
        {"role":"assistant","text":"","ts":1760000002,"bare_ack":true,"parent_id":"msg-0000aaaa"},
        {"role":"system","text":"restarted","ts":"1760000003"},
        {"role":"assistant","text":"dangling","ts":1760000004,"parent_id":"msg-01234567"}
    ]}"#;
    let first = store
        .import_history("sky", "/w/sky", file, Millis(0))
        .await
        .unwrap();
    assert_eq!((first.created, first.skipped, first.unlinked), (5, 0, 1));
    let again = store
        .import_history("sky", "/w/sky", file, Millis(0))
        .await
        .unwrap();
    assert_eq!((again.created, again.skipped), (0, 5));
    let msgs = store.after(Some("sky"), None, 100).await.unwrap();
    assert_eq!(msgs.len(), 5);
    assert_eq!(msgs[0].id.as_str(), "msg-0000aaaa");
    assert_eq!(msgs[0].at, Millis(1_760_000_000_500));
    assert_eq!(msgs[1].parent.as_ref().unwrap().as_str(), "msg-0000aaaa");
    assert_eq!(msgs[2].kind, Kind::Ack);
    assert_eq!(msgs[3].kind, Kind::System);
    // History is not an inbox: nothing imported is handed to the agent.
    assert_eq!(store.pending("sky").await.unwrap(), 0);
    assert_eq!(
        store
            .agent("sky")
            .await
            .unwrap()
            .claude_session_id
            .as_deref(),
        Some("0b1c-uuid")
    );
    // A new agent is registered by the import.
    store
        .import_history("moon", "/w/moon", br#"{"messages":[]}"#, Millis(0))
        .await
        .unwrap();
    assert!(store.agent("moon").await.is_ok());
}

#[tokio::test]
async fn a_bad_history_json_changes_nothing() {
    let (_dir, store) = fresh().await;
    for bad in [
        &b"[]"[..],
        b"{\"messages\":[{\"role\":\"user\",\"text\":\"ok\",\"ts\":1},{\"role\":\"robot\",\"text\":\"x\",\"ts\":1}]}",
        b"{\"messages\":[{\"role\":\"user\",\"text\":\"x\",\"ts\":\"yesterday\"}]}",
        b"{\"messages\":[{\"role\":\"user\",\"text\":\"x\",\"ts\":1,\"id\":\"42\"}]}",
        b"{\"messages\":[{\"role\":\"user\",\"ts\":1}]}",
    ] {
        let err = store.import_history("fresh", "/w", bad, Millis(0)).await.unwrap_err();
        assert!(matches!(err, StoreError::Import(_)), "{err}");
    }
    assert!(matches!(
        store.agent("fresh").await,
        Err(StoreError::UnknownAgent(_))
    ));
    assert_eq!(store.head().await.unwrap(), 0);
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

#[tokio::test]
async fn a_launched_agent_keeps_its_launch_and_only_a_new_one_can_be_forgotten() {
    let (_dir, store) = fresh().await;
    let row = store
        .add_launched_agent("moon", "/w/moon", Some(r#"{"demo":true}"#), Millis(1))
        .await
        .unwrap();
    assert_eq!(row.launch.as_deref(), Some(r#"{"demo":true}"#));
    assert_eq!(
        store
            .add_agent("own", "/w/own", Millis(1))
            .await
            .unwrap()
            .launch,
        None
    );
    // Nothing happened to `own` yet: forgetting it undoes the registration.
    assert!(store.forget_new_agent("own").await.unwrap());
    assert!(matches!(
        store.agent("own").await,
        Err(StoreError::UnknownAgent(_))
    ));
    // `moon` has a message: it is never forgotten.
    store.append(&user_to("moon", "hello")).await.unwrap();
    assert!(!store.forget_new_agent("moon").await.unwrap());
    assert_eq!(store.agent("moon").await.unwrap().name, "moon");
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
    for round in 0..40 {
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
                    DropAfter {
                        inner: Box::pin(apply),
                        polls,
                    }
                    .await
                })
            })
            .collect();
        for c in callers {
            match c.await.unwrap() {
                None => cancelled += 1,
                Some(r) => {
                    r.unwrap();
                }
            }
        }
    }
    assert!(cancelled > 100, "only {cancelled} callers were cancelled");
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
