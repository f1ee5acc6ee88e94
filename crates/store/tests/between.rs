//! What passes between agents, against a real SQLite file: each message's delivery read from its own
//! records, an ask's answer taken out of the inbox's order without losing what came before it, threads
//! listed and closed, and 10,000 messages between agents still read fast.

#![allow(clippy::unwrap_used, missing_docs)]

use clawmux_core::between::{Delivery, Pair};
use clawmux_core::wire::{Kind, Message, MsgId};
use clawmux_core::Millis;
use clawmux_store::{Channel, NewMessage, Store};

#[allow(dead_code)]
mod common;
use common::{fresh, user_to};

async fn with_moon() -> (tempfile::TempDir, Store) {
    let (dir, store) = fresh().await;
    store.add_agent("moon", "/w/moon", Millis(1)).await.unwrap();
    (dir, store)
}

/// `from`'s message to `to`, as the hub stores it (in the recipient's conversation).
async fn pass(
    store: &Store,
    from: &str,
    to: &str,
    text: &str,
    re: Option<&MsgId>,
    kind: Kind,
) -> Message {
    store
        .append(&NewMessage {
            agent: to,
            kind,
            sender: from,
            recipient: (kind == Kind::Agent).then_some(to),
            text,
            parent: re,
            voice: false,
            aloud: false,
            attachments: &[],
            idem_key: None,
            at: Millis(100),
        })
        .await
        .unwrap()
        .message
}

async fn delivery(store: &Store, m: &Message) -> Delivery {
    store.passed(&m.id).await.unwrap().unwrap().delivery
}

#[tokio::test]
async fn a_message_moves_queued_handed_over_seen_answered_each_from_its_own_record() {
    let (_dir, store) = with_moon().await;
    let q = pass(
        &store,
        "sky",
        "moon",
        "is the migration done?",
        None,
        Kind::Agent,
    )
    .await;
    assert_eq!(delivery(&store, &q).await, Delivery::Queued);
    store
        .take_inbox("moon", Channel::Wait, Millis(200))
        .await
        .unwrap();
    assert_eq!(delivery(&store, &q).await, Delivery::HandedOver);
    // Another agent's transcript naming it proves nothing; moon's does.
    let seen = store
        .mark_seen("sky", std::slice::from_ref(&q.id), Millis(250))
        .await
        .unwrap();
    assert!(seen.is_empty());
    let seen = store
        .mark_seen("moon", std::slice::from_ref(&q.id), Millis(300))
        .await
        .unwrap();
    assert_eq!(seen, vec![q.id.clone()]);
    assert!(store
        .mark_seen("moon", std::slice::from_ref(&q.id), Millis(400))
        .await
        .unwrap()
        .is_empty());
    let p = store.passed(&q.id).await.unwrap().unwrap();
    assert_eq!(
        (p.delivery, p.handed_at, p.seen_at),
        (Delivery::Seen, Some(Millis(200)), Some(Millis(300)))
    );
    let a = pass(
        &store,
        "moon",
        "sky",
        "yes, at 14:02",
        Some(&q.id),
        Kind::Agent,
    )
    .await;
    let p = store.passed(&q.id).await.unwrap().unwrap();
    assert_eq!(
        (p.delivery, p.answered_by),
        (Delivery::Answered, Some(a.id.clone()))
    );
    let thanks = pass(&store, "sky", "moon", "thanks!", Some(&a.id), Kind::Ack).await;
    assert_eq!(delivery(&store, &thanks).await, Delivery::NotATurn);
    assert_eq!(
        store.passed(&a.id).await.unwrap().unwrap().answered_by,
        None,
        "a thanks is no answer"
    );
    assert_eq!(
        store.pending("moon").await.unwrap(),
        0,
        "an acknowledgement is no turn"
    );
}

