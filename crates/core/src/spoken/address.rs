//! A name said that is no agent's, and an utterance heard twice.
//!
//! Words meant for one agent must never reach another: "Wren, stop the build", heard "Ren, stop the build",
//! is not for the agent on screen. So a name said (the first word, set apart by the recognizer's comma;
//! who is told or asked in "tell X to ..."; who "what is X doing?" asks about) that is no agent's makes the
//! app ask, naming the agents it sounds near, instead of sending the words anywhere.
//!
//! The recognizer's prompt (the agents' names, the answers) helps short answers and hurts sentences: "Rain,
//! run the tests" under noise was heard "way in front the fps" with it and "rain run the test" without.
//! So where the prompted hearing names nobody clearly, the plain one decides when it names an agent.

use super::intent::sound;
use super::Understood;

/// First words that are no name, set apart by a comma as a name is ("Okay, run it").
const NOT_NAMES: &[&str] = &[
    "okay",
    "ok",
    "yes",
    "yeah",
    "yep",
    "no",
    "nope",
    "so",
    "well",
    "now",
    "also",
    "then",
    "actually",
    "alright",
    "right",
    "please",
    "sure",
    "hmm",
    "um",
    "uh",
    "er",
    "oh",
    "hey",
    "hi",
    "hello",
    "thanks",
    "thank",
    "great",
    "good",
    "fine",
    "cool",
    "nice",
    "perfect",
    "excellent",
    "awesome",
    "wait",
    "first",
    "next",
    "later",
    "again",
    "anyway",
    "look",
    "listen",
    "and",
    "but",
    "or",
    "done",
    "sorry",
    "stop",
    "remember",
    "finally",
    "instead",
    "however",
    "otherwise",
    "meanwhile",
    "honestly",
    "careful",
    "correct",
    "exactly",
    "true",
    "wow",
    "guys",
    "everyone",
    "team",
    "today",
    "tomorrow",
    "quickly",
    "seriously",
    "basically",
    "ah",
    "hm",
    "mm",
    "huh",
    "it",
    "this",
    "that",
    "he",
    "she",
    "they",
    "we",
    "you",
    "i",
    "the",
    "a",
    "an",
    "there",
    "here",
    "what",
    "why",
    "how",
    "when",
    "where",
    "who",
    "if",
    // The answers to a request, and what undoes one.
    "allow",
    "always",
    "deny",
    "skip",
    "not",
    "dont",
    "never",
    "maybe",
    "cancel",
    "hold",
];

/// The name an utterance says that is no agent's, if it says one: who "tell X to ..." or "ask X to ..."
/// names (`verb`), else a first word set apart by a comma or a full stop from more words. `said` is
/// `text`'s words, `lead` how many lead-in words ("hey", "tell") come before the name.
pub(super) fn unknown_name(text: &str, said: &[String], lead: usize, verb: bool) -> Option<String> {
    if verb {
        // "tell X to ...": one or two words before "to".
        let to = said.iter().skip(lead).take(3).position(|w| w == "to")?;
        return (to > 0).then(|| said[lead..lead + to].join(" "));
    }
    let first = said.get(lead)?;
    if NOT_NAMES.contains(&first.as_str()) || said.len() <= lead + 1 {
        return None;
    }
    // The token that holds that word must end the clause: "Ren, stop ..." or "Ren. Stop ...".
    let token = text
        .split_whitespace()
        .find(|t| super::words(t).first() == Some(first))?;
    token
        .ends_with([',', '.', '!', ':', ';'])
        .then(|| first.clone())
}

/// The agents whose one-word name sounds within a letter of `heard` ("ren" and `wren`).
pub(super) fn near(heard: &str, names: &[&str]) -> Vec<String> {
    let heard = sound(heard);
    names
        .iter()
        .filter(|name| {
            let words = super::words(name);
            words.len() == 1 && within_one(&heard, &sound(&words[0]))
        })
        .map(|name| (*name).to_owned())
        .collect()
}

