//! Tests of `between`, against a store in a temporary folder.

use super::*;
use clawmux_core::between::Delivery;

pub(super) struct Fixture {
    f: crate::states::fixture::Fixture,
    pub(super) between: Between,
    ui: tokio::sync::broadcast::Receiver<UiEvent>,
}

impl std::ops::Deref for Fixture {
    type Target = crate::states::fixture::Fixture;
    fn deref(&self) -> &Self::Target {
        &self.f
    }
}

pub(super) async fn fixture(turns_per_hour: u32) -> Fixture {
    let mut f = crate::states::fixture::fixture_with(&["moon"]).await;
    let between = Between::for_tests(
        &f,
        Rules {
            turns_per_hour,
            undelivered_after: Duration::from_secs(600),
        },
    );
    let ui = f.events.resubscribe();
    while f.events.try_recv().is_ok() {}
    Fixture { f, between, ui }
}

/// `from`'s turn to `to`, sent as `clawmux send` sends it (each with a key of its own).
pub(super) async fn turn(
    f: &Fixture,
    from: &str,
    to: &str,
    text: &str,
    re: Option<&MsgId>,
) -> Message {
    static KEY: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let key = format!(
        "k{}",
        KEY.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let sent = f.between.send(from, to, text, re, &key).await.unwrap();
    f.states.store().message(&sent.id).await.unwrap().unwrap()
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
    let q = turn(&f, "sky", "moon", "q", None).await;
    let a = turn(&f, "moon", "sky", "a", Some(&q.id)).await;
    let third = f
        .between
        .send("sky", "moon", "ping", None, "third")
        .await
        .unwrap();
    // The third's retry (its answer lost) is that turn, not a new one refused: answered with it.
    let again = f
        .between
        .send("sky", "moon", "ping", None, "third")
        .await
        .unwrap();
    assert_eq!((again.id, again.seq), (third.id, third.seq));
    // Other words under that key are not it.
    let other = f.between.send("sky", "moon", "pong", None, "third").await;
    assert_eq!(other.unwrap_err().code, Code::ThreadLimit);
    let e = f
        .between
        .send("moon", "sky", "ping", None, "over")
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::ThreadLimit);
    assert!(
        e.message.contains("3 messages in the last hour"),
        "{}",
        e.message
    );
    assert_eq!(
        f.states
            .store()
            .turns_since(&Pair::new("sky", "moon").unwrap(), Millis(0))
            .await
            .unwrap(),
        3,
        "nothing stored"
    );
    // An acknowledgement is no turn, so it is never refused for the count.
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
    let p = f.states.store().passed(&a.id).await.unwrap().unwrap();
    assert_eq!(p.delivery, Delivery::HandedOver);
    assert!(f
        .between
        .await_answer("sky", &q.id, Duration::ZERO)
        .await
        .unwrap()
        .is_none());
    assert_eq!(
        f.states.store().pending("sky").await.unwrap(),
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
    // A seen event is told as it is recorded; the message's own events may come before or after it.
    let mut seen = Vec::new();
    while let Ok(event) = f.ui.try_recv() {
        if let UiEvent::Seen { session_id, ids } = event {
            seen.push((session_id, ids));
        }
    }
    assert_eq!(
        seen,
        [("moon".to_owned(), vec![q.id.clone()])],
        "told once, for moon"
    );
    assert_eq!(
        f.states
            .store()
            .passed(&q.id)
            .await
            .unwrap()
            .unwrap()
            .seen_at,
        Some(Millis(6))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sends_at_once_never_pass_the_count_together() {
    let f = fixture(5).await;
    let sends = (0..20).map(|i| {
        let between = f.between.clone();
        tokio::spawn(async move {
            between
                .send(
                    "sky",
                    "moon",
                    &format!("ping {i}"),
                    None,
                    &format!("at-once-{i}"),
                )
                .await
        })
    });
    let mut stored = 0;
    for send in sends.collect::<Vec<_>>() {
        match send.await.unwrap() {
            Ok(_) => stored += 1,
            Err(e) => assert_eq!(e.code, Code::ThreadLimit),
        }
    }
    assert_eq!(stored, 5);
}

#[tokio::test]
async fn the_senders_chat_has_a_line_naming_the_other_once_per_message() {
    let f = fixture(60).await;
    let lines = |f: &Fixture| {
        let store = f.states.store().clone();
        async move {
            store
                .latest("sky", 50)
                .await
                .unwrap()
                .into_iter()
                .filter(|m| m.kind == Kind::System)
                .map(|m| m.text)
                .collect::<Vec<_>>()
        }
    };
    let q = f
        .between
        .send("sky", "moon", "is the\x1b]0; schema done?", None, "note-1")
        .await
        .unwrap();
    let again = f
        .between
        .send("sky", "moon", "is the\x1b]0; schema done?", None, "note-1")
        .await
        .unwrap();
    assert_eq!(again.id, q.id);
    assert_eq!(lines(&f).await, ["To moon: is the]0; schema done?"]);
    let a = turn(&f, "moon", "sky", "yes", Some(&q.id)).await;
    turn(&f, "sky", "moon", "thanks!", Some(&a.id)).await;
    assert_eq!(lines(&f).await.len(), 1, "an acknowledgement is no line");
}

#[tokio::test]
async fn the_users_word_in_a_thread_is_shown_in_it_and_handed_to_the_one_it_is_for() {
    let f = fixture(60).await;
    let q = turn(&f, "sky", "moon", "shall I drop the table?", None).await;
    let reply = |to: &str, re: &MsgId, key: &str| {
        let (between, to, re, key) = (f.between.clone(), to.to_owned(), re.clone(), key.to_owned());
        async move { between.user_reply(&to, &re, "no: keep it", &key).await }
    };
    let said = reply("moon", &q.id, "u1").await.unwrap();
    assert_eq!(
        reply("moon", &q.id, "u1").await.unwrap().id,
        said.id,
        "a retry"
    );
    let thread = f.between.thread("sky", "moon", 10).await.unwrap();
    let shown: Vec<(&str, Delivery)> = thread
        .iter()
        .map(|p| (p.message.sender.as_str(), p.delivery))
        .collect();
    assert_eq!(
        shown,
        [("sky", Delivery::Queued), ("user", Delivery::Queued)]
    );
    let taken = f
        .states
        .store()
        .take_inbox("moon", clawmux_store::Channel::Wait, now())
        .await
        .unwrap();
    assert_eq!(taken.last().unwrap().text, "no: keep it");
    // Only into a thread of the agent named; words, not nothing.
    let e = reply("moon", &said.id, "u2").await.unwrap_err();
    assert_eq!(e.code, Code::UnknownCursor);
    let e = f
        .between
        .user_reply("moon", &q.id, " ", "u3")
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::EmptyMessage);
}
