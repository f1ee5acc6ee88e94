//! Who an utterance is for, and the questions the app answers itself.
//!
//! - A question said whole ("who needs me?", "what is sky doing?", "read that again", "more", "stop",
//!   "skip", "next") is the app's to answer from what the hub knows: no model is asked.
//! - An utterance that begins with an agent's name ("sky, run the tests", "tell sky to run the tests")
//!   goes to that agent; anything else to the agent shown.
//! - The shared board: "what is open?", "give the docs task to rain" (`board.rs`).
//! - Names are compared by how they sound, since the recognizer spells what it hears ("Skye" for `sky`):
//!   a name heard that sounds like two agents' is not guessed, the user is asked which; a name said that
//!   is no agent's is asked about too (`address.rs`), never taken for the agent shown.

use super::address::{near, sound, unknown_name};
use super::board::{board, AboutBoard, TaskRef};
use super::{clean, words};

/// A question the app answers from the hub's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// Which agents need the user, and for what.
    WhoNeedsMe,
    /// What an agent does now.
    WhatIsDoing(String),
    /// Say the last answer again.
    ReadAgain,
    /// The rest of the last answer.
    More,
    /// Stop speaking.
    Stop,
    /// Leave this announcement.
    Skip,
    /// The next agent that needs the user.
    Next,
    /// What is on the shared board: the open items, and who has the others.
    Board,
    /// Give an item of the board to an agent, as the window's give does.
    GiveTask {
        /// The item, as it was named.
        task: TaskRef,
        /// The agent.
        agent: String,
    },
}

/// What an utterance is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Understood {
    /// Nothing was said.
    Nothing,
    /// A question for the app.
    Query(Query),
    /// Words for an agent named at the start (its name taken off).
    ToAgent {
        /// The agent.
        agent: String,
        /// The words, as heard.
        text: String,
    },
    /// Words for the agent shown.
    ToShown {
        /// The words, as heard.
        text: String,
    },
    /// A name was heard that sounds like more than one agent's: ask which.
    Which {
        /// What was heard.
        heard: String,
        /// The agents it may be.
        agents: Vec<String>,
    },
}

/// Understands `text` (as heard) among the agents `names`.
pub fn understand(text: &str, names: &[&str]) -> Understood {
    let text = clean(text);
    let said = words(&text);
    if said.is_empty() {
        return Understood::Nothing;
    }
    if let Some(query) = query(&said, names) {
        return query;
    }
    // "hey sky, ...", "tell sky to ...", "ask sky to ...", and a word the recognizer put before the name
    // ("for rain, ..." where "rain, ..." was said).
    let (lead, verb) = match said.first().map(String::as_str) {
        Some("hey" | "ok" | "okay" | "so" | "and" | "oh" | "um" | "uh" | "well" | "for") => {
            (1, false)
        }
        Some("tell" | "ask") => (1, true),
        _ => (0, false),
    };
    let Some((agents, used)) = named(&said[lead..], names) else {
        return match unknown_name(&text, &said, lead, verb) {
            Some(heard) => Understood::Which {
                agents: near(&heard, names),
                heard,
            },
            None => Understood::ToShown { text },
        };
    };
    if agents.len() > 1 {
        return Understood::Which {
            heard: said[lead..lead + used].join(" "),
            agents,
        };
    }
    let mut skip = lead + used;
    if verb && said.get(skip).is_some_and(|w| w == "to") {
        skip += 1;
    }
    Understood::ToAgent {
        agent: agents.into_iter().next().unwrap_or_default(),
        text: after_words(&text, skip),
    }
}

