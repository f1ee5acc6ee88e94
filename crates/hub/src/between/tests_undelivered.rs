//! Tests of a message that does not get through: the sender's "needs you", against a temporary store.

use super::tests::{fixture, turn, Fixture};
use super::*;
use clawmux_core::Source;

/// `agent`'s "needs you", as the store holds it.
async fn needs(f: &Fixture, agent: &str) -> Option<clawmux_core::Attention> {
    f.states
        .store()
        .agent(agent)
        .await
        .unwrap()
        .snapshot
        .attention
}

#[tokio::test]
async fn a_message_to_an_agent_not_running_needs_the_senders_user_until_it_is_taken() {
    let f = fixture(60).await;
    let stopped = f
        .states
        .apply("moon", Source::Hub, &clawmux_core::Event::Terminated, b"")
        .await
        .unwrap();
    assert_eq!(stopped.after.state, State::Dead);
    let sent = f
        .between
        .send("sky", "moon", "is the schema done?", None, "k1")
        .await
        .unwrap();
    assert!(sent.note.unwrap().contains("the user was told"));
    let need = needs(&f, "sky").await.expect("sky needs the user");
    assert_eq!(need.need, clawmux_core::Need::Undelivered);
    assert!(
        need.reason.contains("moon is not running"),
        "{}",
        need.reason
    );
    // Back in its wait, sky still needs the user for it.
    f.states
        .apply(
            "sky",
            Source::Wait,
            &clawmux_core::Event::WaitConnected,
            b"",
        )
        .await
        .unwrap();
    assert!(needs(&f, "sky").await.is_some());
    // Still queued: nothing changes; taken at moon's start: the need ends by itself.
    f.between.check_undelivered(now()).await.unwrap();
    assert!(needs(&f, "sky").await.is_some());
    let taken = f
        .states
        .store()
        .take_inbox("moon", clawmux_store::Channel::Wait, now())
        .await
        .unwrap();
    assert_eq!(taken.len(), 1);
    f.between.check_undelivered(now()).await.unwrap();
    assert_eq!(needs(&f, "sky").await, None);
}

#[tokio::test]
async fn a_message_not_taken_in_time_needs_the_senders_user_once() {
    let f = fixture(60).await;
    turn(&f, "sky", "moon", "ping", None).await;
    f.between.check_undelivered(now()).await.unwrap();
    assert_eq!(needs(&f, "sky").await, None, "not yet");
    let later = Millis(now().0 + 11 * 60_000);
    f.between.check_undelivered(later).await.unwrap();
    let need = needs(&f, "sky").await.expect("sky needs the user");
    assert_eq!(need.need, clawmux_core::Need::Undelivered);
    assert!(
        need.reason
            .contains("moon has not taken it in 11 min (moon is starting)"),
        "{}",
        need.reason
    );
    assert!(need.notice, "the user may dismiss it");
    f.states.dismiss("sky", Source::Ui).await.unwrap();
    f.between
        .check_undelivered(Millis(later.0 + 60_000))
        .await
        .unwrap();
    assert_eq!(needs(&f, "sky").await, None, "raised once per message");
    // The recipient is never the one told.
    assert_eq!(needs(&f, "moon").await, None);
}

#[tokio::test]
async fn a_thread_at_its_count_needs_the_senders_user_and_never_covers_a_dialog() {
    let f = fixture(1).await;
    turn(&f, "sky", "moon", "q", None).await;
    let refused = f.between.send("sky", "moon", "again", None, "k2").await;
    assert_eq!(refused.unwrap_err().code, Code::ThreadLimit);
    let need = needs(&f, "sky").await.expect("sky needs the user");
    assert!(
        need.reason.contains("reached 1 messages"),
        "{}",
        need.reason
    );
    // moon waits for a permission: a refused send of its own does not cover the dialog.
    let permission = serde_json::json!({
        "hook_event_name": "PermissionRequest", "session_id": "s", "tool_name": "Bash",
        "tool_input": {"command": "git push"}
    });
    let (event, _) = clawmux_core::Event::from_hook_value(&permission);
    f.states
        .apply("moon", Source::Hook, &event, b"")
        .await
        .unwrap();
    let refused = f.between.send("moon", "sky", "hello", None, "k3").await;
    assert_eq!(refused.unwrap_err().code, Code::ThreadLimit);
    assert_eq!(
        needs(&f, "moon").await.unwrap().need,
        clawmux_core::Need::Permission
    );
}
