//! Tests of `the module`.

use super::testing::message_for_sky;
use super::*;
use crate::states::fixture::fixture;

async fn state(states: &States) -> State {
    states.store().agent("sky").await.unwrap().snapshot.state
}

#[tokio::test]
async fn a_wait_is_offered_the_messages_and_takes_them_once_it_confirms() {
    let f = fixture().await;
    let inbox = Inbox::new(f.states.clone());
    message_for_sky(&f.states, &inbox, "run the tests").await;
    let waiter = inbox.wait_open("sky").await.unwrap();
    assert_eq!(state(&f.states).await, State::Idle);
    let offer = waiter.offer().await.unwrap();
    assert_eq!(offer.messages[0].text, "run the tests");
    // Declined (the wait died before printing): the message stays for the next consumer.
    waiter.decline(offer);
    assert_eq!(inbox.pending("sky").await.unwrap(), 1);
    waiter.signals.wake.notify_one();
    let offer = waiter.offer().await.unwrap();
    waiter.confirm(offer).await.unwrap();
    assert_eq!(inbox.pending("sky").await.unwrap(), 0);
    waiter.close().await.unwrap();
    assert_eq!(state(&f.states).await, State::Processing);
}

#[tokio::test]
async fn a_hook_takes_nothing_while_a_wait_is_connected_and_the_stop_hook_then_hands_it_over() {
    let f = fixture().await;
    let inbox = Inbox::new(f.states.clone());
    let waiter = inbox.wait_open("sky").await.unwrap();
    message_for_sky(&f.states, &inbox, "hello").await;
    assert!(inbox.hand_over_to_hook("sky").await.unwrap().is_empty());
    waiter.close().await.unwrap();
    let taken = inbox.hand_over_to_hook("sky").await.unwrap();
    assert_eq!(taken.len(), 1);
    // Handed over by a hook and not answered yet: Claude may not stop.
    assert!(inbox.stop_verdict("sky").await.unwrap().block);
}

#[tokio::test]
async fn an_idle_agent_whose_wait_did_not_come_back_after_a_start_is_taken_to_have_left_it() {
    let f = fixture().await;
    let inbox = Inbox::new(f.states.clone());
    // Recorded IDLE by the hub before this one: its wait is gone.
    f.states
        .apply("sky", Source::Wait, &Event::WaitConnected, b"")
        .await
        .unwrap();
    // (The grace a store on a real clock would give is the caller's; none is needed here.)
    inbox
        .settle_waits_after_start(std::time::Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(state(&f.states).await, State::Processing);
    // A wait that came back is left alone.
    let waiter = inbox.wait_open("sky").await.unwrap();
    inbox
        .settle_waits_after_start(std::time::Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(state(&f.states).await, State::Idle);
    drop(waiter);
}

#[tokio::test]
async fn a_dead_or_unknown_agent_cannot_be_waited_for() {
    let f = fixture().await;
    let inbox = Inbox::new(f.states.clone());
    let e = inbox.wait_open("nobody").await.err().unwrap();
    assert_eq!(e.code, Code::UnknownAgent);
    f.states
        .apply("sky", Source::Hub, &Event::Terminated, b"")
        .await
        .unwrap();
    let e = inbox.wait_open("sky").await.err().unwrap();
    assert_eq!(e.code, Code::AgentDead);
}
