//! Other machines: `clawmux remote add|list|remove`. Their hubs are reached through the user's own `ssh`
//! (`dial.rs`, `--machine NAME` of the commands that talk to a hub).
//!
//! Why through ssh and `dial-stdio`: no port is opened on either machine and nothing of ours listens on a
//! network; the user's ssh brings its config, keys, agent, known hosts and jump hosts, and refuses a host
//! whose key changed. The remote `clawmux dial-stdio` connects its standard input and output to that
//! machine's hub, starting it if it does not run, after one line of hello (its version and the hub's
//! token, which never crosses a command line and is kept only in this process's memory).

use std::time::Duration;

use clawmux_api::commands::{self, Request};
use clawmux_core::remote::{MachineName, SshTarget};
use clawmux_hub::machines::list::MachineList;

use crate::client::{CallError, Client};
use crate::dial::Dial;
use crate::env::HubArgs;

/// Has the running hub of this machine make a change to the list (`machine_add`, `machine_remove`), so
/// that it follows what the list says at once; `None` when no hub runs here (the list file is then
/// changed directly, and read by the hub when it starts).
fn through_hub<R: Request>(args: &HubArgs, command: R) -> Option<Result<(), String>> {
    let client = Client::new(&args.resolve().ok()?, Duration::from_secs(10));
    match client.call(command) {
        Ok(_) => Some(Ok(())),
        Err(CallError::Unreachable(_)) => None,
        Err(e) => Some(Err(e.to_string())),
    }
}

/// `clawmux remote add NAME ssh://...`: keeps the machine, then tries it and says what it found.
pub fn add(args: &HubArgs, name: &str, url: &str) -> Result<(), String> {
    let machine = MachineName::parse(name).map_err(|e| e.to_string())?;
    let target = SshTarget::parse(url).map_err(|e| e.to_string())?;
    let command = commands::MachineAdd {
        name: name.to_owned(),
        url: url.to_owned(),
    };
    match through_hub(args, command) {
        Some(done) => done?,
        None => {
            let mut machines = MachineList::load(&args.data_dir()).map_err(|e| e.to_string())?;
            machines
                .add(machine.clone(), target.clone())
                .map_err(|e| e.to_string())?;
        }
    }
    println!("added {machine} ({target})");
    let dial = Dial::new(machine, target, crate::client::MAX_ANSWER)?;
    let sessions = Client::remote(dial, Duration::from_secs(30)).call(commands::Sessions {});
    match sessions {
        Ok(sessions) => println!("reached: its hub runs, with {} agent(s)", sessions.len()),
        Err(e) => println!(
            "not reached yet: {}",
            crate::client::printable(&e.to_string())
        ),
    }
    Ok(())
}

/// `clawmux remote list`.
pub fn list(args: &HubArgs) -> Result<(), String> {
    let machines = MachineList::load(&args.data_dir()).map_err(|e| e.to_string())?;
    let mut any = false;
    for (name, at) in machines.iter() {
        println!("{name:<16} {at}");
        any = true;
    }
    if !any {
        println!("no other machine yet: clawmux remote add NAME ssh://[user@]host[:port]");
    }
    Ok(())
}

/// `clawmux remote remove NAME`: forgets the machine (its hub and agents go on there).
pub fn remove(args: &HubArgs, name: &str) -> Result<(), String> {
    let machines = MachineList::load(&args.data_dir()).map_err(|e| e.to_string())?;
    let at = machines
        .iter()
        .find(|(n, _)| n.as_str() == name)
        .map(|(_, at)| at.to_string());
    let command = commands::MachineRemove {
        name: name.to_owned(),
    };
    match through_hub(args, command) {
        Some(done) => done?,
        None => {
            let mut machines = machines;
            machines.remove(name).map_err(|e| e.to_string())?;
        }
    }
    println!(
        "removed {name} ({}); its hub and agents go on there",
        at.unwrap_or_default()
    );
    Ok(())
}
