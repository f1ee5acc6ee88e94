//! An utterance as the answer to an open request: a question's option said whole, or the closed grammar of
//! `core::spoken::approval` for a permission or a plan. Whatever is not clearly an answer is asked again.

use clawmux_core::spoken::{self, approval::Why, Judged};
use serde_json::{Map, Value};

use super::{say, Act, Done, Heard};
use crate::asks::{AnswerRequest, Verdict};
use crate::ui_event::{Request, SessionInfo};

/// `text` as the answer to `request` of `info`'s agent.
pub(super) fn answer(
    info: &SessionInfo,
    request: &Request,
    text: &str,
    reply: impl Fn(String, Done) -> Heard,
) -> (Heard, Act) {
    let agent = info.session_id.clone();
    let asked = say::need(info).unwrap_or_default();
    let again = |why: &str| asked_again(&agent, &asked, why, &reply);
    if say::asks_a_question(info) {
        return match chosen(request, text) {
            Some((question, label)) => {
                let mut answers = Map::new();
                answers.insert(question, Value::String(label.clone()));
                decided(
                    &agent,
                    request,
                    Verdict::Allow,
                    Some(answers),
                    format!("{agent}: {label}."),
                    reply,
                )
            }
            None => again("Not one of the options."),
        };
    }
    let danger = spoken::danger(&request.tool_name, &request.tool_input);
    let (decision, said) = match spoken::judge(text, danger.as_ref()) {
        Judged::Allow => (Verdict::Allow, "allowed"),
        Judged::AllowAlways => (Verdict::AllowAlways, "allowed, always"),
        Judged::Deny => (Verdict::Deny, "denied"),
        Judged::Skip => return (reply(String::new(), Done::Skip), Act::None),
        Judged::Again(Why::SayThePhrase(phrase)) => {
            return again(&format!(
                "That is a dangerous command: to allow it, say \"{phrase}\"."
            ))
        }
        Judged::Again(Why::Nothing) => return again(""),
        Judged::Again(Why::Unsure | Why::NotAnAnswer) => return again("That was not an answer."),
    };
    let say = format!("{agent}: {said}.");
    decided(&agent, request, decision, None, say, reply)
}

/// Not an answer: why, then what `agent` asks (`asked`), said again; nothing is done.
pub(super) fn asked_again(
    agent: &str,
    asked: &str,
    why: &str,
    reply: impl Fn(String, Done) -> Heard,
) -> (Heard, Act) {
    let again = Done::AskedAgain {
        session_id: agent.to_owned(),
    };
    (
        reply(format!("{why} {asked}").trim().to_owned(), again),
        Act::None,
    )
}

/// An answer decided: the router gives it through the same path as a click.
fn decided(
    agent: &str,
    request: &Request,
    decision: Verdict,
    answers: Option<Map<String, Value>>,
    say: String,
    reply: impl Fn(String, Done) -> Heard,
) -> (Heard, Act) {
    (
        reply(
            say,
            Done::Answered {
                session_id: agent.to_owned(),
                request_id: request.id.clone(),
                decision,
            },
        ),
        Act::Answer(AnswerRequest {
            session_id: agent.to_owned(),
            request_id: Some(request.id.clone()),
            decision,
            message: (decision == Verdict::Deny).then(|| "The user said no, by voice.".to_owned()),
            answers,
            suggestion: None,
            mode: None,
        }),
    )
}

/// The option of a question the whole utterance names: (the question, the label).
fn chosen(request: &Request, text: &str) -> Option<(String, String)> {
    let (question, labels) = say::question(request)?;
    let said = spoken::words(&spoken::clean(text));
    labels
        .into_iter()
        .find(|label| spoken::words(label) == said)
        .map(|label| (question, label))
}
