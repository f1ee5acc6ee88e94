//! `clawmux phone`: lets the user's phones reach the agents (through the user's own tunnel), offers a
//! pairing link, lists the phones paired and revokes one (`docs/PHONE.md`).

use std::time::Duration;

use clawmux_hub::commands::Command;
use clawmux_hub::phone::{Pairing, PhoneStatus};

use crate::client::{printable, Client};
use crate::env::HubArgs;

/// What `clawmux phone` does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phone {
    /// Lets phones reach the hub.
    On,
    /// Shuts every phone out.
    Off,
    /// Says whether phones are on, and lists the phones paired.
    Status,
    /// Prints a pairing link (one code, good once, for minutes).
    Pair,
    /// Revokes a phone.
    Revoke(String),
}

/// Runs `what`.
pub fn run(args: &HubArgs, what: Phone) -> Result<(), String> {
    let client = Client::of(args, Duration::from_secs(30))?;
    let status: PhoneStatus = match what {
        Phone::On => client.command(&Command::SetPhone { on: true })?,
        Phone::Off => client.command(&Command::SetPhone { on: false })?,
        Phone::Status => client.command(&Command::Phone {})?,
        Phone::Revoke(phone) => client.command(&Command::PhoneRevoke { phone })?,
        Phone::Pair => {
            let pairing: Pairing = client.command(&Command::PhonePair {})?;
            println!(
                "open on the phone, within {} minutes:",
                pairing.expires_in / 60
            );
            println!("{}", pairing.link);
            println!(
                "(the phone reaches this address through a tunnel to this machine: docs/PHONE.md)"
            );
            return Ok(());
        }
    };
    print(&status);
    Ok(())
}

fn print(status: &PhoneStatus) {
    println!("phones: {}", if status.on { "on" } else { "off" });
    for p in &status.phones {
        let state = match (p.revoked_at, p.used_at) {
            (Some(_), _) => "revoked".to_owned(),
            (None, Some(at)) => format!("last used {}", crate::timeline::show(at)),
            (None, None) => "never used".to_owned(),
        };
        println!("  {}  {}  {state}", p.id, printable(&p.name));
    }
}
