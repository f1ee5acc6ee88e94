//! `clawmux timeline NAME`: an agent's decisions, raw events and transcript lines, interleaved in time
//! order, one line each: the first thing to read when an indicator was wrong (see "Diagnosis" in
//! `docs/STATE-MACHINE.md`).

use crate::client::Client;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clawmux_core::transcript::{parse_line, parse_time};
use clawmux_core::Millis;
use serde_json::Value;

use crate::env::HubArgs;

/// The rows asked for per page.
const PAGE: usize = 10_000;

/// One line of the timeline.
struct Item {
    at: Millis,
    tag: &'static str,
    text: String,
}

/// Every row of one of the agent's logs.
fn fetch(client: &Client, name: &str, log: &str) -> Result<Vec<Value>, String> {
    let mut rows = Vec::new();
    let mut after = 0i64;
    loop {
        let text = client
            .get_text(&format!(
                "/api/sessions/{name}/log/{log}?after={after}&limit={PAGE}"
            ))
            .map_err(|e| e.to_string())?;
        let page: Vec<Value> = text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            // What agents and other machines wrote is printed: no escape sequence of theirs reaches it.
            .map(crate::client::inert)
            .collect();
        let n = page.len();
        if let Some(last) = page
            .last()
            .and_then(|r| r.get("id"))
            .and_then(Value::as_i64)
        {
            after = last;
        }
        rows.extend(page);
        if n < PAGE {
            return Ok(rows);
        }
    }
}

fn field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn at_of(v: &Value) -> Millis {
    Millis(v.get("at").and_then(Value::as_i64).unwrap_or(0))
}

fn event_text(e: &Value) -> String {
    let mut text = field(e, "kind").unwrap_or("?").to_owned();
    let p = e.get("payload").unwrap_or(&Value::Null);
    for key in [
        "tool_name",
        "tool_use_id",
        "source",
        "trigger",
        "error",
        "reason",
    ] {
        if let Some(v) = field(p, key) {
            text.push_str(&format!(" {key}={v}"));
        }
    }
    if let Some(sub) = field(p, "agent_id") {
        text.push_str(&format!(" (subagent {sub})"));
    }
    if let Some(err) = field(e, "error") {
        text.push_str(&format!(" [unusable: {err}]"));
    }
    text
}

fn decision_text(d: &Value) -> String {
    let trigger = field(d, "trigger").unwrap_or("?");
    let from = field(d, "from").unwrap_or("?");
    let to = field(d, "to").unwrap_or("?");
    let mut text = match field(d, "outcome") {
        Some("moved") => format!("{trigger}: {from} -> {to}"),
        Some("stayed") => format!("{trigger}: stays {from}"),
        _ => format!(
            "{trigger}: suppressed in {from} ({})",
            d.get("reason").map(Value::to_string).unwrap_or_default()
        ),
    };
    if let Some(a) = field(d, "activity") {
        text.push_str(&format!(" text=\"{a}\""));
    }
    if let Some(change) = d.get("attention") {
        match field(change, "change") {
            Some("set") => text.push_str(&format!(
                " NEEDS YOU: {} ({})",
                field(change, "need").unwrap_or("?"),
                field(change, "reason").unwrap_or("")
            )),
            _ => text.push_str(&format!(
                " needs-you ended ({})",
                field(change, "need").unwrap_or("?")
            )),
        }
    }
    if let Some(detail) = field(d, "detail") {
        text.push_str(&format!(" [{detail}]"));
    }
    text
}

/// The main agent's transcript, as the latest hook named it.
fn transcript_of(events: &[Value]) -> Option<PathBuf> {
    events.iter().rev().find_map(|e| {
        let p = e.get("payload")?;
        if p.get("agent_id").is_some() {
            return None;
        }
        field(p, "transcript_path").map(PathBuf::from)
    })
}

fn transcript_items(path: &Path) -> Result<Vec<Item>, String> {
    let text = std::fs::read(path)
        .map_err(|e| format!("cannot read the transcript {}: {e}", path.display()))?;
    Ok(text
        .split(|b| *b == b'\n')
        .filter_map(|line| parse_line(line).ok())
        .filter_map(|l| {
            Some(Item {
                at: l.at?,
                tag: if l.sidechain {
                    "transcript/sub"
                } else {
                    "transcript"
                },
                text: l.summary,
            })
        })
        .collect())
}

/// Parses `--from`/`--to`: RFC 3339 (`2026-11-22T05:53:13Z`) or milliseconds since the epoch.
pub fn parse_bound(text: &str) -> Result<Millis, String> {
    text.trim()
        .parse::<i64>()
        .ok()
        .map(Millis)
        .or_else(|| parse_time(text.trim()))
        .ok_or_else(|| {
            format!(
                "`{text}` is not a time: use RFC 3339 (2026-11-22T05:53:13Z) or epoch milliseconds"
            )
        })
}

/// A time as the CLI prints it (RFC 3339, milliseconds, UTC).
pub(crate) fn show(at: Millis) -> String {
    let t = std::time::UNIX_EPOCH + Duration::from_millis(u64::try_from(at.0).unwrap_or(0));
    humantime::format_rfc3339_millis(t).to_string()
}

/// `clawmux timeline`.
pub fn run(
    hub: &HubArgs,
    name: &str,
    from: Option<Millis>,
    to: Option<Millis>,
    transcript: Option<&Path>,
) -> Result<(), String> {
    let client = Client::of(hub, Duration::from_secs(30))?;
    let events = fetch(&client, name, "events")?;
    let decisions = fetch(&client, name, "decisions")?;
    let mut items: Vec<Item> = Vec::with_capacity(events.len() + decisions.len());
    items.extend(
        events
            .iter()
            .filter(|e| field(e, "source") != Some("transcript"))
            .map(|e| Item {
                at: at_of(e),
                tag: match field(e, "source") {
                    Some("hook") => "hook",
                    Some("wait") => "wait",
                    Some("ui") | Some("cli") => "user",
                    _ => "hub",
                },
                text: event_text(e),
            }),
    );
    items.extend(decisions.iter().map(|d| Item {
        at: at_of(d),
        tag: "decision",
        text: decision_text(d),
    }));
    // A path another machine's hook names is of that machine: never read here.
    let named = || transcript_of(&events).filter(|_| hub.machine.is_none());
    match transcript.map(Path::to_owned).or_else(named) {
        Some(path) => match transcript_items(&path) {
            Ok(t) => items.extend(t),
            Err(e) => eprintln!("note: {}", crate::client::printable(&e)),
        },
        None => eprintln!("note: no hook named a transcript; pass --transcript to add one"),
    }
    // Stable: an event comes before the decision it caused, whatever their times.
    items.sort_by_key(|i| i.at);
    for i in items
        .iter()
        .filter(|i| from.is_none_or(|f| i.at >= f) && to.is_none_or(|t| i.at <= t))
    {
        let text = crate::client::printable(&i.text);
        println!("{}  {:<15} {text}", show(i.at), format!("[{}]", i.tag));
    }
    Ok(())
}
