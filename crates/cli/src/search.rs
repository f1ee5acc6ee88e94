//! `clawmux search QUERY [--agent NAME] [--since WHEN] [--user | --agents] [--limit N] [--json]`: messages
//! any agent or the user ever said, found by their words, newest first, each with its agent, who spoke,
//! when, and the words around the match (the matching words in bold on a terminal).
//!
//! The words are searched as words; `deploy*` finds words that start so, and `"the build is red"` those
//! words in that order. `--since` takes a time (`2026-11-20`, `2026-11-20T09:00:00Z`) or a span back from now
//! (`2h`, `3days`).

use std::io::IsTerminal;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clawmux_api::search::{SearchRequest, Who};
use clawmux_core::search::{MARK_END, MARK_START};

use crate::client::Client;
use crate::env::HubArgs;

/// What to look for, from the command line.
pub struct Args<'a> {
    pub query: &'a str,
    pub agent: Option<&'a str>,
    pub since: Option<&'a str>,
    pub who: Option<Who>,
    pub limit: u32,
    pub json: bool,
}

/// `--since`: a time, or a span back from `now`; ms since the epoch.
fn since(text: &str, now: SystemTime) -> Result<i64, String> {
    let at = match humantime::parse_duration(text) {
        Ok(span) => now.checked_sub(span).unwrap_or(UNIX_EPOCH),
        Err(_) => {
            let full = if text.len() == 10 {
                format!("{text}T00:00:00Z")
            } else {
                text.to_owned()
            };
            humantime::parse_rfc3339_weak(&full).map_err(|_| {
                format!("--since {text:?}: give a date (2026-11-20), a time (2026-11-20T09:00:00Z) or a span (2h, 3days)")
            })?
        }
    };
    let ms = at
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_millis();
    Ok(i64::try_from(ms).unwrap_or(i64::MAX))
}

/// A snippet for a terminal: the matches in bold if it is one, else as they are; control characters out.
fn shown(snippet: &str, bold: bool) -> String {
    snippet
        .chars()
        .filter_map(|c| match c {
            MARK_START => bold.then_some("\x1b[1m".to_owned()),
            MARK_END => bold.then_some("\x1b[0m".to_owned()),
            c if c.is_control() => Some(" ".to_owned()),
            c => Some(c.to_string()),
        })
        .collect()
}

fn when(ms: i64) -> String {
    let t = UNIX_EPOCH + Duration::from_millis(u64::try_from(ms).unwrap_or(0));
    humantime::format_rfc3339_seconds(t).to_string()
}

/// `clawmux search`.
pub fn search(hub: &HubArgs, a: &Args<'_>) -> Result<(), String> {
    let since = a.since.map(|s| since(s, SystemTime::now())).transpose()?;
    let command = SearchRequest {
        query: a.query.to_owned(),
        session_id: a.agent.map(str::to_owned),
        who: a.who,
        since,
        before: None,
        limit: Some(a.limit),
    };
    let reply = Client::of(hub, Duration::from_secs(10))?.call(command)?;
    if a.json {
        let json = serde_json::to_string_pretty(&reply).map_err(|e| e.to_string())?;
        println!("{json}");
        return Ok(());
    }
    let bold = std::io::stdout().is_terminal();
    for f in &reply.results {
        println!(
            "{}  {}  {} ({})  {}",
            when(f.at),
            f.agent,
            f.sender,
            f.kind.as_str(),
            f.id
        );
        println!("    {}", shown(&f.snippet, bold));
    }
    if !reply.sessions.is_empty() {
        println!("In your Claude Code sessions:");
    }
    for s in &reply.sessions {
        println!(
            "{}  {}  {}  (claude --resume {})",
            when(s.at),
            s.folder.as_deref().unwrap_or("?"),
            s.role.as_str(),
            s.session_id
        );
        println!("    {}", shown(&s.snippet, bold));
    }
    if !reply.tasks.is_empty() {
        println!("On the board:");
    }
    for t in &reply.tasks {
        println!("    {}", crate::task::line(t));
    }
    if reply.results.is_empty() && reply.sessions.is_empty() && reply.tasks.is_empty() {
        println!("Nothing found.");
    }
    if reply.indexing > 0 {
        println!(
            "({} older messages are still being indexed: they are not found yet.)",
            reply.indexing
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_takes_a_date_a_time_or_a_span() {
        let now = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        assert_eq!(since("2h", now).unwrap(), (1_800_000_000 - 7200) * 1000);
        assert_eq!(since("2026-11-20", now).unwrap(), 1_795_132_800_000);
        assert_eq!(
            since("2026-11-20T09:00:00Z", now).unwrap(),
            1_795_165_200_000
        );
        assert!(since("last tuesday", now).unwrap_err().contains("--since"));
    }

    #[test]
    fn a_snippet_is_bold_on_a_terminal_and_never_carries_control_characters() {
        let s = "the \u{2}build\u{3} is\u{1b}[31m red";
        assert_eq!(shown(s, true), "the \x1b[1mbuild\x1b[0m is [31m red");
        assert_eq!(shown(s, false), "the build is [31m red");
    }
}
