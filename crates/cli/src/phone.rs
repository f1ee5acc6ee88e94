//! `clawmux phone`: lets the user's phones reach the agents (through the user's own tunnel), offers a
//! pairing link, lists the phones paired and revokes one, and sets the address of the user's own where the
//! hub listens for phones over TLS (`docs/PHONE.md`).

use std::path::PathBuf;
use std::time::Duration;

use clawmux_api::commands;
use clawmux_api::phone::CertificateFiles;
use clawmux_api::phone::{Listening, Pairing, PhoneAddress, PhoneStatus};

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
    /// Sets (or with none clears) where the hub listens for phones itself.
    Address(Option<PhoneAddress>),
    /// Sets (or with none clears) who runs the hub, as pushes name it.
    Contact(Option<String>),
}

/// The address `listen` (`ADDRESS:PORT` or `off`) names, with its name and the user's certificate
/// files (made absolute here, where the relative path means something).
pub fn address(
    listen: &str,
    name: Option<String>,
    certificate: Option<(PathBuf, PathBuf)>,
) -> Result<Option<PhoneAddress>, String> {
    if listen == "off" {
        return Ok(None);
    }
    let listen = listen.parse().map_err(|_| {
        format!("`{listen}` is not ADDRESS:PORT (e.g. 100.101.102.103:3461), nor `off`")
    })?;
    let absolute =
        |p: PathBuf| std::path::absolute(&p).map_err(|e| format!("{}: {e}", p.display()));
    let certificate = match certificate {
        Some((cert, key)) => Some(CertificateFiles {
            cert: absolute(cert)?,
            key: absolute(key)?,
        }),
        None => None,
    };
    Ok(Some(PhoneAddress {
        listen,
        name,
        certificate,
    }))
}

/// Runs `what`.
pub fn run(args: &HubArgs, what: Phone) -> Result<(), String> {
    let client = Client::of(args, Duration::from_secs(30))?;
    let status: PhoneStatus = match what {
        Phone::On => client.call(commands::SetPhone { on: true })?,
        Phone::Off => client.call(commands::SetPhone { on: false })?,
        Phone::Status => client.call(commands::Phone {})?,
        Phone::Revoke(phone) => client.call(commands::PhoneRevoke { phone })?,
        Phone::Address(address) => client.call(commands::SetPhoneAddress { address })?,
        Phone::Contact(contact) => client.call(commands::SetPushContact { contact })?,
        Phone::Pair => {
            let pairing: Pairing = client.call(commands::PhonePair {})?;
            println!(
                "open on the phone, within {} minutes:",
                pairing.expires_in / 60
            );
            println!("{}", pairing.link);
            if let Some(print) = &pairing.made_here {
                println!("(the phone's browser will warn about this desktop's own certificate: go on only if its SHA-256 fingerprint is {print})");
            } else if pairing.link.starts_with("http://127.0.0.1:") {
                println!(
                    "(the phone reaches this address through a tunnel to this machine: docs/PHONE.md)"
                );
            }
            return Ok(());
        }
    };
    print(&status);
    Ok(())
}

fn print(status: &PhoneStatus) {
    println!("phones: {}", if status.on { "on" } else { "off" });
    match (&status.address, &status.listening) {
        (_, Listening::At { url, made_here }) => {
            println!("listening for phones at {url}");
            if let Some(print) = made_here {
                println!("  with this desktop's own certificate, SHA-256 {print}");
            }
        }
        (_, Listening::Failed { reason }) => {
            println!("cannot listen for phones: {}", printable(reason));
        }
        (Some(address), Listening::No) => {
            println!("phones' address {} (when phones are on)", address.listen);
        }
        (None, Listening::No) => {}
    }
    if let Some(contact) = &status.push_contact {
        println!("pushes name {} as who runs this hub", contact.as_str());
    }
    for p in &status.phones {
        let state = match (p.revoked_at, p.used_at) {
            (Some(_), _) => "revoked".to_owned(),
            (None, Some(at)) => format!("last used {}", crate::timeline::show(at)),
            (None, None) => "never used".to_owned(),
        };
        println!("  {}  {}  {state}", p.id, printable(&p.name));
    }
}
