//! Whom hands-free words are for, over the same temporary store as `tests.rs`: a name said that is no
//! agent's, the plain hearing deciding, a name the recognizer dropped.

use clawmux_core::spoken::Sound;

use super::tests::{decide, fixture};
use super::*;

#[tokio::test]
async fn words_for_an_agent_named_are_never_sent_to_another_and_the_plain_hearing_decides_whom() {
    let f = fixture().await;
    // A name said that is no agent's (as tiny.en heard "Rain, ..." and "What is sky doing?"): asked.
    for heard_as in ["Ray, stop the build.", "What is Kai doing?"] {
        let (heard, act) = decide(&f, heard_as, Some("sky")).await;
        assert_eq!(act, Act::None, "{heard_as}: {heard:?}");
        assert!(matches!(heard.done, Done::Which { .. }), "{heard:?}");
        assert!(HandsFree::names_nobody(heard_as, &f.sessions));
    }
    let (heard, _) = decide(&f, "What is Kai doing?", Some("sky")).await;
    assert_eq!(
        heard.say,
        "No agent is called \"kai\". Say one of sky, rain."
    );
    // The prompted hearing named nobody, the plain one names rain: rain gets the words.
    let (_, act) = f
        .hands_free
        .decide(
            "way in front the fps",
            (Some("rain run the test"), None),
            Some("sky"),
            &f.sessions,
            None,
        )
        .await
        .unwrap();
    assert_eq!(
        act,
        Act::Send {
            agent: "rain".into(),
            text: "run the test".into()
        }
    );
    // A name said first that the recognizer dropped ("Wren, run the tests." heard "Run the tests."): the
    // audio opens with a short run apart from the rest, so the app asks whom, and sends nothing.
    let named_first = Sound {
        seconds: 1.4,
        runs: 2,
        opening: 0.35,
    };
    let (heard, act) = f
        .hands_free
        .decide(
            "Run the tests. Run the tests.",
            (None, Some(named_first)),
            Some("sky"),
            &f.sessions,
            None,
        )
        .await
        .unwrap();
    assert_eq!(act, Act::None);
    assert_eq!(heard.say, "Who is it for? Say the agent's name first.");
    // Named clearly with the prompt: no second hearing is needed.
    assert!(!HandsFree::names_nobody(
        "Rain, run the tests.",
        &f.sessions
    ));
}