/// A question said whole.
fn query(said: &[String], names: &[&str]) -> Option<Understood> {
    let s: Vec<&str> = said.iter().map(String::as_str).collect();
    if let Some(about) = board(&s) {
        return on_board(about, names);
    }
    let q = match s.as_slice() {
        ["who", "needs", "me" | "attention" | "help"]
        | ["who", "needs", "me", "now"]
        | ["whos", "waiting" | "blocked"]
        | ["who", "is", "waiting" | "blocked"]
        | ["anyone", "need", "me"]
        | ["does", "anyone", "need", "me"] => Query::WhoNeedsMe,
        ["read", "that", "again"]
        | ["say", "that", "again"]
        | ["repeat" | "again"]
        | ["repeat", "that"] => Query::ReadAgain,
        ["more"] | ["say", "more"] | ["tell", "me", "more"] | ["go", "on"] | ["read", "more"] => {
            Query::More
        }
        ["stop"]
        | ["quiet"]
        | ["be", "quiet"]
        | ["shh" | "shush" | "silence"]
        | ["stop", "talking"] => Query::Stop,
        ["skip"] => Query::Skip,
        ["next"] | ["next", "one"] => Query::Next,
        ["what", "is", who @ .., "doing"]
        | ["whats", who @ .., "doing"]
        | ["what", "is", who @ .., "up", "to"]
        | ["whats", who @ .., "up", "to"]
        | ["status", "of", who @ ..]
        | ["how", "is", who @ .., "doing"]
        | ["hows", who @ .., "doing"] => {
            let who: Vec<String> = who.iter().map(|w| (*w).to_owned()).collect();
            return match named(&who, names) {
                Some((agents, used)) if used == who.len() && agents.len() == 1 => {
                    Some(Understood::Query(Query::WhatIsDoing(agents[0].clone())))
                }
                Some((agents, _)) if agents.len() > 1 => Some(Understood::Which {
                    heard: who.join(" "),
                    agents,
                }),
                // One word that is no agent's name ("what is Kai doing?"): asked about.
                _ if who.len() == 1 && !["it", "this", "that", "everyone"].contains(&s[2]) => {
                    Some(Understood::Which {
                        agents: near(&who[0], names),
                        heard: who[0].clone(),
                    })
                }
                _ => None,
            };
        }
        _ => return None,
    };
    Some(Understood::Query(q))
}

/// A question or a give about the board: a give's words after "to" must be one agent's name, a name heard
/// alike is asked about, and one word that is no agent's name too (never guessed); more words that name
/// nobody are no give.
fn on_board(about: AboutBoard<'_>, names: &[&str]) -> Option<Understood> {
    let (task, to) = match about {
        AboutBoard::Read => return Some(Understood::Query(Query::Board)),
        AboutBoard::Give { task, to } => (task, to),
    };
    let who: Vec<String> = to.iter().map(|w| (*w).to_owned()).collect();
    match named(&who, names) {
        Some((mut agents, used)) if used == who.len() && agents.len() == 1 => {
            Some(Understood::Query(Query::GiveTask {
                task,
                agent: agents.remove(0),
            }))
        }
        Some((agents, used)) if used == who.len() => Some(Understood::Which {
            heard: who.join(" "),
            agents,
        }),
        Some(_) | None if who.len() == 1 => Some(Understood::Which {
            agents: near(&who[0], names),
            heard: who[0].clone(),
        }),
        Some(_) | None => None,
    }
}

/// The agents whose name the words begin with, by sound, and how many words the name took; `None` when
/// no agent's does.
pub(super) fn named(said: &[String], names: &[&str]) -> Option<(Vec<String>, usize)> {
    let mut found: Vec<(String, usize)> = Vec::new();
    for name in names {
        let name_words = words(name);
        let n = name_words.len();
        if n == 0 || said.len() < n {
            continue;
        }
        let heard: Vec<String> = said[..n].iter().map(|w| sound(w)).collect();
        let own: Vec<String> = name_words.iter().map(|w| sound(w)).collect();
        if heard == own {
            found.push(((*name).to_owned(), n));
        }
    }
    let used = found.iter().map(|(_, n)| *n).max()?;
    Some((found.into_iter().map(|(name, _)| name).collect(), used))
}