#[tokio::test]
async fn an_asks_answer_is_taken_alone_and_what_came_before_it_stays_in_the_inbox() {
    let (_dir, store) = with_moon().await;
    let q = pass(&store, "sky", "moon", "which port?", None, Kind::Agent).await;
    let before = store
        .append(&user_to("sky", "meanwhile, look at the logs"))
        .await
        .unwrap()
        .message;
    let other = pass(&store, "moon", "sky", "unrelated news", None, Kind::Agent).await;
    assert!(store
        .take_answer("sky", &q.id, Millis(150))
        .await
        .unwrap()
        .is_none());
    let a = pass(&store, "moon", "sky", "port 8080", Some(&q.id), Kind::Agent).await;
    let taken = store
        .take_answer("sky", &q.id, Millis(200))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(taken.id, a.id);
    assert!(
        store
            .take_answer("sky", &q.id, Millis(210))
            .await
            .unwrap()
            .is_none(),
        "taken once"
    );
    assert_eq!(store.pending("sky").await.unwrap(), 2);
    let rest: Vec<MsgId> = store
        .take_inbox("sky", Channel::Wait, Millis(300))
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(
        rest,
        vec![before.id, other.id],
        "the answer is not handed over twice"
    );
    // A message after the answer still arrives: the cursor moved past the answer only with the inbox.
    let later = pass(&store, "moon", "sky", "one more thing", None, Kind::Agent).await;
    let next = store
        .take_inbox("sky", Channel::Hook, Millis(400))
        .await
        .unwrap();
    assert_eq!(
        next.into_iter().map(|m| m.id).collect::<Vec<_>>(),
        vec![later.id]
    );
}

#[tokio::test]
async fn threads_are_listed_once_per_pair_and_a_closed_one_says_by_whom() {
    let (_dir, store) = with_moon().await;
    store.add_agent("rain", "/w/rain", Millis(1)).await.unwrap();
    pass(&store, "sky", "moon", "one", None, Kind::Agent).await;
    pass(&store, "moon", "sky", "two", None, Kind::Agent).await;
    pass(&store, "rain", "sky", "three", None, Kind::Agent).await;
    store
        .append(&user_to("sky", "not between agents"))
        .await
        .unwrap();
    let pair = Pair::new("sky", "moon").unwrap();
    assert!(store
        .close_thread(&pair, "user", Millis(500))
        .await
        .unwrap());
    assert!(
        !store.close_thread(&pair, "sky", Millis(600)).await.unwrap(),
        "closed once"
    );
    let threads = store.threads().await.unwrap();
    let pairs: Vec<(&str, &str, i64, i64)> = threads
        .iter()
        .map(|t| (t.pair.a.as_str(), t.pair.b.as_str(), t.messages, t.queued))
        .collect();
    assert_eq!(pairs.len(), 2);
    assert!(pairs.contains(&("moon", "sky", 2, 2)) && pairs.contains(&("rain", "sky", 1, 1)));
    let closed = threads
        .iter()
        .find(|t| t.pair == pair)
        .unwrap()
        .closed
        .clone()
        .unwrap();
    assert_eq!((closed.by.as_str(), closed.at), ("user", Millis(500)));
    assert_eq!(store.turns_since(&pair, Millis(0)).await.unwrap(), 2);
    assert_eq!(store.turns_since(&pair, Millis(101)).await.unwrap(), 0);
    assert!(store.reopen_thread(&pair).await.unwrap());
    assert!(store.thread_closed(&pair).await.unwrap().is_none());
    let thread = store.thread(&pair, 10).await.unwrap();
    let texts: Vec<&str> = thread.iter().map(|p| p.message.text.as_str()).collect();
    assert_eq!(texts, ["one", "two"]);
}

