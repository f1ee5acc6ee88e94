//! `clawmux explain NAME`, `clawmux report NAME` and `clawmux dismiss NAME`: why an agent's indicator says
//! what it says, a case file when it looks wrong, and dismissing a need a notice alone raised. The hub
//! builds all three (the same commands the window's explanation panel runs); this prints them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clawmux_api::commands;
use clawmux_api::explain::ReportRequest;
use clawmux_core::explain::{Cause, Explanation};
use clawmux_core::Millis;

use crate::client::Client;
use crate::env::HubArgs;

/// A time of the hub's answer, as the CLI prints times.
fn time(at: Millis) -> String {
    crate::timeline::show(at)
}

fn cause_line(c: &Cause) -> String {
    let detail = match &c.detail {
        Some(d) => format!(" [{d}]"),
        None => String::new(),
    };
    format!(
        "{}: {}, from {}{detail}",
        time(c.at),
        c.words,
        c.source_words
    )
}

/// Prints the explanation.
pub fn explain(args: &HubArgs, name: &str) -> Result<(), String> {
    let command = commands::Explain {
        session_id: name.to_owned(),
    };
    let e: Explanation = Client::of(args, Duration::from_secs(30))?.call(command)?;
    println!("{name}: {} ({}) since {}", e.shown, e.state, time(e.since));
    if !e.activity.is_empty() {
        println!("  status: {}", e.activity);
    }
    match &e.set_by {
        Some(c) => println!("  set by: {}", cause_line(c)),
        None => println!("  set by: no recorded event (registered in this state)"),
    }
    println!("  ends with:");
    for l in &e.ends {
        println!("    - {l}");
    }
    if let Some(until) = e.until {
        println!("  the hub waits until {}", time(until));
    }
    if let Some(n) = &e.needs {
        println!("  needs you: {} since {}", n.reason, time(n.since));
        if let Some(id) = &n.tool_use_id {
            println!(
                "    waits on tool call {id} ({})",
                n.tool_name.as_deref().unwrap_or_default()
            );
        }
        if let Some(c) = &n.set_by {
            println!("    raised by: {}", cause_line(c));
        }
        println!("    ends with:");
        for l in &n.ends {
            println!("      - {l}");
        }
        if n.dismissable {
            println!("    (clawmux dismiss {name} dismisses it)");
        }
    }
    if let Some(now) = e.claude_now {
        println!("  Claude Code's own view: {}", now.as_str());
    }
    if let Some(d) = &e.disagreement {
        println!("  disagreement recorded: {}", cause_line(&d.cause));
    }
    println!("  latest decisions (newest first):");
    for d in &e.recent {
        println!("    {} -> {}", cause_line(&d.cause), d.result);
    }
    Ok(())
}

/// Dismisses a need a notice alone raised.
pub fn dismiss(args: &HubArgs, name: &str) -> Result<(), String> {
    let command = commands::Dismiss {
        session_id: name.to_owned(),
    };
    Client::of(args, Duration::from_secs(30))?.call(command)?;
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
    let command = ReportRequest {
        session_id: r.name.clone(),
        since_ms,
        until: None,
        right: r.right.clone(),
        keep: r.keep_texts,
        save: false,
    };
    let answer = Client::of(&r.hub, Duration::from_secs(30))?.call(command)?;
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
