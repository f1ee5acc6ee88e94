//! `clawmux agent add|list` and `clawmux status`.

use std::path::Path;
use std::time::Duration;

use clawmux_core::shell::quote;
use clawmux_hub::commands::Command;
use clawmux_hub::import::AgentImport;
use serde_json::{json, Value};

use crate::client::Client;
use crate::env::HubArgs;

pub fn add(args: &HubArgs, name: &str, work_dir: Option<&Path>) -> Result<(), String> {
    let hub = args.resolve()?;
    let client = Client::new(&hub, Duration::from_secs(5));
    let work_dir = work_dir
        .map(|d| {
            std::path::absolute(d).map_err(|e| format!("bad work folder {}: {e}", d.display()))
        })
        .transpose()?;
    let body = json!({ "name": name, "work_dir": work_dir }).to_string();
    let info = client
        .post("/api/agents", None, body.as_bytes())
        .map_err(|e| e.to_string())?;
    let dir = info
        .get("work_dir")
        .and_then(Value::as_str)
        .unwrap_or_default();
    println!("export CLAWMUX_SESSION_ID={}", quote(name));
    println!("export CLAWMUX_PORT={}", hub.port);
    println!("export CLAWMUX_WORK_DIR={}", quote(dir));
    println!(
        "export CLAWMUX_HOME={}",
        quote(&hub.data_dir().display().to_string())
    );
    Ok(())
}

pub fn list(args: &HubArgs) -> Result<(), String> {
    let client = Client::of(args, Duration::from_secs(5))?;
    let sessions = client.get("/api/sessions").map_err(|e| e.to_string())?;
    let rows = sessions.as_array().cloned().unwrap_or_default();
    if rows.is_empty() {
        println!("no agents (add one with `clawmux agent add NAME`)");
        return Ok(());
    }
    println!("{:<20} {:<12} {:>6}  ACTIVITY", "AGENT", "STATE", "UNREAD");
    for r in rows {
        let s = |k: &str| {
            r.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let unread = r.get("unread_count").and_then(Value::as_i64).unwrap_or(0);
        // Held at the account's limit, its turn has not ended: what the user must know is the limit.
        let held = r.pointer("/needs/need").and_then(Value::as_str) == Some("rate_limited");
        println!(
            "{:<20} {:<12} {:>6}  {}",
            s("session_id"),
            if held {
                "rate-limited".to_owned()
            } else {
                s("state")
            },
            unread,
            s("activity")
        );
    }
    Ok(())
}

/// Prints the web UI's address. The token travels in the fragment, which a browser never sends anywhere.
pub fn open(args: &HubArgs) -> Result<(), String> {
    let hub = args.resolve()?;
    println!(
        "http://127.0.0.1:{}/#token={}",
        hub.port,
        hub.token.as_deref().unwrap_or_default()
    );
    Ok(())
}

/// `clawmux import`: the conversations of an original installation in the hub's data folder
/// (`sessions/<agent>/history.json`), one line per agent. Running it again imports nothing twice.
pub fn import(args: &HubArgs) -> Result<(), String> {
    let hub = args.resolve()?;
    let client = Client::new(&hub, Duration::from_secs(600));
    let rows: Vec<AgentImport> = client.command(&Command::Import {})?;
    if rows.is_empty() {
        println!("nothing to import: no sessions/<agent>/history.json in the hub's data folder");
        return Ok(());
    }
    let mut failed = 0;
    for r in &rows {
        match &r.error {
            Some(why) => {
                failed += 1;
                println!("{}: not imported: {why}", r.agent);
            }
            None => println!(
                "{}: {} message(s) imported, {} already there",
                r.agent, r.created, r.skipped
            ),
        }
    }
    if failed > 0 {
        return Err(format!(
            "{failed} of {} agent(s) could not be imported",
            rows.len()
        ));
    }
    Ok(())
}
