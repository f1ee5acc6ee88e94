//! Starting the in-process hub: its data folder, and a port on 127.0.0.1 (3460, or the next free one).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use clawmux_capture::Source;
use clawmux_hub::Hub;

use crate::desktop::Desktop;
use crate::recorder::Recorder;

/// The ports tried, in order: the default, then the next ones.
const PORTS: std::ops::RangeInclusive<u16> = 3460..=3479;

/// The app's command line.
#[derive(Debug, PartialEq, Eq)]
pub struct Args {
    /// `--data-dir DIR`, else `$CLAWMUX_HOME`, else `~/.clawmux`. (tauri-driver starts the app with almost
    /// no environment, so tests pass the folder as an argument.)
    pub data_dir: PathBuf,
    /// `--microphone-file FILE.wav`: push-to-talk plays this file instead of using the microphone (for
    /// tests, and for trying voice on a machine without one).
    pub microphone: Source,
}

impl Args {
    /// Reads the arguments after the program's name; anything else is left to Tauri and its plugins.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Args {
        let mut data_dir = None;
        let mut microphone = Source::Microphone;
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let (name, inline) = match arg.split_once('=') {
                Some((name, value)) => (name.to_owned(), Some(value.to_owned())),
                None => (arg, None),
            };
            let mut value = || inline.clone().or_else(|| args.next());
            match name.as_str() {
                "--data-dir" => data_dir = value().map(PathBuf::from),
                "--microphone-file" => {
                    if let Some(file) = value() {
                        microphone = Source::File(PathBuf::from(file));
                    }
                }
                _ => {}
            }
        }
        Args {
            data_dir: data_dir.unwrap_or_else(clawmux_core::layout::default_data_dir),
            microphone,
        }
    }
}

/// Opens the hub and serves it on the first free port of [`PORTS`]. Never fails: a hub that cannot start
/// is reported to the window, which shows why instead of a blank page.
pub async fn start_hub(data_dir: &Path, microphone: Source) -> Desktop {
    let recorder = Recorder::new(microphone);
    let failed = |why: String| Desktop {
        hub: Err(why),
        port: None,
        viewing: Mutex::new(None),
        recorder: recorder.clone(),
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
        match clawmux_hub::http::peers::Loopback::bind(port).await {
            Ok(listeners) => {
                let serving = hub.clone();
                tauri::async_runtime::spawn(async move {
                    if let Err(e) =
                        clawmux_hub::serve(listeners, serving, std::future::pending()).await
                    {
                        tracing::error!(error = %e, "the hub stopped serving");
                    }
                });
                tracing::info!(port, data_dir = %data_dir.display(), "hub started");
                return Desktop {
                    hub: Ok(hub),
                    port: Some(port),
                    viewing: Mutex::new(None),
                    recorder,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Args {
        Args::parse(args.iter().map(|a| (*a).to_owned()))
    }

    #[test]
    fn the_data_folder_and_the_microphone_file_in_either_spelling() {
        let args = parse(&["--data-dir", "/d", "--microphone-file=/s.wav"]);
        assert_eq!(args.data_dir, PathBuf::from("/d"));
        assert_eq!(args.microphone, Source::File(PathBuf::from("/s.wav")));
        let args = parse(&["--data-dir=/e", "--other", "--microphone-file", "/t.wav"]);
        assert_eq!(args.data_dir, PathBuf::from("/e"));
        assert_eq!(args.microphone, Source::File(PathBuf::from("/t.wav")));
        assert_eq!(parse(&["--verbose"]).microphone, Source::Microphone);
    }
}
