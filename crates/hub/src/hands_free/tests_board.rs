//! The board by voice: what is open said from the board, and a give found on it, or asked about.

use clawmux_core::board::{Actor, Move};

use super::tests::{decide, fixture};
use super::*;

#[tokio::test]
async fn what_is_open_is_said_from_the_board_without_what_is_done() {
    let f = fixture().await;
    assert_eq!(
        decide(&f, "What's open?", None).await.0.say,
        "The board has nothing open."
    );
    let docs = f.board.add("sky", "write the docs", "").await.unwrap();
    let login = f
        .board
        .add("user", "fix the login\x1b]0;page", "")
        .await
        .unwrap();
    let api = f.board.add("user", "the API", "").await.unwrap();
    let old = f.board.add("user", "old work", "").await.unwrap();
    f.board
        .act(api.id, Actor::Agent("rain"), &Move::Take)
        .await
        .unwrap();
    f.board
        .act(old.id, Actor::Agent("rain"), &Move::Take)
        .await
        .unwrap();
    f.board
        .act(old.id, Actor::Agent("rain"), &Move::Done)
        .await
        .unwrap();
    let (heard, act) = decide(&f, "What is open?", Some("sky")).await;
    assert_eq!(act, Act::None);
    assert_eq!(
        heard.say,
        format!(
            "2 open: task {}, write the docs, task {}, fix the login]0;page. rain has task {}, the API.",
            docs.id, login.id, api.id
        )
    );
}

#[tokio::test]
async fn a_give_is_found_on_the_board_by_number_or_words_and_asked_about_when_unclear() {
    let f = fixture().await;
    let docs = f.board.add("sky", "write the docs", "").await.unwrap();
    let (heard, act) = decide(&f, "Give the docs task to Rain.", Some("sky")).await;
    assert_eq!(
        heard.say,
        format!("Task {}, write the docs, to rain.", docs.id)
    );
    assert_eq!(
        act,
        Act::Give {
            id: docs.id,
            agent: "rain".into()
        }
    );
    let (_, act) = decide(&f, &format!("give task {} to sky", docs.id), None).await;
    assert_eq!(
        act,
        Act::Give {
            id: docs.id,
            agent: "sky".into()
        }
    );
    // Two items with the words: asked which, nothing given.
    let site = f.board.add("user", "docs site", "").await.unwrap();
    let (heard, act) = decide(&f, "give the docs task to rain", None).await;
    assert_eq!(act, Act::None);
    assert_eq!(
        heard.say,
        format!(
            "Which one: task {}, write the docs, task {}, docs site? Say its number.",
            docs.id, site.id
        )
    );
    let (heard, act) = decide(&f, "give task nineteen to rain", None).await;
    assert_eq!(
        (heard.say.as_str(), act),
        ("There is no task 19 on the board.", Act::None)
    );
    let (heard, act) = decide(&f, "give the payroll task to rain", None).await;
    assert_eq!(
        (heard.say.as_str(), act),
        ("No task on the board is called \"payroll\".", Act::None)
    );
    f.board
        .act(site.id, Actor::Agent("rain"), &Move::Take)
        .await
        .unwrap();
    f.board
        .act(site.id, Actor::Agent("rain"), &Move::Done)
        .await
        .unwrap();
    let (heard, act) = decide(&f, &format!("give task {} to sky", site.id), None).await;
    assert_eq!(act, Act::None);
    assert_eq!(heard.say, format!("Task {} is done already.", site.id));
}
