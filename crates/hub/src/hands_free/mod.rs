//! Hands-free: what the user says, understood and carried out without a model. An utterance (its words
//! from speech to text) is a question the app answers from the hub's state ("who needs me?", "what is sky
//! doing?", "read that again", "more", "what is open?"), a give of the board's ("give the docs task to
//! rain"), words for an agent (named first, or the one shown), or the answer to
//! the open request, judged by the closed grammar of `core::spoken::approval`: what is not clearly an
//! approval is asked again, never taken as one.
//!
//! The rules are the core's pure functions; this feature holds the store (an agent's last answer, to read
//! it again) and what is being read (for "more"), and decides. The router carries a decision out through
//! the same paths as a typed message and a click (`Hub::user_message`, `Requests::answer`), so a voice
//! message is stored once like a typed one and a request is answered once, whichever surface answers first.

mod answer;
mod board;
mod query;
pub(crate) mod say;

use std::sync::{Arc, Mutex};

use clawmux_core::spoken::{self, Query, Understood};
use clawmux_core::wire::MsgId;
use clawmux_store::Store;

use crate::asks::{AnswerRequest, Verdict};
use crate::board::Board;
use crate::error::HubError;
use crate::ui_event::{Request, SessionInfo};
use answer::{answer, asked_again};
pub use clawmux_api::hands_free::{Done, Heard};
use clawmux_core::sync::Locked;

/// What the router carries out for a decision.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Act {
    /// Nothing beyond saying.
    None,
    /// Store the words as the user's voice message to `agent`.
    Send {
        /// The agent.
        agent: String,
        /// The words.
        text: String,
    },
    /// Answer the open request.
    Answer(AnswerRequest),
    /// Give item `id` of the board to `agent`, as the window's give does.
    Give {
        /// The item.
        id: i64,
        /// The agent.
        agent: String,
    },
}

/// An answer being read aloud, for "more": which message, and what of it is left to say.
struct Reading {
    id: MsgId,
    rest: String,
}

/// Hands-free: made once with the store and the board, holding what is being read.
#[derive(Clone)]
pub struct HandsFree {
    store: Store,
    board: Board,
    reading: Arc<Mutex<Option<Reading>>>,
}

impl HandsFree {
    pub(crate) fn new(store: Store, board: Board) -> HandsFree {
        HandsFree {
            store,
            board,
            reading: Arc::new(Mutex::new(None)),
        }
    }

