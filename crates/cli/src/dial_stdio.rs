//! `clawmux dial-stdio`: what another machine's `clawmux --machine` runs here over ssh. It connects its
//! standard input and output to this machine's hub (its private socket), starting the hub if it does not
//! run, after one line of hello: this `clawmux`'s version, the dial's version, and the hub's token.
//!
//! The token goes only down the SSH channel of a client that logged in as this user, who could read the
//! token file anyway; it never appears on a command line or in an environment.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use clawmux_core::remote::{Hello, DIAL_VERSION};

use crate::env::HubArgs;

/// How long a hub started here may take to serve.
const START_WITHIN: Duration = Duration::from_secs(20);

/// Connects standard input and output to the hub until either side ends.
pub fn run(args: &HubArgs) -> Result<(), String> {
    let data_dir = args.data_dir();
    let socket = clawmux_core::layout::socket_path(&data_dir);
    let stream = match UnixStream::connect(&socket) {
        Ok(s) => s,
        Err(_) => {
            start_hub(args, &data_dir)?;
            wait_for(&socket)?
        }
    };
    let hub = args.resolve()?;
    let hello = Hello {
        clawmux: env!("CARGO_PKG_VERSION").to_owned(),
        dial: DIAL_VERSION,
        token: hub.token.unwrap_or_default(),
    };
    let mut out = std::io::stdout().lock();
    let line = serde_json::to_string(&hello).map_err(|e| e.to_string())?;
    writeln!(out, "{line}")
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write to standard output: {e}"))?;
    let mut to_hub = stream
        .try_clone()
        .map_err(|e| format!("the hub's socket: {e}"))?;
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut to_hub);
        let _ = to_hub.shutdown(std::net::Shutdown::Write);
    });
    let mut from_hub = stream;
    let mut chunk = [0u8; 64 * 1024];
    loop {
        match from_hub.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                if out
                    .write_all(&chunk[..n])
                    .and_then(|()| out.flush())
                    .is_err()
                {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    Ok(())
}

/// Starts `clawmux serve` for this data folder, detached from the ssh session (a process group of its
/// own, its output in `hub.log` there), so that it outlives the dial.
fn start_hub(args: &HubArgs, data_dir: &Path) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find clawmux itself: {e}"))?;
    clawmux_hub::config::make_private(data_dir)
        .map_err(|e| format!("cannot make the data folder {}: {e}", data_dir.display()))?;
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(data_dir.join("hub.log"))
        .map_err(|e| format!("cannot open the hub's log: {e}"))?;
    let err = log.try_clone().map_err(|e| e.to_string())?;
    let mut serve = Command::new(exe);
    serve
        .arg("serve")
        .arg("--port")
        .arg(args.port.to_string())
        .arg("--data-dir")
        .arg(data_dir)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(err);
    // A process group of its own: nothing sent to the dial's group (the session ending) reaches it, and
    // its standard streams are not the session's pipes.
    serve.process_group(0);
    serve
        .spawn()
        .map(drop)
        .map_err(|e| format!("cannot start the hub here: {e}"))
}

/// Waits for a hub just started to serve on its socket.
fn wait_for(socket: &Path) -> Result<UnixStream, String> {
    let deadline = Instant::now() + START_WITHIN;
    loop {
        match UnixStream::connect(socket) {
            Ok(s) => return Ok(s),
            Err(e) if Instant::now() >= deadline => {
                return Err(format!(
                    "the hub started here did not serve within {START_WITHIN:?} ({e}); see hub.log in its data folder"
                ))
            }
            Err(_) => std::thread::sleep(Duration::from_millis(25)),
        }
    }
}
