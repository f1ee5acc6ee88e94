//! Text to a Piper voice's phoneme ids: the text cut into sentences and clauses, each clause's phonemes
//! from espeak-ng (the phonemizer Piper's voices were trained with), each phoneme looked up in the voice's
//! own `phoneme_id_map`.
//!
//! espeak-ng runs as a process (`espeak-ng -q --ipa`) fed on its standard input, once per text: it keeps
//! the hostile text off any command line, and a crash of it is an error, not the hub's. Its clause
//! punctuation is not in its output, so the clauses are cut here (after `, ; : . ? !` and a space) and
//! sent a blank line apart, and each one's punctuation is put back after its phonemes, as Piper does.

use std::collections::HashMap;
use std::io::Write;
use std::process::{Command, Stdio};

use clawmux_core::wire::Code;

use crate::VoiceError;

/// Piper's marks: a sentence begins with `^`, ends with `$`, and `_` follows every phoneme.
const BEGIN: &str = "^";
const END: &str = "$";
const PAD: &str = "_";

/// The longest sentence spoken in one run of the voice, in characters (about 25 s of speech): a longer
/// one (a run-on, or a list of clauses) is cut into several at its words, so what one run of the network
/// holds in memory stays bounded whatever an agent writes.
const MAX_SENTENCE: usize = 400;

/// A clause of a sentence: its words and the punctuation that ended it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Clause {
    pub words: String,
    pub ends: char,
}

/// `text` as sentences of clauses. Text with no letter or digit in it is left out (espeak-ng says nothing
/// for it); control characters become spaces and `[[`, espeak-ng's way in for raw phonemes, is broken up.
pub(crate) fn sentences(text: &str) -> Vec<Vec<Clause>> {
    let clean: String = text
        .chars()
        .map(|c| {
            if c.is_control() || c == '[' || c == ']' {
                ' '
            } else {
                c
            }
        })
        .collect();
    let mut sentences = Vec::new();
    let mut clauses = Vec::new();
    let mut words = String::new();
    let mut chars = clean.chars().peekable();
    while let Some(c) = chars.next() {
        let at_break = chars.peek().is_none_or(|n| n.is_whitespace());
        if matches!(c, ',' | ';' | ':' | '.' | '?' | '!') && at_break {
            let ends = if matches!(c, ';' | ':') { ',' } else { c };
            push_clause(&mut clauses, &mut words, ends);
            if matches!(c, '.' | '?' | '!') && !clauses.is_empty() {
                sentences.push(std::mem::take(&mut clauses));
            }
        } else {
            words.push(c);
            if c.is_whitespace() && words.len() >= MAX_SENTENCE {
                push_clause(&mut clauses, &mut words, ',');
            }
        }
        let said: usize = clauses.iter().map(|c| c.words.len() + 1).sum::<usize>() + words.len();
        if said >= MAX_SENTENCE && !clauses.is_empty() {
            sentences.push(std::mem::take(&mut clauses));
        }
    }
    push_clause(&mut clauses, &mut words, '.');
    if !clauses.is_empty() {
        sentences.push(clauses);
    }
    sentences
}

fn push_clause(clauses: &mut Vec<Clause>, words: &mut String, ends: char) {
    let said = words.split_whitespace().collect::<Vec<_>>().join(" ");
    words.clear();
    if said.chars().any(char::is_alphanumeric) {
        clauses.push(Clause { words: said, ends });
    }
}