    fn reading(&self) -> std::sync::MutexGuard<'_, Option<Reading>> {
        self.reading.locked()
    }

    /// Decides what `text` (as heard) means with the agent `shown` on screen and the agents as `sessions`
    /// list them: what to say, and what the router must do. `plain` is the same speech heard without the
    /// recognizer's prompt, where it was (it decides who the words are for when `text` names nobody
    /// clearly: [`HandsFree::names_nobody`]); `sound`, what its audio says (a name said first that the
    /// recognizer dropped makes the app ask whom the words are for). `said` is what the app said last:
    /// its own speech heard back is nothing.
    pub(crate) async fn decide(
        &self,
        text: &str,
        (plain, sound): (Option<&str>, Option<spoken::Sound>),
        shown: Option<&str>,
        sessions: &[SessionInfo],
        said: Option<&str>,
    ) -> Result<(Heard, Act), HubError> {
        let names: Vec<&str> = sessions.iter().map(|s| s.session_id.as_str()).collect();
        let heard = spoken::clean(text);
        if said.is_some_and(|said| spoken::is_echo(&heard, said)) {
            let nothing = Heard {
                heard,
                say: String::new(),
                done: Done::Nothing,
            };
            return Ok((nothing, Act::None));
        }
        let mut understood = spoken::understand_both(text, plain, &names);
        let to_shown = matches!(understood, Understood::ToShown { .. });
        if to_shown && sound.is_some_and(|s| spoken::dropped_name(text, &s)) {
            // A name said first that the recognizer dropped: asked whom, sent nowhere.
            understood = Understood::Which {
                heard: String::new(),
                agents: Vec::new(),
            };
        }
        let reply = |say: String, done: Done| Heard {
            heard: heard.clone(),
            say,
            done,
        };
        if let Some((info, request)) = open_request(sessions, shown) {
            match &understood {
                Understood::ToShown { text } => {
                    return Ok(answer(info, request, text, reply));
                }
                Understood::Query(Query::Skip) => {
                    return Ok((reply(String::new(), Done::Skip), Act::None));
                }
                Understood::Nothing
                | Understood::Query(_)
                | Understood::ToAgent { .. }
                | Understood::Which { .. } => {}
            }
        }
        let (say, done, act) = match understood {
            Understood::Query(q) => self.query(q, shown, sessions).await?,
            other @ (Understood::Nothing
            | Understood::ToAgent { .. }
            | Understood::ToShown { .. }
            | Understood::Which { .. }) => for_agent(other, shown, sessions),
        };
        Ok((reply(say, done), act))
    }

    /// An approval heard from speech, checked (`core::spoken::confirmed`) against the `plain` words of the
    /// same speech and its `sound` (length, runs of speech): one that does not stand is asked again, and
    /// approves nothing.
    pub(crate) fn check(
        heard: Heard,
        act: Act,
        sessions: &[SessionInfo],
        plain: Option<&str>,
        sound: Option<spoken::Sound>,
    ) -> (Heard, Act) {
        let Act::Answer(answer) = &act else {
            return (heard, act);
        };
        if !Self::approves(&act) || spoken::confirmed(&heard.heard, plain, sound) {
            return (heard, act);
        }
        let info = sessions.iter().find(|s| s.session_id == answer.session_id);
        let asked = info.and_then(say::need).unwrap_or_default();
        let reply = |say: String, done: Done| Heard {
            heard: heard.heard.clone(),
            say,
            done,
        };
        let why = "That was not clearly an answer.";
        asked_again(&answer.session_id, &asked, why, reply)
    }

    /// Whether `text` (as heard with the prompt) names no agent clearly: words for the agent shown, or a
    /// name that is no agent's. The plain hearing of the same speech is then asked too.
    pub(crate) fn names_nobody(text: &str, sessions: &[SessionInfo]) -> bool {
        let names: Vec<&str> = sessions.iter().map(|s| s.session_id.as_str()).collect();
        matches!(
            spoken::understand(text, &names),
            Understood::ToShown { .. } | Understood::Which { .. }
        )
    }

    /// Whether an act approves a request (an approval heard from speech is checked first).
    pub(crate) fn approves(act: &Act) -> bool {
        matches!(act, Act::Answer(a) if matches!(a.decision, Verdict::Allow | Verdict::AllowAlways))
    }

    /// The words the recognizer should expect (its prompt): the agents' names, and while a request is open
    /// its answers (every one alike, so that none is favoured) with the words that undo one, a dangerous
    /// command's phrase, a question's options.
    pub(crate) fn expected(sessions: &[SessionInfo], shown: Option<&str>) -> String {
        let names: Vec<&str> = sessions.iter().map(|s| s.session_id.as_str()).collect();
        let mut expected = format!("{}.", names.join(", "));
        if let Some((info, request)) = open_request(sessions, shown) {
            match say::question(request).filter(|_| say::asks_a_question(info)) {
                Some((_, labels)) => expected.push_str(&format!(" {}.", labels.join(". "))),
                None => {
                    // Negations too: a prompt of answers alone made "allow... no, deny" "Allow."
                    expected
                        .push_str(" Allow. Always allow. Deny. Skip. No. Wait. Don't. Not. But.");
                    if let Some(d) = spoken::danger(&request.tool_name, &request.tool_input) {
                        expected.push_str(&format!(" {}.", d.phrase()));
                    }
                }
            }
        }
        expected
    }
}

