//! Tests of `board`, with the agents' states over a store in a temporary folder.

use super::*;
use crate::states::fixture::{fixture_with, Fixture};
use clawmux_core::board::TaskState;
use clawmux_core::Millis;

async fn board() -> (Fixture, Board) {
    let f = fixture_with(&["rain", "moon"]).await;
    let board = Board::for_tests(&f);
    (f, board)
}

/// The texts waiting in `agent`'s inbox, taken.
async fn inbox_of(f: &Fixture, agent: &str) -> Vec<String> {
    f.states
        .store()
        .take_inbox(agent, clawmux_store::Channel::Wait, Millis(1))
        .await
        .unwrap()
        .into_iter()
        .map(|m| format!("{}: {}", m.sender, m.text))
        .collect()
}

#[tokio::test]
async fn an_item_given_to_an_agent_reaches_it_and_one_done_tells_its_watchers_but_not_the_doer() {
    let (f, board) = board().await;
    let task = board
        .add("sky", "write the docs", "the API part")
        .await
        .unwrap();
    board.watch(task.id, "moon").await.unwrap();
    let given = board
        .act(task.id, Actor::User, &Move::Assign { to: "rain".into() })
        .await
        .unwrap();
    assert_eq!(
        (given.state, given.owner.as_deref()),
        (TaskState::Taken, Some("rain"))
    );
    let told = inbox_of(&f, "rain").await;
    assert_eq!(told.len(), 1);
    assert!(
        told[0].starts_with("user: The user gave you task #1: write the docs"),
        "{told:?}"
    );
    board
        .act(task.id, Actor::Agent("rain"), &Move::Done)
        .await
        .unwrap();
    assert_eq!(
        inbox_of(&f, "sky").await,
        ["rain: Task #1 is done: write the docs"]
    );
    assert_eq!(
        inbox_of(&f, "moon").await,
        ["rain: Task #1 is done: write the docs"]
    );
    assert!(
        inbox_of(&f, "rain").await.is_empty(),
        "the doer is not told its own news"
    );
}

#[tokio::test]
async fn bad_items_and_moves_are_refused_with_their_code_and_change_nothing() {
    let (_f, board) = board().await;
    for title in ["", "   ", "two\nlines", &"x".repeat(MAX_TITLE + 1)] {
        assert_eq!(
            board.add("user", title, "").await.unwrap_err().code,
            Code::BadTask,
            "{title:?}"
        );
    }
    let long = "x".repeat(MAX_BODY + 1);
    assert_eq!(
        board.add("user", "t", &long).await.unwrap_err().code,
        Code::BadTask
    );
    let task = board.add("user", "t", "").await.unwrap();
    assert_eq!(
        board
            .act(99, Actor::User, &Move::Done)
            .await
            .unwrap_err()
            .code,
        Code::UnknownTask
    );
    assert_eq!(
        board
            .act(
                task.id,
                Actor::User,
                &Move::Assign {
                    to: "nobody".into()
                }
            )
            .await
            .unwrap_err()
            .code,
        Code::UnknownAgent
    );
    board
        .act(task.id, Actor::Agent("rain"), &Move::Take)
        .await
        .unwrap();
    let e = board
        .act(task.id, Actor::Agent("moon"), &Move::Done)
        .await
        .unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (Code::TaskRefused, "#1 is rain's")
    );
    assert_eq!(
        board.show(task.id).await.unwrap().owner.as_deref(),
        Some("rain")
    );
    let listed = board
        .list(TaskFilter {
            limit: 0,
            ..TaskFilter::default()
        })
        .await
        .unwrap_err();
    assert_eq!(listed.code, Code::BadQuery);
}
