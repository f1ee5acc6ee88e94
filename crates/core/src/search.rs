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
    // A control character (a NUL above all, which ends a string inside FTS5) separates words like a space.
    let query: String = query
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let terms: Vec<Term> = terms(&query).into_iter().filter(has_token).collect();
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
        // A NUL or another control character is a space, never inside a term FTS5 is handed.
        assert_eq!(fts_query("dep\0loy\u{1b}x").unwrap(), r#""dep" "loy" "x""#);
        assert_eq!(fts_query("\0"), Err(QueryError::Empty));
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

/// Who said a line of a Claude Code session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The user's prompt.
    User,
    /// Claude's answer.
    Assistant,
    /// A tool call: its name and input.
    Tool,
}

impl Role {
    /// The stored and wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }

    /// Parses a stored name.
    pub fn parse(name: &str) -> Option<Role> {
        [Role::User, Role::Assistant, Role::Tool]
            .into_iter()
            .find(|r| r.as_str() == name)
    }
}

/// What a line of a Claude Code transcript gives search: each prompt, answer and tool call in it, the
/// session and folder it belongs to, and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionLine {
    /// `sessionId`.
    pub session_id: Option<String>,
    /// `cwd`: the folder the session ran in.
    pub folder: Option<String>,
    /// `timestamp`.
    pub at: Option<crate::Millis>,
    /// What was said, each with who said it.
    pub said: Vec<(Role, String)>,
}

/// The most of one tool call's input kept for search.
const TOOL_INPUT_CHARS: usize = 2_000;

/// The role of a user line's words: the user's, unless Claude Code injected them (a background task's
/// notice, a wake-up): then found as Claude Code's own, as a tool's, never as the user's words.
fn user_or_injected(text: &str) -> Role {
    if crate::hook::injected_as(text).is_some() {
        Role::Tool
    } else {
        Role::User
    }
}

/// Reads a transcript line for search: a user's prompt (not a tool's result, not a subagent's), the
/// assistant's text, and each tool call as `Name input`. `None` for lines that say nothing searchable.
pub fn session_line(line: &[u8]) -> Option<SessionLine> {
    use serde_json::Value;
    let v: Value = serde_json::from_slice(line).ok()?;
    if v.get("isSidechain").and_then(Value::as_bool) == Some(true)
        || v.get("isMeta").and_then(Value::as_bool) == Some(true)
    {
        return None;
    }
    let text = |v: &Value| v.as_str().map(str::to_owned);
    let content = v.get("message").and_then(|m| m.get("content"));
    let mut said = Vec::new();
    match v.get("type").and_then(Value::as_str)? {
        "user" => match content? {
            Value::String(s) => said.push((user_or_injected(s), s.clone())),
            Value::Array(blocks) => said.extend(
                blocks
                    .iter()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                    .filter_map(|b| b.get("text").and_then(text))
                    .map(|t| (user_or_injected(&t), t)),
            ),
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::Object(_) => {}
        },
        "assistant" => {
            for b in content?.as_array()? {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        said.extend(b.get("text").and_then(text).map(|t| (Role::Assistant, t)))
                    }
                    Some("tool_use") => {
                        let name = b.get("name").and_then(Value::as_str).unwrap_or("tool");
                        let input: String = b
                            .get("input")
                            .map(Value::to_string)
                            .unwrap_or_default()
                            .chars()
                            .take(TOOL_INPUT_CHARS)
                            .collect();
                        said.push((Role::Tool, format!("{name} {input}")));
                    }
                    _ => {}
                }
            }
        }
        _ => return None,
    }
    said.retain(|(_, t)| !t.trim().is_empty());
    if said.is_empty() {
        return None;
    }
    Some(SessionLine {
        session_id: v.get("sessionId").and_then(text),
        folder: v.get("cwd").and_then(text),
        at: v
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(crate::transcript::parse_time),
        said,
    })
}

/// A line of a Claude Code session found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoundInSession {
    /// The session (`claude --resume` takes it).
    pub session_id: String,
    /// The folder it ran in, if its lines say.
    pub folder: Option<String>,
    /// Who said it.
    pub role: Role,
    /// When (ms since the epoch).
    pub at: i64,
    /// The text around the match, marked as in [`Found::snippet`].
    pub snippet: String,
}

#[cfg(test)]
mod session_tests {
    use super::*;

    #[test]
    fn a_sessions_prompts_answers_and_tool_calls_are_searchable_its_tool_results_are_not() {
        let prompt = br#"{"type":"user","sessionId":"s1","cwd":"/src/app","timestamp":"2026-11-20T09:00:00Z","message":{"role":"user","content":"fix the flaky login test"}}"#;
        let l = session_line(prompt).unwrap();
        assert_eq!(
            l.said,
            [(Role::User, "fix the flaky login test".to_owned())]
        );
        assert_eq!(
            (l.session_id.as_deref(), l.folder.as_deref()),
            (Some("s1"), Some("/src/app"))
        );
        assert_eq!(l.at, Some(crate::Millis(1_795_165_200_000)));
        // A background task's notice Claude Code injected is found, not as the user's words.
        let notice = br#"{"type":"user","message":{"content":"<task-notification> b1 completed"}}"#;
        assert_eq!(session_line(notice).unwrap().said[0].0, Role::Tool);
        let answer = br#"{"type":"assistant","sessionId":"s1","message":{"content":[{"type":"text","text":"Looking at it."},{"type":"tool_use","id":"t","name":"Bash","input":{"command":"npm test"}}]}}"#;
        let a = session_line(answer).unwrap();
        assert_eq!(
            a.said,
            [
                (Role::Assistant, "Looking at it.".to_owned()),
                (Role::Tool, r#"Bash {"command":"npm test"}"#.to_owned())
            ]
        );
        for quiet in [
            &br#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}}"#[..],
            br#"{"type":"user","isSidechain":true,"message":{"content":"a subagent's prompt"}}"#,
            br#"{"type":"summary","summary":"x"}"#,
            b"not json",
        ] {
            assert_eq!(session_line(quiet), None);
        }
    }
}