/// A database from before the `ask` channel keeps every hand-over when its table is made anew: the messages
/// handed stay handed (not one comes again), the pending one stays pending.
#[tokio::test]
async fn hand_overs_made_before_asks_are_kept_when_their_table_is_made_anew() {
    use sqlx::Connection;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clawmux.db");
    let mut conn = common::older_database(&path, 20_261_203_000_000).await;
    sqlx::query(
        "INSERT INTO agents (name, work_dir, created_at, state, state_since, inbox_cursor) \
           VALUES ('sky', '/w', 1, 'idle', 1, 2); \
         INSERT INTO messages (seq, id, agent, kind, sender, recipient, text, at) VALUES \
           (1, 'msg-00000001', 'sky', 'user', 'user', 'sky', 'one', 10), \
           (2, 'msg-00000002', 'sky', 'user', 'user', 'sky', 'two', 11), \
           (3, 'msg-00000003', 'sky', 'user', 'user', 'sky', 'three', 12); \
         INSERT INTO handovers (id, message_seq, agent, channel, at) VALUES \
           (1, 1, 'sky', 'wait', 20), (2, 2, 'sky', 'stop_hook', 21);",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    conn.close().await.unwrap();

    let store = Store::open(&path).await.unwrap();
    assert_eq!(store.pending("sky").await.unwrap(), 1);
    let rest = store
        .take_inbox("sky", Channel::Hook, Millis(30))
        .await
        .unwrap();
    assert_eq!(
        rest.iter().map(|m| m.text.as_str()).collect::<Vec<_>>(),
        ["three"]
    );
    assert_eq!(
        store.last_handed("sky").await.unwrap().map(|m| m.text),
        Some("three".to_owned())
    );
}

#[tokio::test]
async fn answers_for_another_machine_are_paged_after_the_last_taken_and_keys_find_where_to_go_on() {
    let (_dir, store) = with_moon().await;
    let asked = pass(&store, "sky@laptop", "moon", "schema?", None, Kind::Agent).await;
    assert!(store.wrote_to("moon", "sky@laptop").await.unwrap());
    assert!(!store.wrote_to("moon", "sky@desk").await.unwrap());
    let answer = |text: &'static str, to: &'static str| NewMessage {
        agent: "moon",
        kind: Kind::Agent,
        sender: "moon",
        recipient: Some(to),
        text,
        parent: None,
        voice: false,
        aloud: false,
        attachments: &[],
        idem_key: None,
        at: Millis(5),
    };
    let first = store
        .append(&answer("yes", "sky@laptop"))
        .await
        .unwrap()
        .message;
    store
        .append(&answer("not yours", "rain@lap_top"))
        .await
        .unwrap();
    let second = store
        .append(&answer("and the index", "sky@laptop"))
        .await
        .unwrap()
        .message;
    let texts = |page: Vec<Message>| page.into_iter().map(|m| m.text).collect::<Vec<_>>();
    // `_` in a machine's name is no wildcard; the question that came in is not an answer.
    assert_eq!(
        texts(store.for_machine("laptop", None, 100).await.unwrap()),
        ["yes", "and the index"]
    );
    assert_eq!(
        texts(
            store
                .for_machine("laptop", Some(&first.id), 100)
                .await
                .unwrap()
        ),
        ["and the index"]
    );
    assert_eq!(
        texts(store.for_machine("laptop", None, 1).await.unwrap()),
        ["yes"]
    );
    assert!(store
        .for_machine("laptop", Some(&MsgId::parse("msg-00000000").unwrap()), 100)
        .await
        .is_err());
    // The other side keeps each under `relay:<machine>:<id>`: the last one's id is where to go on.
    assert_eq!(store.last_key_under("relay:box:").await.unwrap(), None);
    for (m, key) in [
        (&first, "relay:box:"),
        (&second, "relay:box:"),
        (&asked, "relay:boxer:"),
    ] {
        store
            .append(&NewMessage {
                idem_key: Some(&format!("{key}{}", m.id)),
                ..answer("taken", "moon")
            })
            .await
            .unwrap();
    }
    assert_eq!(
        store.last_key_under("relay:box:").await.unwrap(),
        Some(second.id.to_string())
    );
}
