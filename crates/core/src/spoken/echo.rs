//! The app's own speech heard back through the speakers, told from the user's.
//!
//! A recognizer spells the app's sentences back its own way: a path is heard as "slash temp slash
//! clawmux", a name as a near word ("Kai" for sky), punctuation as words ("greater than"). So what the
//! app said is first put as a speech engine says it (the names of the symbols it reads out added), and
//! the words heard are compared with it loosely (a letter off counts as the same word). Heard back, the
//! app's speech is then mostly its words, or holds a run of four of them in its order, or half of what it
//! said in its order: a user repeats neither a question's frame ("asks to run ... allow, or deny") nor a
//! path.

use super::{clean, words};

/// Whether `heard` is the app's own speech (`said`) heard back rather than the user: three words or more,
/// and three in five of them the app's, or four of them in a row as the app said them, or half of the
/// app's words (three at least) in its order. A short answer ("allow") is never taken for an echo: the
/// grammar judges it.
pub fn is_echo(heard: &str, said: &str) -> bool {
    let heard = words(&clean(heard));
    let said = spoken_words(said);
    if heard.len() < 3 || said.is_empty() {
        return false;
    }
    let own = heard
        .iter()
        .filter(|w| said.iter().any(|s| alike(w, s)))
        .count();
    own * 10 >= heard.len() * 6
        || shares_a_run(&heard, &said, RUN)
        || in_order(&heard, &said) * 2 >= said.len().max(6)
}

/// How many words of `heard` stand in `said` in the same order (the longest common subsequence, words
/// alike): a question heard back keeps its frame ("asks to write ... or deny") around what it garbles.
fn in_order(heard: &[String], said: &[String]) -> usize {
    // Bounded work: the first words heard against the app's last words said.
    let heard = &heard[..heard.len().min(200)];
    let said = &said[said.len().saturating_sub(2_000)..];
    let mut row = vec![0usize; said.len() + 1];
    for h in heard {
        let mut diagonal = 0;
        for (j, s) in said.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if alike(h, s) {
                diagonal + 1
            } else {
                above.max(row[j])
            };
            diagonal = above;
        }
    }
    row[said.len()]
}

/// How many of the app's words in a row, heard in its order, make an echo.
const RUN: usize = 4;

/// The words a speech engine says for `text`: its words, with the names of the symbols it reads out
/// where they stand ("/tmp/a.txt" is "slash tmp slash a dot txt").
fn spoken_words(text: &str) -> Vec<String> {
    let mut spaced = String::with_capacity(text.len() * 2);
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        // A dot or a dash inside a word is read out ("a.txt", "clawmux-h3"); at a sentence's end, not.
        let inside = i > 0
            && chars[i - 1].is_alphanumeric()
            && chars.get(i + 1).is_some_and(|n| n.is_alphanumeric());
        let name = match c {
            '.' if inside => Some("dot"),
            '-' if inside => Some("dash"),
            _ => symbol_name(c),
        };
        match name {
            Some(name) => {
                spaced.push(' ');
                spaced.push_str(name);
                spaced.push(' ');
            }
            None => spaced.push(c),
        }
    }
    words(&spaced)
}

/// What a speech engine says for a symbol inside a command or a path.
fn symbol_name(c: char) -> Option<&'static str> {
    Some(match c {
        '/' => "slash",
        '>' => "greater than",
        '<' => "less than",
        '|' => "bar pipe",
        '&' => "and",
        '_' => "underscore",
        '~' => "tilde",
        '=' => "equals",
        '*' => "star asterisk",
        '@' => "at",
        '#' => "hash",
        '$' => "dollar",
        '%' => "percent",
        '+' => "plus",
        _ => return None,
    })
}

/// The same word as a recognizer may spell it: equal, or, for words of four letters or more, one letter
/// added, dropped or changed.
fn alike(a: &str, b: &str) -> bool {
    a == b || (a.len().min(b.len()) >= 4 && super::within_one_edit(a, b))
}

/// Whether `run` words of `heard` in a row stand in `said` in the same order, one after another.
fn shares_a_run(heard: &[String], said: &[String], run: usize) -> bool {
    heard.windows(run).any(|h| {
        said.windows(run)
            .any(|s| h.iter().zip(s).all(|(a, b)| alike(a, b)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_apps_own_speech_heard_back_is_told_from_the_user() {
        let said = "sky asks to run npm test. Allow, or deny?";
        assert!(is_echo(
            "Sky asks to run and PM test. Allow. Organize.",
            said
        ));
        assert!(is_echo("allow or deny", said));
        assert!(!is_echo("Allow.", said));
        assert!(!is_echo("Rain, run the tests please.", said));
        assert!(!is_echo("who needs me", ""));
    }

    #[test]
    fn a_question_that_names_a_path_is_its_own_however_it_is_spelled_back() {
        let said = "sky asks to run echo held out > /tmp/clawmux-h3/harmless.txt. Allow, or deny?";
        // As a small recognizer hears it: the path spelled out, words a letter off, the frame kept.
        for heard in [
            "Sky asks to run Echo held out greater than slash TMP slash clawmux dash H3 slash harmless dot TXT. Allow, or deny?",
            "Kai asks to run echo held out, greater than slash temp slash claw mocks. Allow or deny.",
            "Skye asks to run echo, held out greater than slash.",
            "asks to run echo held out greater than slash tmp",
            "Sky asks to run echo health out, /dmb/lormaxh3/harmless.txt, allow, or deny.",
        ] {
            assert!(is_echo(heard, said), "{heard}");
        }
        // Heard by tiny.en from espeak-ng's speech of a short question: its frame kept around a garble.
        let said = "rain asks to write notes.md. Allow, or deny?";
        let heard = "Ray asks to write a note to stop M.V. below, or deny.";
        assert!(is_echo(heard, said), "{heard}");
        // The user's own words about the same command are the user's.
        for heard in [
            "Sky, run the harmless test instead.",
            "Rain, what is held out?",
            "Allow.",
            "Deny it.",
        ] {
            assert!(!is_echo(heard, said), "{heard}");
        }
    }

    #[test]
    fn words_a_letter_off_are_alike_and_short_words_only_when_equal() {
        assert!(alike("clawmux", "clawmax"));
        assert!(alike("test", "tests"));
        assert!(alike("harmless", "harmles"));
        assert!(!alike("run", "ran"));
        assert!(!alike("deny", "dine"));
        assert!(!alike("tests", "testing"));
    }
}
