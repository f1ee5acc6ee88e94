//! Hands-free decisions over a temporary store: the agents as the sidebar lists them, built by hand.

use clawmux_core::spoken::Sound;
use clawmux_core::wire::Kind;
use clawmux_core::{Attention, Millis, Need, State};
use clawmux_store::{NewMessage, Store};
use serde_json::{json, Value};

use super::*;
use crate::ui_event::Needs;

pub(super) struct Fixture {
    pub(super) hands_free: HandsFree,
    store: Store,
    pub(super) sessions: Vec<SessionInfo>,
    pub(super) board: Board,
    _states: crate::states::fixture::Fixture,
}

pub(super) async fn fixture() -> Fixture {
    let states = crate::states::fixture::fixture_with(&["rain"]).await;
    let store = states.states.store().clone();
    let mut sessions = Vec::new();
    for name in ["sky", "rain"] {
        let row = store.agent(name).await.unwrap();
        let mut info = SessionInfo::new(&row.name, &row.work_dir, &row.snapshot, 0);
        info.state = State::Processing;
        info.activity = "Running cargo test".into();
        sessions.push(info);
    }
    let board = Board::for_tests(&states);
    Fixture {
        hands_free: HandsFree::new(store.clone(), board.clone()),
        store,
        sessions,
        board,
        _states: states,
    }
}

/// `sky` asks, since `since`, to run `command` (or, for another tool, with that input).
fn asks(info: &mut SessionInfo, need: Need, tool: &str, input: Value, since: i64) {
    info.needs = Some(Needs {
        attention: Attention {
            need,
            reason: format!("Permission: {tool}"),
            tool_use_id: None,
            tool_name: Some(tool.into()),
            since: Millis(since),
            notice: false,
        },
        request: Some(Request {
            id: format!("req-{}", info.session_id),
            tool_name: tool.into(),
            tool_input: input,
            suggestions: Vec::new(),
        }),
    });
}

/// `info`'s agent asks, since 5, to run `command`.
fn asks_to_run(info: &mut SessionInfo, command: &str) {
    asks(
        info,
        Need::Permission,
        "Bash",
        json!({ "command": command }),
        5,
    );
}

