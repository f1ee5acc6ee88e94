//! What the user says to the app hands-free, understood without a model: the words of an utterance as
//! speech to text gave them (cleaned of what the recognizer makes up), who they are for, a question the
//! app answers itself, and an answer to an open request judged by a closed grammar.
//!
//! Pure functions over text, so every rule is unit-tested with the phrases that must and must not pass;
//! the hub's `hands_free` feature applies them to its agents and requests. A mishearing fails safe: what is
//! not clearly an approval is asked again, never taken as one.

pub mod address;
pub use address::dropped_name;
pub mod approval;
pub mod board;
pub mod echo;
pub mod intent;
pub mod prose;

pub use approval::{confirmed, danger, judge, Danger, Judged, Sound};
pub use board::TaskRef;
pub use echo::is_echo;
pub use intent::{understand, Query, Understood};
pub use prose::Spoken;

/// The words of an utterance: lower case, letters and digits (an apostrophe dropped, so "don't" is
/// `dont`), everything else a separator.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}'))
        .map(|w| {
            w.chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .collect::<String>()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// What an utterance heard twice means: with the prompt (`prompted`), and, where that names nobody
/// clearly, without it (`plain`) when that names an agent. The recognizer's prompt (the agents' names,
/// the answers) helps short answers and hurts sentences: "Rain, run the tests" under noise was heard "way
/// in front the fps" with it and "rain run the test" without.
pub fn understand_both(prompted: &str, plain: Option<&str>, names: &[&str]) -> Understood {
    let first = understand(prompted, names);
    let Some(plain) = plain else {
        return first;
    };
    match first {
        Understood::ToShown { .. } | Understood::Which { .. } | Understood::Nothing => {
            let asked = matches!(first, Understood::Which { .. });
            match understand(plain, names) {
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

/// Whether `a` and `b` differ by at most one letter added, dropped or changed.
fn within_one_edit(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if long.len() - short.len() > 1 {
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

/// What the recognizer heard, without what it makes up: bracketed non-speech (`[BLANK_AUDIO]`, `(music)`,
/// `*coughs*`) removed, and a phrase it repeated over and over (a known failure of small models on short
/// or noisy clips: "maybe a loud traitor, maybe a loud traitor, ...") kept once.
pub fn clean(text: &str) -> String {
    let mut kept = String::with_capacity(text.len());
    let mut closing = None;
    for c in text.chars() {
        match (closing, c) {
            (None, '[') => closing = Some(']'),
            (None, '(') => closing = Some(')'),
            (None, '*') => closing = Some('*'),
            (Some(close), c) if c == close => closing = None,
            (Some(_), _) => {}
            (None, c) => kept.push(c),
        }
    }
    let kept = kept.split_whitespace().collect::<Vec<_>>().join(" ");
    once(&kept)
}

/// The longest phrase, in words, looked for as a recognizer's loop: its loops repeat a few words, and
/// looking further would cost time quadratic in the text.
const LOOP_AT_MOST: usize = 64;

/// `text` with a phrase said three times or more in a row kept once (twice may be meant: "no, no"), and
/// an utterance that is one phrase over and over kept once however often.
fn once(text: &str) -> String {
    if let Some(phrase) = whole_repeat(text) {
        return phrase;
    }
    let tokens: Vec<&str> = text.split(' ').filter(|t| !t.is_empty()).collect();
    // Each token's words, once: the phrases are compared by them.
    let keys: Vec<String> = tokens.iter().map(|t| words(t).join(" ")).collect();
    let mut out: Vec<&str> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        match repeated(&keys[i..]) {
            Some((len, repeats)) => {
                out.extend(&tokens[i..i + len]);
                i += repeats * len;
            }
            None => {
                out.push(tokens[i]);
                i += 1;
            }
        }
    }
    let joined = out.join(" ");
    // The phrase kept once may end on the comma that joined the repeats.
    joined.trim_end_matches([',', ';']).trim().to_owned()
}

/// The shortest phrase `keys` begin with that is said three times or more in a row: its length in
/// tokens, and how often it is said.
fn repeated(keys: &[String]) -> Option<(usize, usize)> {
    (1..=(keys.len() / 3).min(LOOP_AT_MOST)).find_map(|len| {
        let phrase = &keys[..len];
        // The phrase, then as many copies of it as follow.
        let repeats = 1 + keys[len..]
            .chunks_exact(len)
            .take_while(|chunk| *chunk == phrase)
            .count();
        (repeats >= 3 && phrase.iter().any(|w| !w.is_empty())).then_some((len, repeats))
    })
}

/// The phrase `text` is, said two times or more and nothing else (the last time maybe cut short: a
/// recognizer stopped at its limit of words).
fn whole_repeat(text: &str) -> Option<String> {
    let tokens: Vec<&str> = text.split(' ').filter(|t| !t.is_empty()).collect();
    let said = words(text);
    (1..=said.len() / 2)
        .find(|len| {
            said[*len..]
                .chunks(*len)
                .all(|c| said[..*len].starts_with(c))
        })
        .and_then(|len| {
            // The phrase as first said: as many tokens as hold its words.
            let mut seen = 0;
            let end = tokens.iter().position(|t| {
                seen += words(t).len();
                seen >= len
            })?;
            Some(
                tokens[..=end]
                    .join(" ")
                    .trim_end_matches([',', ';'])
                    .to_owned(),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_lower_case_and_contractions_one_word() {
        assert_eq!(
            words("Okay, wait — don't run that!"),
            ["okay", "wait", "dont", "run", "that"]
        );
        assert_eq!(words("  ...  "), Vec::<String>::new());
    }

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
            understand("REM, STOP THE BEAL", AGENTS),
            which("rem", &["wren"])
        );
        // Said as it sounds: the name.
        assert!(matches!(
            understand("REN, STOP THE BEAL", AGENTS),
            Understood::ToAgent { .. }
        ));
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
            understand_both("REM, STOP THE BEAL", Some("Wren, stop the build."), AGENTS),
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
            understand_both("run the build", Some("Rem, run the build"), AGENTS),
            which("rem", &["wren"])
        );
    }

    #[test]
    fn what_the_recognizer_makes_up_is_dropped() {
        assert_eq!(
            clean("maybe a loud traitor, maybe a loud traitor, maybe a loud traitor, maybe a loud traitor,"),
            "maybe a loud traitor"
        );
        assert_eq!(clean("[BLANK_AUDIO]"), "");
        assert_eq!(clean("(music) Who needs me?"), "Who needs me?");
        assert_eq!(clean("allow allow allow allow"), "allow");
        assert_eq!(clean("Allow git push. Allow git push."), "Allow git push.");
        assert_eq!(clean("Always allow. Always allow. Always"), "Always allow.");
        assert_eq!(clean("Did I? Did I? Did"), "Did I?");
        assert_eq!(
            clean("- Don't allow it. - Don't allow it."),
            "- Don't allow it."
        );
        // Said twice within more is kept: it may be meant.
        assert_eq!(clean("No, no. Deny."), "No, no. Deny.");
        assert_eq!(clean("sky, run the tests"), "sky, run the tests");
    }
}
