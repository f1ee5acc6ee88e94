//! `clawmux agent add|list` and `clawmux status`.

use std::path::Path;
use std::time::Duration;

use clawmux_api::commands;
use clawmux_api::import::AgentImport;
use clawmux_api::session::SessionInfo;
use clawmux_core::shell::quote;

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
    let info: SessionInfo = client.call(commands::AddAgent {
        name: name.to_owned(),
        work_dir,
    })?;
    println!("export CLAWMUX_SESSION_ID={}", quote(name));
    println!("export CLAWMUX_PORT={}", hub.port);
    println!("export CLAWMUX_WORK_DIR={}", quote(&info.work_dir));
    println!(
        "export CLAWMUX_HOME={}",
        quote(&hub.data_dir().display().to_string())
    );
    Ok(())
}

pub fn list(args: &HubArgs) -> Result<(), String> {
    let client = Client::of(args, Duration::from_secs(5))?;
    let rows: Vec<SessionInfo> = client.call(commands::Sessions {})?;
    if rows.is_empty() {
        println!("no agents (add one with `clawmux agent add NAME`)");
        return Ok(());
    }
    println!("{:<20} {:<12} {:>6}  ACTIVITY", "AGENT", "STATE", "UNREAD");
    for r in rows {
        // Held at the account's limit, its turn has not ended: what the user must know is the limit.
        let held = r
            .needs
            .as_ref()
            .is_some_and(|n| n.attention.need == clawmux_core::Need::RateLimited);
        let state = if held {
            "rate-limited".to_owned()
        } else {
            r.state.to_string()
        };
        println!(
            "{:<20} {:<12} {:>6}  {}",
            r.session_id, state, r.unread_count, r.activity
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
    let rows: Vec<AgentImport> = client.call(commands::Import {})?;
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
