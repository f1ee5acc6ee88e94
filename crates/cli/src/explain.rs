//! `clawmux explain NAME`, `clawmux report NAME` and `clawmux dismiss NAME`: why an agent's indicator says
//! what it says, a case file when it looks wrong, and dismissing a need a notice alone raised. The hub
//! builds all three (the same commands the window's explanation panel runs); this prints them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clawmux_hub::commands::Command;
use clawmux_hub::explain::{Report, ReportRequest};
use serde_json::Value;

use crate::client::Client;
use crate::env::HubArgs;

/// The explanation, as JSON: its words are `'static` names in the hub's type, read back here as text.
fn explanation(args: &HubArgs, name: &str) -> Result<Value, String> {
    let command = Command::Explain {
        session_id: name.to_owned(),
    };
    Ok(Client::of(args, Duration::from_secs(30))?.command(&command)?)
}

/// A time field of the hub's answer, as the CLI prints times.
fn time(at: &Value) -> String {
    crate::timeline::show(clawmux_core::Millis(at.as_i64().unwrap_or(0)))
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn cause_line(c: &Value) -> String {
    let detail = match c.get("detail").and_then(Value::as_str) {
        Some(d) => format!(" [{d}]"),
        None => String::new(),
    };
    format!(
        "{}: {}, from {}{detail}",
        time(&c["at"]),
        text(c, "words"),
        text(c, "source_words")
    )
}

/// Prints the explanation.
pub fn explain(args: &HubArgs, name: &str) -> Result<(), String> {
    let e = explanation(args, name)?;
    println!(
        "{name}: {} ({}) since {}",
        text(&e, "shown"),
        text(&e, "state"),
        time(&e["since"])
    );
    if !text(&e, "activity").is_empty() {
        println!("  status: {}", text(&e, "activity"));
    }
    match e.get("set_by").filter(|v| !v.is_null()) {
        Some(c) => println!("  set by: {}", cause_line(c)),
        None => println!("  set by: no recorded event (registered in this state)"),
    }
    println!("  ends with:");
    for l in e["ends"].as_array().into_iter().flatten() {
        println!("    - {}", l.as_str().unwrap_or_default());
    }
    if let Some(until) = e.get("until").filter(|v| !v.is_null()) {
        println!("  the hub waits until {}", time(until));
    }
    if let Some(n) = e.get("needs").filter(|v| !v.is_null()) {
        println!(
            "  needs you: {} since {}",
            text(n, "reason"),
            time(&n["since"])
        );
        if let Some(id) = n.get("tool_use_id").and_then(Value::as_str) {
            println!("    waits on tool call {id} ({})", text(n, "tool_name"));
        }
        if let Some(c) = n.get("set_by").filter(|v| !v.is_null()) {
            println!("    raised by: {}", cause_line(c));
        }
        println!("    ends with:");
        for l in n["ends"].as_array().into_iter().flatten() {
            println!("      - {}", l.as_str().unwrap_or_default());
        }
        if n["dismissable"].as_bool() == Some(true) {
            println!("    (clawmux dismiss {name} dismisses it)");
        }
    }
    if let Some(now) = e.get("claude_now").and_then(Value::as_str) {
        println!("  Claude Code's own view: {now}");
    }
    if let Some(d) = e.get("disagreement").filter(|v| !v.is_null()) {
        println!("  disagreement recorded: {}", cause_line(d));
    }
    println!("  latest decisions (newest first):");
    for d in e["recent"].as_array().into_iter().flatten() {
        println!("    {} -> {}", cause_line(d), text(d, "result"));
    }
    Ok(())
}

/// Dismisses a need a notice alone raised.
pub fn dismiss(args: &HubArgs, name: &str) -> Result<(), String> {
    let command = Command::Dismiss {
        session_id: name.to_owned(),
    };
    let serde::de::IgnoredAny = Client::of(args, Duration::from_secs(30))?.command(&command)?;
    println!("{name}: dismissed");
    Ok(())
}

/// What `clawmux report` asks for.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// The agent.
    name: String,
    /// How far back (e.g. 10m, 1h, 90s; default 10m).
    #[arg(long, value_parser = humantime::parse_duration)]
    since: Option<Duration>,
    /// Where to write the case file (default: ./clawmux-report-NAME-TIME.jsonl).
    #[arg(long)]
    out: Option<PathBuf>,
    /// What was right: starting, idle, working, compacting, offline, needs:<need> or not-needed.
    #[arg(long)]
    right: Option<String>,
    /// Keep message texts, tool inputs and paths (they are redacted otherwise).
    #[arg(long)]
    keep_texts: bool,
    #[command(flatten)]
    hub: HubArgs,
}

/// Writes the case file, saying first what was redacted.
pub fn report(r: &ReportArgs) -> Result<(), String> {
    let since_ms = r
        .since
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    let command = Command::Report(ReportRequest {
        session_id: r.name.clone(),
        since_ms,
        until: None,
        right: r.right.clone(),
        keep: r.keep_texts,
        save: false,
    });
    let answer: Report = Client::of(&r.hub, Duration::from_secs(30))?.command(&command)?;
    let count = answer.file.strings_redacted;
    if answer.file.redacted {
        eprintln!(
            "redacted: {count} strings (message texts, tool inputs, paths); --keep-texts keeps them"
        );
    } else {
        eprintln!("kept: message texts, tool inputs and paths are in the file as they were");
    }
    let out = r.out.clone().unwrap_or_else(|| {
        PathBuf::from(format!(
            "clawmux-report-{}-{}.jsonl",
            r.name, answer.until.0
        ))
    });
    write_new(&out, &answer.file.text)?;
    println!(
        "{}: {} events, {} transcript lines; replay it with: clawmux replay {}",
        out.display(),
        answer.file.events,
        answer.file.transcript_lines,
        out.display()
    );
    Ok(())
}

/// Writes `text` to a file that must not exist yet, readable by the user only.
fn write_new(path: &Path, text: &str) -> Result<(), String> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    f.write_all(text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}
