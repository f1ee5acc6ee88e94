//! Searching everything said: the user's words turned into an SQLite FTS5 query that means what they typed.
//!
//! FTS5 has a syntax of its own (`AND`, `OR`, `NOT`, `NEAR`, `-`, `^`, `:`, parentheses, quotes), and a
//! user typing `don't (ever) NOT-do this` must neither get a syntax error nor a query that means something
//! else. So every word is searched as a word: each becomes a quoted FTS5 string (its own quotes doubled),
//! and they must all be there, in any order. Two forms are documented and kept: a trailing `*` on a word
//! asks for words that start with it (`deploy*`), and `"..."` asks for the words in that order (a phrase).
//! Pure, no IO.

use serde::{Deserialize, Serialize};

/// The longest query taken, in characters.
pub const MAX_QUERY: usize = 256;

/// The most words (or phrases) a query may have.
const MAX_TERMS: usize = 32;

/// Why a query is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// Nothing to look for.
    #[error("the search is empty: type a word to look for")]
    Empty,
    /// Longer than [`MAX_QUERY`] characters.
    #[error("the search is longer than {MAX_QUERY} characters")]
    TooLong,
    /// More than [`MAX_TERMS`] words.
    #[error("the search has more than {MAX_TERMS} words")]
    TooManyWords,
}

/// One part of a query: a word, the start of words, or a phrase.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Term {
    Word(String),
    Prefix(String),
    Phrase(String),
}

/// Quotes `text` as an FTS5 string: it is searched as the words it holds, whatever characters it has.
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

fn terms(query: &str) -> Vec<Term> {
    let mut out = Vec::new();
    let mut rest = query;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return out;
        }
        if let Some(after) = rest.strip_prefix('"') {
            // A phrase runs to the next quote, or to the end if the user did not close it.
            let (phrase, next) = after.split_once('"').unwrap_or((after, ""));
            if !phrase.trim().is_empty() {
                out.push(Term::Phrase(phrase.trim().to_owned()));
            }
            rest = next;
            continue;
        }
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let (word, next) = rest.split_at(end);
        rest = next;
        match word.strip_suffix('*') {
            Some(stem) if stem.chars().any(char::is_alphanumeric) => {
                out.push(Term::Prefix(stem.to_owned()));
            }
            _ => out.push(Term::Word(word.to_owned())),
        }
    }
}

/// Whether a term holds anything FTS5 would index (letters or digits); punctuation alone finds nothing.
fn has_token(t: &Term) -> bool {
    let (Term::Word(s) | Term::Prefix(s) | Term::Phrase(s)) = t;
    s.chars().any(char::is_alphanumeric)
}

/// The FTS5 query for what the user typed: every word must be there. Refused when empty, too long or of
/// too many words; never a syntax error.
pub fn fts_query(query: &str) -> Result<String, QueryError> {
    if query.chars().count() > MAX_QUERY {
        return Err(QueryError::TooLong);
    }
    let terms: Vec<Term> = terms(query).into_iter().filter(has_token).collect();
    if terms.is_empty() {
        return Err(QueryError::Empty);
    }
    if terms.len() > MAX_TERMS {
        return Err(QueryError::TooManyWords);
    }
    Ok(terms
        .iter()
        .map(|t| match t {
            Term::Word(w) | Term::Phrase(w) => quoted(w),
            Term::Prefix(p) => format!("{}*", quoted(p)),
        })
        .collect::<Vec<_>>()
        .join(" "))
}

/// Where a match starts in a snippet.
pub const MARK_START: char = '\u{2}';
/// Where it ends.
pub const MARK_END: char = '\u{3}';

/// One message found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Found {
    /// Its place in the store (the cursor the conversation pages from).
    pub seq: i64,
    /// Its public id.
    pub id: String,
    /// The agent whose conversation holds it.
    pub agent: String,
    /// Who spoke.
    pub kind: crate::wire::Kind,
    /// The sender's name.
    pub sender: String,
    /// When (ms since the epoch).
    pub at: i64,
    /// The text around the match, the matching words between [`MARK_START`] and [`MARK_END`] (characters no
    /// message holds as typed, so the window highlights them without reading any markup from the text).
    pub snippet: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_searched_as_words_whatever_they_hold() {
        assert_eq!(fts_query("deploy failed").unwrap(), r#""deploy" "failed""#);
        // FTS5's own syntax is just words here.
        assert_eq!(
            fts_query(r#"NOT (this) OR col:x -y ^z a"b"#).unwrap(),
            r#""NOT" "(this)" "OR" "col:x" "-y" "^z" "a""b""#
        );
        assert_eq!(fts_query("déjà vu 東京").unwrap(), r#""déjà" "vu" "東京""#);
    }

    #[test]
    fn a_prefix_and_a_phrase_are_asked_for_as_documented() {
        assert_eq!(fts_query("deploy*").unwrap(), r#""deploy"*"#);
        assert_eq!(
            fts_query(r#"say "the build is green" now"#).unwrap(),
            r#""say" "the build is green" "now""#
        );
        // An unclosed quote runs to the end; a lone star is a word of nothing.
        assert_eq!(fts_query(r#""half open"#).unwrap(), r#""half open""#);
        assert_eq!(fts_query("* x").unwrap(), r#""x""#);
    }

    #[test]
    fn empty_too_long_or_too_many_words_are_refused() {
        assert_eq!(fts_query("   "), Err(QueryError::Empty));
        assert_eq!(fts_query(r#"-- ** "" ?"#), Err(QueryError::Empty));
        assert_eq!(
            fts_query(&"a".repeat(MAX_QUERY + 1)),
            Err(QueryError::TooLong)
        );
        assert!(
            fts_query(&"é".repeat(MAX_QUERY)).is_ok(),
            "characters, not bytes"
        );
        assert_eq!(
            fts_query(&"a ".repeat(MAX_TERMS + 1)),
            Err(QueryError::TooManyWords)
        );
    }
}
