//! Starting the in-process hub: its data folder, and a port on 127.0.0.1 (3460, or the next free one).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use clawmux_hub::Hub;

/// The ports tried, in order: the default, then the next ones.
const PORTS: std::ops::RangeInclusive<u16> = 3460..=3479;

/// The app's state: the hub if it started, or why it did not.
pub struct Desktop {
    /// The running hub.
    pub hub: Result<Hub, String>,
    /// Its port.
    pub port: Option<u16>,
    /// The agent the window shows, when the window has focus (no notification for it).
    pub viewing: Mutex<Option<String>>,
}

/// `--data-dir DIR`, else `$CLAWMUX_HOME`, else `~/.clawmux`. (tauri-driver starts the app with almost no
/// environment, so tests pass the folder as an argument.)
pub fn data_dir_from_args(mut args: impl Iterator<Item = String>) -> PathBuf {
    while let Some(arg) = args.next() {
        if arg == "--data-dir" {
            if let Some(dir) = args.next() {
                return PathBuf::from(dir);
            }
        } else if let Some(dir) = arg.strip_prefix("--data-dir=") {
            return PathBuf::from(dir);
        }
    }
    clawmux_hub::config::default_data_dir()
}

/// Opens the hub and serves it on the first free port of [`PORTS`]. Never fails: a hub that cannot start
/// is reported to the window, which shows why instead of a blank page.
pub async fn start_hub(data_dir: &Path) -> Desktop {
    let failed = |why: String| Desktop {
        hub: Err(why),
        port: None,
        viewing: Mutex::new(None),
    };
    let hub = match Hub::open(data_dir).await {
        Ok(hub) => hub,
        Err(e) => {
            return failed(format!(
                "The hub could not open {}: {}",
                data_dir.display(),
                e.message
            ))
        }
    };
    let mut last_error = String::new();
    for port in PORTS {
        match tokio::net::TcpListener::bind(("127.0.0.1", port)).await {
            Ok(listener) => {
                let serving = hub.clone();
                tauri::async_runtime::spawn(async move {
                    if let Err(e) =
                        clawmux_hub::serve(listener, serving, std::future::pending()).await
                    {
                        tracing::error!(error = %e, "the hub stopped serving");
                    }
                });
                tracing::info!(port, data_dir = %data_dir.display(), "hub started");
                return Desktop {
                    hub: Ok(hub),
                    port: Some(port),
                    viewing: Mutex::new(None),
                };
            }
            Err(e) => last_error = e.to_string(),
        }
    }
    failed(format!(
        "No port from {} to {} on 127.0.0.1 is free ({last_error}). Is another program using them?",
        PORTS.start(),
        PORTS.end()
    ))
}