pub(super) async fn decide(f: &Fixture, text: &str, shown: Option<&str>) -> (Heard, Act) {
    f.hands_free
        .decide(text, (None, None), shown, &f.sessions, None)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_permission_is_answered_only_by_the_closed_grammar() {
    let mut f = fixture().await;
    asks_to_run(&mut f.sessions[0], "npm test");
    let (heard, act) = decide(&f, "Allow.", Some("rain")).await;
    assert_eq!(heard.say, "sky: allowed.");
    let Act::Answer(answer) = act else {
        panic!("{act:?}")
    };
    assert_eq!(answer.session_id, "sky");
    assert_eq!(answer.request_id.as_deref(), Some("req-sky"));
    assert_eq!(answer.decision, Verdict::Allow);
    for never in [
        "Okay, wait, don't run that.",
        "allow... no, deny",
        "I would not allow that",
        "Allow or deny?",
        "below.",
    ] {
        let (heard, act) = decide(&f, never, None).await;
        assert_eq!(act, Act::None, "`{never}`");
        assert_eq!(
            heard.done,
            Done::AskedAgain {
                session_id: "sky".into()
            },
            "`{never}`"
        );
        assert!(
            heard
                .say
                .ends_with("sky asks to run npm test. Allow, or deny?"),
            "{}",
            heard.say
        );
    }
    let (_, act) = decide(&f, "deny", None).await;
    assert!(matches!(
        act,
        Act::Answer(AnswerRequest {
            decision: Verdict::Deny,
            ..
        })
    ));
}

#[tokio::test]
async fn a_dangerous_command_needs_its_phrase_and_words_for_an_agent_named_go_to_it() {
    let mut f = fixture().await;
    asks_to_run(&mut f.sessions[0], "git push origin main");
    let (heard, act) = decide(&f, "allow", Some("sky")).await;
    assert_eq!(act, Act::None);
    assert!(
        heard.say.contains("say \"allow git push\""),
        "{}",
        heard.say
    );
    let (_, act) = decide(&f, "Allow git push.", Some("sky")).await;
    assert!(matches!(
        act,
        Act::Answer(AnswerRequest {
            decision: Verdict::Allow,
            ..
        })
    ));
    // Addressed by name, words are a message even while a request waits: they approve nothing.
    let (heard, act) = decide(&f, "Rain, allow", Some("sky")).await;
    assert_eq!(
        act,
        Act::Send {
            agent: "rain".into(),
            text: "allow".into()
        }
    );
    assert_eq!(heard.say, "To rain.");
}

#[tokio::test]
async fn a_question_is_answered_by_an_options_label_said_whole() {
    let mut f = fixture().await;
    let input = json!({"questions": [{"question": "Which colour?", "options": [{"label": "Blue"}, {"label": "Green"}]}]});
    asks(
        &mut f.sessions[1],
        Need::Answer,
        "AskUserQuestion",
        input,
        5,
    );
    let (heard, _) = decide(&f, "who needs me?", None).await;
    assert_eq!(heard.say, "rain asks: Which colour? Blue, or Green?");
    let (heard, act) = decide(&f, "Green.", None).await;
    assert_eq!(heard.say, "rain: Green.");
    let Act::Answer(answer) = act else {
        panic!("{act:?}")
    };
    assert_eq!(answer.answers.unwrap()["Which colour?"], "Green");
    let (heard, act) = decide(&f, "green or blue", None).await;
    assert_eq!(act, Act::None);
    assert!(heard.say.starts_with("Not one of the options."));
}

#[tokio::test]
async fn who_needs_the_user_is_who_the_badge_counts_and_a_usage_limit_is_news() {
    // The tray's badge leaves a usage limit out; so does the voice, which says it after, as news.
    let mut f = fixture().await;
    asks(
        &mut f.sessions[0],
        Need::RateLimited,
        "rate_limit",
        json!({}),
        3,
    );
    let (heard, _) = decide(&f, "who needs me?", None).await;
    assert_eq!(
        heard.say,
        "Nobody needs you. sky is held by the usage limit."
    );
    asks(
        &mut f.sessions[1],
        Need::Permission,
        "Bash",
        json!({"command": "ls"}),
        5,
    );
    let (heard, _) = decide(&f, "who needs me?", None).await;
    assert!(
        heard.say.starts_with("rain asks to ")
            && heard.say.ends_with(" sky is held by the usage limit."),
        "{}",
        heard.say
    );
    let counted = f
        .sessions
        .iter()
        .filter(|s| s.status().needs_user())
        .count();
    assert_eq!(counted, 1);
}

#[tokio::test]
async fn the_apps_questions_are_answered_from_the_state_and_the_last_answer() {
    let mut f = fixture().await;
    let (heard, _) = decide(&f, "Who needs me?", None).await;
    assert_eq!(heard.say, "Nobody needs you.");
    let (heard, _) = decide(&f, "What is sky doing?", None).await;
    assert_eq!(heard.say, "sky is working: Running cargo test.");
    f.sessions[1].state = State::Idle;
    f.sessions[1].unread_count = 1;
    let (heard, act) = decide(&f, "next", Some("sky")).await;
    assert_eq!(
        heard.done,
        Done::Show {
            session_id: "rain".into()
        }
    );
    assert_eq!(heard.say, "rain finished, and has an answer for you.");
    assert_eq!(act, Act::None);
    f.store
        .append(&NewMessage {
            agent: "rain",
            kind: Kind::Assistant,
            sender: "rain",
            recipient: Some("user"),
            text: "All green.\n\n```\nok\n```\n\nNext I will lint.",
            parent: None,
            voice: false,
            aloud: false,
            attachments: &[],
            idem_key: None,
            at: Millis(9),
        })
        .await
        .unwrap();
    // Its first paragraph was read by the window: "more" is the rest.
    let (heard, _) = decide(&f, "More.", Some("rain")).await;
    assert_eq!(heard.say, "There is code on screen. Next I will lint.");
    let (heard, _) = decide(&f, "Read that again.", Some("rain")).await;
    assert_eq!(heard.say, "rain said: All green. Say more for the rest.");
    let (heard, _) = decide(&f, "More.", Some("rain")).await;
    assert_eq!(heard.say, "There is code on screen. Next I will lint.");
    let (heard, _) = decide(&f, "More.", Some("rain")).await;
    assert_eq!(heard.say, "There is no more.");
    let (heard, _) = decide(&f, "stop", Some("rain")).await;
    assert_eq!(heard.done, Done::Stop);
}

#[tokio::test]
async fn the_apps_own_speech_heard_back_does_nothing() {
    let mut f = fixture().await;
    asks_to_run(&mut f.sessions[0], "npm test");
    let said = "sky asks to run npm test. Allow, or deny?";
    let (heard, act) = f
        .hands_free
        .decide(
            "Sky asks to run and PM test. Allow.",
            (None, None),
            Some("sky"),
            &f.sessions,
            Some(said),
        )
        .await
        .unwrap();
    assert_eq!((heard.done, act), (Done::Nothing, Act::None));
    // The user's own short answer after it is judged.
    let (_, act) = f
        .hands_free
        .decide("Allow.", (None, None), Some("sky"), &f.sessions, Some(said))
        .await
        .unwrap();
    assert!(HandsFree::approves(&act));
}

#[tokio::test]
async fn words_go_to_the_agent_shown_and_a_name_alike_is_asked_about() {
    let mut f = fixture().await;
    let (_, act) = decide(&f, "run the tests", Some("sky")).await;
    assert_eq!(
        act,
        Act::Send {
            agent: "sky".into(),
            text: "run the tests".into()
        }
    );
    let (heard, act) = decide(&f, "run the tests", None).await;
    assert_eq!(act, Act::None);
    assert!(heard.say.starts_with("Who is it for?"));
    let row = f.store.add_agent("skye", "/w", Millis(1)).await.unwrap();
    f.sessions
        .push(SessionInfo::new(&row.name, &row.work_dir, &row.snapshot, 0));
    let (heard, act) = decide(&f, "Sky, push.", None).await;
    assert_eq!(act, Act::None);
    assert_eq!(
        heard.done,
        Done::Which {
            agents: vec!["sky".into(), "skye".into()]
        }
    );
    let (heard, _) = decide(&f, "[BLANK_AUDIO]", Some("sky")).await;
    assert_eq!(heard.done, Done::Nothing);
}

#[tokio::test]
async fn an_approval_heard_from_speech_stands_only_if_its_plain_words_and_length_agree() {
    let mut f = fixture().await;
    asks_to_run(&mut f.sessions[0], "npm test");
    let (heard, act) = decide(&f, "Allow.", Some("sky")).await;
    assert!(HandsFree::approves(&act));
    // The prompt made "Allow, but not the push" "Allow." (measured on tiny.en): not an approval.
    let (checked, act2) = HandsFree::check(
        heard.clone(),
        act.clone(),
        &f.sessions,
        Some("allow, but not in the bush."),
        Some(Sound {
            seconds: 1.36,
            runs: 1,
            opening: 0.0,
        }),
    );
    assert_eq!(act2, Act::None);
    assert_eq!(
        checked.done,
        Done::AskedAgain {
            session_id: "sky".into()
        }
    );
    assert!(checked.say.starts_with("That was not clearly an answer."));
    // "um, allow": the words agree, but it was said in two runs: not clearly an approval.
    let hesitant = Sound {
        seconds: 0.8,
        runs: 2,
        opening: 0.3,
    };
    let (_, um) = HandsFree::check(
        heard.clone(),
        act.clone(),
        &f.sessions,
        Some("allow."),
        Some(hesitant),
    );
    assert_eq!(um, Act::None);
    // "allow", heard as "below." without the prompt, said in 0.4 s in one run: it stands.
    let clear = Sound {
        seconds: 0.4,
        runs: 1,
        opening: 0.0,
    };
    let (_, act3) = HandsFree::check(heard, act.clone(), &f.sessions, Some("below."), Some(clear));
    assert_eq!(act3, act);
    // A denial is never second-guessed.
    let (_, deny) = decide(&f, "deny", Some("sky")).await;
    assert!(!HandsFree::approves(&deny));
}

#[test]
fn the_recognizer_expects_the_names_and_while_a_request_is_open_every_answer_alike() {
    let info =
        |name: &str| SessionInfo::new(name, "/w", &clawmux_core::Snapshot::new(Millis(1)), 0);
    let mut sessions = vec![info("sky"), info("rain")];
    assert_eq!(HandsFree::expected(&sessions, None), "sky, rain.");
    asks(
        &mut sessions[0],
        Need::Permission,
        "Bash",
        json!({"command": "git push"}),
        5,
    );
    assert_eq!(
        HandsFree::expected(&sessions, None),
        "sky, rain. Allow. Always allow. Deny. Skip. No. Wait. Don't. Not. But. allow git push."
    );
}
