//! Tests of `states.rs`.

use super::fixture::{fixture, told};
use super::*;

fn statuses(events: &[UiEvent]) -> Vec<State> {
    events
        .iter()
        .filter_map(|e| {
            if let UiEvent::SessionStatus { state, .. } = e {
                Some(*state)
            } else {
                None
            }
        })
        .collect()
}

#[tokio::test]
async fn an_event_is_stored_and_a_new_state_told_once() {
    let mut f = fixture().await;
    f.states
        .apply("sky", Source::Wait, &Event::WaitConnected, b"")
        .await
        .unwrap();
    f.states
        .apply("sky", Source::Wait, &Event::WaitConnected, b"")
        .await
        .unwrap();
    let stored = f.states.store().agent("sky").await.unwrap();
    assert_eq!(stored.snapshot.state, State::Idle);
    assert_eq!(statuses(&told(&mut f.events)), vec![State::Idle]);
    let e = f
        .states
        .apply("nobody", Source::Wait, &Event::WaitConnected, b"")
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::UnknownAgent);
}

#[tokio::test]
async fn a_problem_is_told_when_it_changes_and_not_again() {
    let mut f = fixture().await;
    f.states.set_problem("sky", Some("Out of the loop".into()));
    f.states.set_problem("sky", Some("Out of the loop".into()));
    f.states.set_problem("sky", None);
    let problems: Vec<Option<String>> = told(&mut f.events)
        .into_iter()
        .filter_map(|e| {
            if let UiEvent::SessionProblem { problem, .. } = e {
                Some(problem)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(problems, vec![Some("Out of the loop".into()), None]);
}

#[tokio::test]
async fn only_a_need_a_notice_raised_is_dismissed() {
    let f = fixture().await;
    let e = f.states.dismiss("sky", Source::Ui).await.unwrap_err();
    assert_eq!(e.code, Code::NotDismissable);
    assert_eq!(
        f.states.store().agent("sky").await.unwrap().snapshot.state,
        State::Starting
    );
}

#[tokio::test]
async fn what_a_feature_found_is_recorded_in_the_order_it_came() {
    let mut f = fixture().await;
    let (finds, found) = crate::found::Finds::channel();
    for event in [Event::WaitConnected, Event::WaitDisconnected] {
        finds.send(crate::found::Found {
            agent: "sky".into(),
            source: Source::Wait,
            event,
            payload: Vec::new(),
            at: now(),
            tell_status: false,
        });
    }
    finds.tell_status("sky");
    drop(finds);
    f.states.clone().record_found(found).await;
    assert_eq!(
        statuses(&told(&mut f.events)),
        vec![State::Idle, State::Processing, State::Processing]
    );
}
