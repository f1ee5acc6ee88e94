//! Tests of `between`, against a store in a temporary folder.

use super::*;
use clawmux_core::between::Delivery;
use clawmux_core::wire::Kind;
use clawmux_store::NewMessage;

struct Fixture {
    _dir: tempfile::TempDir,
    store: Store,
    between: Between,
    ui: broadcast::Receiver<UiEvent>,
}

async fn fixture(turns_per_hour: u32) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("clawmux.db")).await.unwrap();
    let agents = Agents::default();
    for name in ["sky", "moon"] {
        store.add_agent(name, "/w", Millis(1)).await.unwrap();
        agents.insert(name, "/w".into(), State::Idle);
    }
    let ui = broadcast::channel(16).0;
    let events = ui.subscribe();
    Fixture {
        between: Between::new(store.clone(), agents, ui, turns_per_hour),
        store,
        _dir: dir,
        ui: events,
    }
}

/// `from`'s turn to `to`, stored as the hub stores it.
async fn turn(f: &Fixture, from: &str, to: &str, text: &str, re: Option<&MsgId>) -> Message {
    let m = f
        .store
        .append(&NewMessage {
            agent: to,
            kind: Kind::Agent,
            sender: from,
            recipient: Some(to),
            text,
            parent: re,
            voice: false,
            aloud: false,
            attachments: &[],
            idem_key: None,
            at: now(),
        })
        .await
        .unwrap()
        .message;
    f.between.stored(&m);
    m
}

#[tokio::test]
async fn an_agent_cannot_write_to_itself_or_to_an_agent_the_hub_does_not_know() {
    let f = fixture(40).await;
    let e = f.between.admit("sky", "sky", "hi", None).await.unwrap_err();
    assert_eq!(e.code, Code::ToItself);
    let e = f
        .between
        .admit("sky", "nobody", "hi", None)
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::UnknownAgent);
    assert_eq!(
        f.between.admit("sky", "moon", "hi", None).await.unwrap(),
        Carried::Turn
    );
}

#[tokio::test]
async fn thanks_for_an_answer_is_no_turn_but_got_it_to_a_fresh_question_is() {
    let f = fixture(40).await;
    let q = turn(&f, "sky", "moon", "did the build pass?", None).await;
    assert_eq!(
        f.between
            .admit("moon", "sky", "got it", Some(&q.id))
            .await
            .unwrap(),
        Carried::Turn,
        "an answer to a question is a turn, whatever its words"
    );
    let a = turn(&f, "moon", "sky", "yes, green", Some(&q.id)).await;
    assert_eq!(
        f.between
            .admit("sky", "moon", "Thanks!", Some(&a.id))
            .await
            .unwrap(),
        Carried::Acknowledgement
    );
    assert_eq!(
        f.between
            .admit("sky", "moon", "thanks, now deploy it", Some(&a.id))
            .await
            .unwrap(),
        Carried::Turn
    );
}

#[tokio::test]
async fn a_closed_thread_refuses_both_ways_until_the_user_reopens_it() {
    let f = fixture(40).await;
    f.between.close("sky", "moon", "user").await.unwrap();
    for (from, to) in [("sky", "moon"), ("moon", "sky")] {
        let e = f
            .between
            .admit(from, to, "one more", None)
            .await
            .unwrap_err();
        assert_eq!(e.code, Code::ThreadClosed);
        assert!(e.message.contains("closed by user"), "{}", e.message);
    }
    f.between.reopen("moon", "sky").await.unwrap();
    assert_eq!(
        f.between.admit("sky", "moon", "again", None).await.unwrap(),
        Carried::Turn
    );
}

#[tokio::test]
async fn a_thread_past_its_turns_for_the_hour_refuses_the_next_with_the_reason() {
    let f = fixture(3).await;
    for i in 0..3 {
        let (from, to) = if i % 2 == 0 {
            ("sky", "moon")
        } else {
            ("moon", "sky")
        };
        assert_eq!(
            f.between.admit(from, to, "ping", None).await.unwrap(),
            Carried::Turn
        );
        turn(&f, from, to, "ping", None).await;
    }
    let e = f
        .between
        .admit("sky", "moon", "ping", None)
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::ThreadLimit);
    assert!(
        e.message.contains("3 messages in the last hour"),
        "{}",
        e.message
    );
    // An acknowledgement is no turn, so it is never refused for the count.
    let q = turn(&f, "sky", "moon", "q", None).await;
    let a = turn(&f, "moon", "sky", "a", Some(&q.id)).await;
    assert_eq!(
        f.between
            .admit("sky", "moon", "thanks", Some(&a.id))
            .await
            .unwrap(),
        Carried::Acknowledgement
    );
}

#[tokio::test]
async fn an_ask_gets_the_answer_stored_while_it_waits_and_only_once() {
    let f = fixture(40).await;
    let q = turn(&f, "sky", "moon", "which port?", None).await;
    let waiting = {
        let between = f.between.clone();
        let id = q.id.clone();
        tokio::spawn(async move {
            between
                .await_answer("sky", &id, Duration::from_secs(30))
                .await
        })
    };
    // Something that is not the answer wakes the ask, which goes on waiting.
    turn(&f, "moon", "sky", "unrelated", None).await;
    let other = turn(&f, "sky", "moon", "another question", None).await;
    turn(
        &f,
        "moon",
        "sky",
        "answer to the other one",
        Some(&other.id),
    )
    .await;
    let a = turn(&f, "moon", "sky", "8080", Some(&q.id)).await;
    let got = waiting.await.unwrap().unwrap().unwrap();
    assert_eq!(got.id, a.id);
    let p = f.store.passed(&a.id).await.unwrap().unwrap();
    assert_eq!(p.delivery, Delivery::HandedOver);
    assert!(f
        .between
        .await_answer("sky", &q.id, Duration::ZERO)
        .await
        .unwrap()
        .is_none());
    assert_eq!(
        f.store.pending("sky").await.unwrap(),
        2,
        "the others stay in the inbox"
    );
}

#[tokio::test]
async fn what_the_transcript_shows_is_seen_once_and_told_to_the_window() {
    let mut f = fixture(40).await;
    let q = turn(&f, "sky", "moon", "hello", None).await;
    f.between
        .seen("sky", std::slice::from_ref(&q.id), Millis(5))
        .await;
    f.between
        .seen("moon", std::slice::from_ref(&q.id), Millis(6))
        .await;
    f.between
        .seen("moon", std::slice::from_ref(&q.id), Millis(7))
        .await;
    let told = f.ui.recv().await.unwrap();
    let UiEvent::Seen { session_id, ids } = told else {
        panic!("not a seen event: {told:?}");
    };
    assert_eq!((session_id.as_str(), ids), ("moon", vec![q.id.clone()]));
    assert!(f.ui.try_recv().is_err(), "told once");
    assert_eq!(
        f.store.passed(&q.id).await.unwrap().unwrap().seen_at,
        Some(Millis(6))
    );
}
