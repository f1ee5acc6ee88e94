//! The store against a real SQLite file in a temporary folder.

#![allow(clippy::unwrap_used, missing_docs)]

use clawmux_core::wire::{Kind, MsgId};
use clawmux_core::Millis;
use clawmux_store::{Channel, NewMessage, Store, StoreError};

#[allow(dead_code)]
mod common;
use common::{fresh, user_to};

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
        [
            20_261_122_000_000,
            20_261_122_100_000,
            20_261_122_200_000,
            20_261_125_000_000,
            20_261_125_100_000,
            20_261_125_200_000,
            20_261_126_000_000,
            20_261_127_000_000,
            20_261_128_000_000,
            20_261_129_000_000,
            20_261_130_000_000,
            20_261_201_000_000,
            20_261_203_000_000,
            20_261_204_000_000,
            20_261_205_000_000
        ]
    );
}

/// A database of the schema before decisions were keyed by their events keeps every decision, under the
/// same id (the cursor clients read the log after) and for the same event, and the next event's decision
/// follows them.
#[tokio::test]
async fn decisions_keep_their_ids_when_keyed_by_their_events() {
    use sqlx::Connection;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clawmux.db");
    let mut conn = common::older_database(&path, 20_261_126_000_000).await;
    sqlx::query(
        "INSERT INTO agents (name, work_dir, created_at, state, state_since) VALUES ('sky', '/w', 1, 'idle', 1); \
         INSERT INTO agent_events (id, agent, source, kind, payload, source_time, received_at) VALUES \
           (1, 'sky', 'wait', 'wait:connect', x'', 10, 10), (2, 'sky', 'wait', 'wait:disconnect', x'', 20, 20); \
         INSERT INTO transitions (event_id, agent, trigger, source, source_time, from_state, to_state, outcome) \
           VALUES (1, 'sky', 'wait:connect', 'wait', 10, 'starting', 'idle', 'moved'), \
                  (2, 'sky', 'wait:disconnect', 'wait', 20, 'idle', 'idle', 'stayed');",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    conn.close().await.unwrap();

    let store = Store::open(&path).await.unwrap();
    let kept = store.decisions("sky", 0, 10).await.unwrap();
    let ids: Vec<(i64, i64, String)> = kept
        .iter()
        .map(|d| (d.id, d.event_id, d.decision.trigger.as_str().to_owned()))
        .collect();
    assert_eq!(
        ids,
        [
            (1, 1, "wait:connect".to_owned()),
            (2, 2, "wait:disconnect".to_owned())
        ]
    );
    store
        .apply(clawmux_store::Incoming {
            agent: "sky",
            source: clawmux_core::Source::Wait,
            event: &clawmux_core::Event::WaitConnected,
            payload: b"",
            at: Millis(30),
            received_at: Millis(30),
        })
        .await
        .unwrap();
    let after = store.decisions("sky", 2, 10).await.unwrap();
    assert_eq!(
        after.iter().map(|d| (d.id, d.event_id)).collect::<Vec<_>>(),
        [(3, 3)]
    );
}