/// The phonemes (IPA) of each clause, in order, from espeak-ng speaking `voice` (`en-us`).
pub(crate) fn phonemize(voice: &str, clauses: &[&Clause]) -> Result<Vec<String>, VoiceError> {
    if voice.is_empty()
        || !voice
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(VoiceError::new(
            Code::ModelUnusable,
            format!("the voice names espeak-ng's voice `{voice}`, which is not a voice's name"),
        ));
    }
    let mut child = Command::new("espeak-ng")
        .args(["-q", "--ipa", "-b", "1", "-v", voice])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| {
            VoiceError::new(
                Code::SpeechFailed,
                format!("espeak-ng, which turns words into the voice's sounds, did not start ({e}): install it (apt install espeak-ng)"),
            )
        })?;
    let input: String = clauses.iter().map(|c| format!("{}\n\n", c.words)).collect();
    let mut stdin = child.stdin.take();
    let writer = std::thread::spawn(move || stdin.as_mut().map(|s| s.write_all(input.as_bytes())));
    let out = child
        .wait_with_output()
        .map_err(|e| VoiceError::new(Code::SpeechFailed, format!("espeak-ng failed: {e}")))?;
    let _ = writer.join();
    if !out.status.success() {
        return Err(VoiceError::new(
            Code::SpeechFailed,
            format!("espeak-ng failed ({}) for voice `{voice}`", out.status),
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let groups = groups(&text);
    if groups.len() == clauses.len() {
        Ok(groups)
    } else {
        // espeak-ng cut a clause where this did not: keep its sounds, in one clause.
        Ok(vec![groups.join(" ")])
    }
}

/// espeak-ng's output as the blank-line separated groups it keeps: each group's lines joined.
fn groups(output: &str) -> Vec<String> {
    output
        .split("\n\n")
        .map(|g| g.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|g| !g.is_empty())
        .collect()
}

/// A sentence's phoneme ids: `^ _`, then each phoneme and `_`, each clause's punctuation and a space
/// between clauses, then `$`. A phoneme the voice does not know is left out.
pub(crate) fn ids(
    map: &HashMap<String, Vec<i64>>,
    clauses: &[(String, char)],
) -> Result<Vec<i64>, VoiceError> {
    let id = |symbol: &str| {
        map.get(symbol).cloned().ok_or_else(|| {
            VoiceError::new(
                Code::ModelUnusable,
                format!("the voice's phoneme map has no `{symbol}`"),
            )
        })
    };
    let pad = id(PAD)?;
    let mut ids = id(BEGIN)?;
    ids.extend(&pad);
    for (i, (phonemes, ends)) in clauses.iter().enumerate() {
        let mut buf = [0u8; 4];
        let last = i + 1 == clauses.len();
        let tail = [*ends].into_iter().chain((!last).then_some(' '));
        for c in phonemes.chars().chain(tail) {
            if let Some(known) = map.get(c.encode_utf8(&mut buf) as &str) {
                ids.extend(known);
                ids.extend(&pad);
            }
        }
    }
    ids.extend(id(END)?);
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clause(words: &str, ends: char) -> Clause {
        Clause {
            words: words.to_owned(),
            ends,
        }
    }

    #[test]
    fn text_is_cut_into_sentences_and_clauses() {
        assert_eq!(
            sentences("Sky needs you. Allow npm publish, or deny?\n\n-- done"),
            vec![
                vec![clause("Sky needs you", '.')],
                vec![clause("Allow npm publish", ','), clause("or deny", '?')],
                vec![clause("-- done", '.')],
            ]
        );
        // A point inside a word or a number is not an end; marks alone say nothing.
        assert_eq!(
            sentences("Version 3.5 of example.com: ok! ... --- !"),
            vec![vec![
                clause("Version 3.5 of example.com", ','),
                clause("ok", '!')
            ]]
        );
        assert_eq!(
            sentences("say [[h@l'oU]]\u{7}"),
            vec![vec![clause("say h@l'oU", '.')]]
        );
        assert!(sentences(" \n ").is_empty());
    }

    #[test]
    fn a_run_on_or_a_long_list_is_cut_into_bounded_sentences() {
        for text in ["word ".repeat(900), "a word, ".repeat(500)] {
            let said = sentences(&text);
            assert!(said.len() > 5, "{}", said.len());
            for sentence in &said {
                let chars: usize = sentence.iter().map(|c| c.words.len()).sum();
                assert!(chars <= MAX_SENTENCE + 10, "{chars}");
            }
            let words: usize = said
                .iter()
                .flatten()
                .map(|c| c.words.split_whitespace().count())
                .sum();
            assert_eq!(words, text.split_whitespace().count(), "every word kept");
        }
    }

    #[test]
    fn ids_are_padded_and_bounded_and_unknown_phonemes_left_out() {
        let map: HashMap<String, Vec<i64>> = [
            ("_", 0),
            ("^", 1),
            ("$", 2),
            (" ", 3),
            (",", 8),
            (".", 10),
            ("a", 14),
            ("b", 15),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), vec![v]))
        .collect();
        let clauses = [("ab".to_owned(), ','), ("bz".to_owned(), '.')];
        assert_eq!(
            ids(&map, &clauses).unwrap(),
            vec![1, 0, 14, 0, 15, 0, 8, 0, 3, 0, 15, 0, 10, 0, 2]
        );
        let broken: HashMap<String, Vec<i64>> = HashMap::new();
        assert_eq!(
            ids(&broken, &clauses).unwrap_err().code,
            Code::ModelUnusable
        );
    }

    #[test]
    fn espeak_gives_each_clause_its_sounds() {
        let said = sentences("Hello world, how are you?");
        let clauses: Vec<&Clause> = said.iter().flatten().collect();
        let sounds = phonemize("en-us", &clauses).unwrap();
        assert_eq!(sounds.len(), 2, "{sounds:?}");
        assert!(sounds[0].contains("wˈɜːld"), "{sounds:?}");
        assert!(sounds[1].contains("juː"), "{sounds:?}");
        assert_eq!(
            phonemize("en us; rm", &clauses).unwrap_err().code,
            Code::ModelUnusable
        );
    }
}