/// `text` after its first `n` words (and the punctuation that followed them).
fn after_words(text: &str, n: usize) -> String {
    let mut seen = 0;
    let mut in_word = false;
    for (i, c) in text.char_indices() {
        let part_of_word = c.is_alphanumeric() || c == '\'' || c == '\u{2019}';
        if part_of_word && !in_word {
            if seen == n {
                return text[i..].trim().to_owned();
            }
            seen += 1;
        }
        in_word = part_of_word;
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    const AGENTS: &[&str] = &["sky", "rain", "api-server", "agent-2"];

    fn to(agent: &str, text: &str) -> Understood {
        Understood::ToAgent {
            agent: agent.into(),
            text: text.into(),
        }
    }

    #[test]
    fn an_utterance_that_begins_with_a_name_goes_to_that_agent() {
        assert_eq!(
            understand("Sky, run the tests.", AGENTS),
            to("sky", "run the tests.")
        );
        assert_eq!(
            understand("Skye, run the tests.", AGENTS),
            to("sky", "run the tests.")
        );
        assert_eq!(
            understand("tell rain to commit", AGENTS),
            to("rain", "commit")
        );
        assert_eq!(
            understand("Hey, Rain. Commit.", AGENTS),
            to("rain", "Commit.")
        );
        assert_eq!(
            understand("API server, restart it", AGENTS),
            to("api-server", "restart it")
        );
        assert_eq!(understand("agent two, stop", AGENTS), to("agent-2", "stop"));
        assert_eq!(
            understand("run the tests", AGENTS),
            Understood::ToShown {
                text: "run the tests".into()
            }
        );
        // "rainbow" is not "rain".
        assert!(matches!(
            understand("rainbow colours please", AGENTS),
            Understood::ToShown { .. }
        ));
    }

    #[test]
    fn names_that_sound_alike_are_asked_about_never_guessed() {
        let alike = ["sky", "skye", "rain"];
        assert_eq!(
            understand("Sky, push it", &alike),
            Understood::Which {
                heard: "sky".into(),
                agents: vec!["sky".into(), "skye".into()]
            }
        );
        assert!(matches!(
            understand("what is sky doing?", &alike),
            Understood::Which { .. }
        ));
    }

    #[test]
    fn the_apps_questions_are_understood_only_said_whole() {
        let q = |t: &str| understand(t, AGENTS);
        assert_eq!(q("Who needs me?"), Understood::Query(Query::WhoNeedsMe));
        assert_eq!(
            q("What is Sky doing?"),
            Understood::Query(Query::WhatIsDoing("sky".into()))
        );
        assert_eq!(
            q("What's rain up to?"),
            Understood::Query(Query::WhatIsDoing("rain".into()))
        );
        assert_eq!(q("Read that again."), Understood::Query(Query::ReadAgain));
        assert_eq!(q("More."), Understood::Query(Query::More));
        assert_eq!(q("Stop!"), Understood::Query(Query::Stop));
        assert_eq!(q("skip"), Understood::Query(Query::Skip));
        assert_eq!(q("Next."), Understood::Query(Query::Next));
        // Said within more words, they are words for an agent.
        assert!(matches!(q("stop the server"), Understood::ToShown { .. }));
        assert!(matches!(q("sky, who needs me"), Understood::ToAgent { .. }));
        // An agent nobody has is no question.
        assert!(matches!(
            q("what is the build doing"),
            Understood::ToShown { .. }
        ));
        assert_eq!(q("[BLANK_AUDIO]"), Understood::Nothing);
    }

    #[test]
    fn the_board_is_read_and_given_to_one_agent_named_whole() {
        let q = |t: &str| understand(t, AGENTS);
        assert_eq!(q("What's open?"), Understood::Query(Query::Board));
        assert_eq!(
            q("Give the docs task to Rain."),
            Understood::Query(Query::GiveTask {
                task: TaskRef::Words(vec!["docs".into()]),
                agent: "rain".into()
            })
        );
        assert_eq!(
            q("Assign task 12 to API server"),
            Understood::Query(Query::GiveTask {
                task: TaskRef::Number(12),
                agent: "api-server".into()
            })
        );
        // A name that is no agent's is asked about; a give said to an agent is that agent's words.
        assert!(matches!(q("give task 4 to Kai"), Understood::Which { .. }));
        assert!(matches!(
            q("sky, give task 4 to rain"),
            Understood::ToAgent { .. }
        ));
        assert!(matches!(
            q("give the button a border to match"),
            Understood::ToShown { .. }
        ));
        assert!(matches!(
            q("sky, what is open in the editor"),
            Understood::ToAgent { .. }
        ));
    }
}