/// What words for an agent (or none, or for a name heard alike) mean: what to say, and to do.
fn for_agent(
    understood: Understood,
    shown: Option<&str>,
    sessions: &[SessionInfo],
) -> (String, Done, Act) {
    match understood {
        Understood::Nothing => (String::new(), Done::Nothing, Act::None),
        Understood::Query(_) => (String::new(), Done::Said, Act::None),
        Understood::ToAgent { agent, text } if text.is_empty() => {
            let info = sessions.iter().find(|s| s.session_id == agent);
            let say = info.map(say::doing).unwrap_or_default();
            (say, Done::Show { session_id: agent }, Act::None)
        }
        Understood::ToAgent { agent, text } => (
            format!("To {agent}."),
            Done::Said,
            Act::Send { agent, text },
        ),
        Understood::ToShown { text } => match shown {
            Some(agent) => (
                String::new(),
                Done::Said,
                Act::Send {
                    agent: agent.to_owned(),
                    text,
                },
            ),
            None => (
                "Who is it for? Say an agent's name first.".to_owned(),
                Done::Said,
                Act::None,
            ),
        },
        Understood::Which { heard, agents } if heard.is_empty() => (
            "Who is it for? Say the agent's name first.".to_owned(),
            Done::Which { agents },
            Act::None,
        ),
        Understood::Which { heard, agents } if agents.is_empty() => {
            let names: Vec<&str> = sessions.iter().map(|s| s.session_id.as_str()).collect();
            (
                format!(
                    "No agent is called \"{heard}\". Say one of {}.",
                    names.join(", ")
                ),
                Done::Which { agents },
                Act::None,
            )
        }
        Understood::Which { heard, agents } => (
            format!(
                "\"{heard}\" sounds like {}. Say the name again.",
                agents.join(", or ")
            ),
            Done::Which { agents },
            Act::None,
        ),
    }
}

/// The agents that need the user (`AgentStatus::needs_user`, as the tray's badge, the notices and the
/// pushes count them), the longest waiting first.
fn needing(sessions: &[SessionInfo]) -> Vec<&SessionInfo> {
    longest_first(sessions.iter().filter(|s| s.status().needs_user()))
}

/// The agents with news for the user that need nothing of them: held at the usage limit, or finished with
/// an answer unread; the longest waiting first.
fn with_news(sessions: &[SessionInfo]) -> Vec<&SessionInfo> {
    longest_first(
        sessions
            .iter()
            .filter(|s| !s.status().needs_user() && say::need(s).is_some()),
    )
}

/// Where "next" goes: the agents that need the user, then those with news.
fn waiting(sessions: &[SessionInfo]) -> Vec<&SessionInfo> {
    let mut w = needing(sessions);
    w.extend(with_news(sessions));
    w
}

fn longest_first<'s>(agents: impl Iterator<Item = &'s SessionInfo>) -> Vec<&'s SessionInfo> {
    let mut w: Vec<&SessionInfo> = agents.collect();
    w.sort_by_key(|s| s.needs.as_ref().map_or(s.since, |n| n.attention.since));
    w
}

/// The request an answer is for: the shown agent's, else the one open longest.
fn open_request<'s>(
    sessions: &'s [SessionInfo],
    shown: Option<&str>,
) -> Option<(&'s SessionInfo, &'s Request)> {
    let with_request = |s: &'s SessionInfo| {
        s.needs
            .as_ref()
            .and_then(|n| n.request.as_ref())
            .map(|r| (s, r))
    };
    sessions
        .iter()
        .filter(|s| Some(s.session_id.as_str()) == shown)
        .find_map(with_request)
        .or_else(|| {
            sessions
                .iter()
                .filter_map(with_request)
                .min_by_key(|(s, _)| s.needs.as_ref().map(|n| n.attention.since))
        })
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_board;
#[cfg(test)]
mod tests_whom;
