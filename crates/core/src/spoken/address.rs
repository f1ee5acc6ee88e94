//! A name said that is no agent's, and how names sound.
//!
//! Words meant for one agent must never reach another: "Wren, stop the build", heard "Ren, stop the build",
//! is not for the agent on screen. So a name said (the first word, set apart by the recognizer's comma;
//! who is told or asked in "tell X to ..."; who "what is X doing?" asks about) that is no agent's makes the
//! app ask, naming the agents it sounds near, instead of sending the words anywhere.
//! A name the recognizer dropped is found in the audio instead: a short run of speech set apart at the
//! start that the words heard do not hold ([`dropped_name`]). (An utterance heard twice, with the
//! recognizer's prompt and without, is decided by `spoken::understand_both`.)

use super::approval::Sound;

/// Words said on their own before a sentence, set apart as a name is ("Okay, run it").
const INTERJECTIONS: &[&str] = &[
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

/// Other first words that are no name: pronouns, articles, question words.
const NOT_NAMES: &[&str] = &[
    "it", "this", "that", "he", "she", "they", "we", "you", "i", "the", "a", "an", "there", "here",
    "what", "why", "how", "when", "where", "who", "if",
];

/// Whether `word` may be a name said on its own.
fn may_be_a_name(word: &str) -> bool {
    !INTERJECTIONS.contains(&word) && !NOT_NAMES.contains(&word)
}

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
    if !may_be_a_name(first) || said.len() <= lead + 1 {
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

/// The longest first run of speech taken for a name said first ("Wren," or "Rain," said apart).
const OPENING_AT_MOST: f32 = 0.7;

/// Whether the audio opens with a short run of speech apart from the rest (a name said first: "Wren,
/// stop the build.") that the words heard do not hold: their first clause is two words or more, and does
/// not begin with an interjection the short run could be. The recognizer dropped a name, then (it drops
/// what it cannot make out): the words are for someone, not surely the agent shown.
pub fn dropped_name(text: &str, sound: &Sound) -> bool {
    if sound.runs < 2 || sound.opening <= 0.0 || sound.opening > OPENING_AT_MOST {
        return false;
    }
    let clause = text
        .split([',', '.', '?', '!', ';', ':'])
        .find(|c| !super::words(c).is_empty());
    let Some(clause) = clause else {
        return false;
    };
    let said = super::words(clause);
    said.len() >= 2 && !INTERJECTIONS.contains(&said[0].as_str())
}

/// The agents whose one-word name sounds within a letter of `heard` ("ren" and `wren`).
pub(super) fn near(heard: &str, names: &[&str]) -> Vec<String> {
    let heard = sound(heard);
    names
        .iter()
        .filter(|name| {
            let words = super::words(name);
            words.len() == 1
                && !heard.is_empty()
                && super::within_one_edit(&heard, &sound(&words[0]))
        })
        .map(|name| (*name).to_owned())
        .collect()
}

/// How a word sounds, roughly: spellings of one sound made one (`skye` and `sky`, `kat` and `cat`),
/// doubled letters and a silent final `e` dropped, and small numbers as digits.
pub(super) fn sound(word: &str) -> String {
    let number = match word {
        "zero" => "0",
        "one" | "won" => "1",
        "two" | "too" => "2",
        "three" => "3",
        "four" => "4",
        "five" => "5",
        "six" => "6",
        "seven" => "7",
        "eight" | "ate" => "8",
        "nine" => "9",
        "ten" => "10",
        _ => "",
    };
    if !number.is_empty() {
        return number.to_owned();
    }
    let mut w = word.to_lowercase();
    // A silent first letter: "wren" is said "ren", "knox" "nox".
    for silent in ["wr", "kn", "gn", "ps"] {
        if w.starts_with(silent) && w.len() > 2 {
            w.remove(0);
        }
    }
    for (from, to) in [
        ("ph", "f"),
        ("ck", "k"),
        ("qu", "kw"),
        ("x", "ks"),
        ("c", "k"),
        ("z", "s"),
        ("y", "i"),
        ("ee", "i"),
        ("ea", "i"),
        ("ie", "i"),
        ("oo", "u"),
        ("gh", ""),
        ("wh", "w"),
    ] {
        w = w.replace(from, to);
    }
    if w.len() > 2 && w.ends_with('e') {
        w.pop();
    }
    let mut out = String::with_capacity(w.len());
    for c in w.chars() {
        if !out.ends_with(c) {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const AGENTS: &[&str] = &["rain", "wren", "sky"];

    #[test]
    fn a_name_the_recognizer_dropped_is_found_in_the_audio() {
        // "Wren, run the tests." heard "Run the tests. Run the tests." (tiny.en), its audio two runs.
        let named = Sound {
            seconds: 1.4,
            runs: 2,
            opening: 0.35,
        };
        assert!(dropped_name("Run the tests. Run the tests.", &named));
        assert!(dropped_name("for men run the tests.", &named));
        assert!(dropped_name("The wheel.", &named));
        assert!(dropped_name("What can change in the power sir?", &named));
        // The short run is in the words: an interjection, or a word of its own.
        assert!(!dropped_name("Okay, run the tests.", &named));
        assert!(!dropped_name("Okay so run the tests.", &named));
        assert!(!dropped_name("Stop, the build is broken.", &named));
        // One run, or a long first one: nothing set apart.
        let one = Sound {
            seconds: 1.4,
            runs: 1,
            opening: 0.0,
        };
        assert!(!dropped_name("Run the tests.", &one));
        let long = Sound {
            opening: 1.1,
            ..named
        };
        assert!(!dropped_name("Run the tests and tell me.", &long));
    }

    #[test]
    fn near_is_a_letter_off_by_sound() {
        assert_eq!(near("rem", AGENTS), ["wren"]);
        assert_eq!(sound("Skye"), sound("sky"));
        assert_eq!(sound("Ren"), sound("wren"));
        assert_eq!(
            unknown_name("Ren, stop.", &["ren".into(), "stop".into()], 0, false),
            Some("ren".into())
        );
        assert_eq!(
            unknown_name("Okay, stop.", &["okay".into(), "stop".into()], 0, false),
            None
        );
        assert_eq!(near("rein", AGENTS), ["rain", "wren"]);
        assert!(near("kai", AGENTS).is_empty());
    }
}