fn within_one(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if long.len() - short.len() > 1 || short.is_empty() {
        return false;
    }
    let Some(first) = short.iter().zip(long).position(|(x, y)| x != y) else {
        return true;
    };
    if short.len() == long.len() {
        short[first + 1..] == long[first + 1..]
    } else {
        short[first..] == long[first + 1..]
    }
}

/// What an utterance heard twice means: with the prompt (`prompted`), and, where that names nobody
/// clearly, without it (`plain`) when that names an agent.
pub fn understand_both(prompted: &str, plain: Option<&str>, names: &[&str]) -> Understood {
    let first = super::understand(prompted, names);
    let Some(plain) = plain else {
        return first;
    };
    match first {
        Understood::ToShown { .. } | Understood::Which { .. } | Understood::Nothing => {
            let asked = matches!(first, Understood::Which { .. });
            match super::understand(plain, names) {
                second @ Understood::ToAgent { .. } => second,
                // Nobody named in the prompted hearing, a name that is no agent's in the plain one: ask.
                second @ Understood::Which { .. } if !asked => second,
                Understood::Which { .. }
                | Understood::ToShown { .. }
                | Understood::Query(_)
                | Understood::Nothing => first,
            }
        }
        Understood::Query(_) | Understood::ToAgent { .. } => first,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spoken::understand;

    const AGENTS: &[&str] = &["rain", "wren", "sky"];

    fn which(heard: &str, agents: &[&str]) -> Understood {
        Understood::Which {
            heard: heard.into(),
            agents: agents.iter().map(|a| (*a).to_owned()).collect(),
        }
    }

    #[test]
    fn a_name_said_that_is_no_agents_is_asked_about_never_sent_to_the_agent_shown() {
        // As tiny.en heard "Wren, stop the build." and "What is sky doing?".
        assert_eq!(
            understand("REN, STOP THE BEAL", AGENTS),
            which("ren", &["wren"])
        );
        assert_eq!(understand("What is Kai doing?", AGENTS), which("kai", &[]));
        assert_eq!(
            understand("Tell Ray to check the build.", AGENTS),
            which("ray", &["rain"])
        );
        // Not a name: words for the agent shown, as before.
        for text in [
            "Okay, run the tests.",
            "Thanks, that's great.",
            "run the tests",
            "What is the build doing?",
            "Please, go on.",
            "Stop.",
        ] {
            let understood = understand(text, AGENTS);
            assert!(
                matches!(
                    understood,
                    Understood::ToShown { .. } | Understood::Query(_)
                ),
                "{text}: {understood:?}"
            );
        }
    }

    #[test]
    fn where_the_prompted_hearing_names_nobody_the_plain_one_decides() {
        let to_rain = Understood::ToAgent {
            agent: "rain".into(),
            text: "run the test".into(),
        };
        assert_eq!(
            understand_both("way in front the fps", Some("rain run the test"), AGENTS),
            to_rain
        );
        assert_eq!(
            understand_both("REN, STOP THE BEAL", Some("Wren, stop the build."), AGENTS),
            Understood::ToAgent {
                agent: "wren".into(),
                text: "stop the build.".into()
            }
        );
        // A name in neither: the words go to the agent shown, as typed ones would.
        assert!(matches!(
            understand_both("run the tests", Some("run the test"), AGENTS),
            Understood::ToShown { .. }
        ));
        // The prompted hearing named an agent clearly: it stands.
        assert_eq!(
            understand_both("Sky, run the tests.", Some("Skype run the test"), AGENTS),
            Understood::ToAgent {
                agent: "sky".into(),
                text: "run the tests.".into()
            }
        );
        // Nobody named in the prompted hearing, an unknown name in the plain one: asked.
        assert_eq!(
            understand_both("run the build", Some("Ren, run the build"), AGENTS),
            which("ren", &["wren"])
        );
    }

    #[test]
    fn near_is_a_letter_off_by_sound() {
        assert_eq!(near("ren", AGENTS), ["wren"]);
        assert_eq!(near("rein", AGENTS), ["rain"]);
        assert!(near("kai", AGENTS).is_empty());
    }
}
