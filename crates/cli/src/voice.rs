//! `clawmux voice models` and `clawmux voice download [MODEL]`: the on-device speech models from a
//! terminal. The hub does the download (the same one the window starts, resumable and checked); this
//! follows it with a progress line, and Ctrl-C cancels it (the partial file is kept for the next try).

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use clawmux_core::wire::Code;
use serde_json::{json, Value};

use crate::client::{CallError, Client};
use crate::env::HubArgs;

const MIB: f64 = 1024.0 * 1024.0;
/// How often the progress line is redrawn.
const REDRAW: Duration = Duration::from_millis(300);

fn command(client: &Client, body: Value) -> Result<Value, CallError> {
    client.post("/api/command", None, body.to_string().as_bytes())
}

fn model_row<'a>(models: &'a Value, name: &str) -> Option<&'a Value> {
    models["models"]
        .as_array()?
        .iter()
        .find(|m| m["model"] == name)
}

pub fn models(args: &HubArgs) -> Result<(), String> {
    let hub = args.resolve()?;
    let client = Client::new(&hub, Duration::from_secs(5));
    let models = command(&client, json!({"command": "voice_models"})).map_err(|e| e.to_string())?;
    println!("{:<10} {:>9}  STATE", "MODEL", "SIZE");
    for m in models["models"].as_array().into_iter().flatten() {
        let size = m["size"].as_f64().unwrap_or(0.0) / MIB;
        let state = if m["downloaded"] == true {
            "downloaded".to_owned()
        } else if m["downloading"] == true {
            "downloading".to_owned()
        } else if let Some(part) = m["partial"].as_f64() {
            format!("{:.0} MiB of it kept from an earlier try", part / MIB)
        } else {
            "not downloaded".to_owned()
        };
        println!(
            "{:<10} {:>5.0} MiB  {state}",
            m["model"].as_str().unwrap_or("?"),
            size
        );
    }
    Ok(())
}

pub fn download(args: &HubArgs, model: &str) -> Result<(), String> {
    let hub = args.resolve()?;
    let client = Client::new(&hub, Duration::from_secs(5));
    match command(
        &client,
        json!({"command": "download_model", "model": model}),
    ) {
        Ok(_) => {}
        // Already under way (from the window, say): follow it.
        Err(CallError::Api {
            code: Some(Code::DownloadInProgress),
            ..
        }) => {}
        Err(e) => return Err(e.to_string()),
    }
    let interrupted = Arc::new(AtomicBool::new(false));
    for s in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let _ = signal_hook::flag::register(s, interrupted.clone());
    }
    let mut cancelled = false;
    loop {
        if interrupted.load(Ordering::SeqCst) && !cancelled {
            cancelled = true;
            let _ = command(&client, json!({"command": "cancel_download"}));
        }
        let models =
            command(&client, json!({"command": "voice_models"})).map_err(|e| e.to_string())?;
        let row = model_row(&models, model).ok_or_else(|| format!("no model `{model}`"))?;
        let total = row["size"].as_f64().unwrap_or(1.0);
        if row["downloaded"] == true {
            println!(
                "\r{model}: {:.0} MiB, downloaded and checked.{:20}",
                total / MIB,
                ""
            );
            return Ok(());
        }
        if row["downloading"] != true {
            println!();
            let why = row["failure"].as_str().unwrap_or("the download stopped");
            return Err(format!("{model} is not downloaded: {why}"));
        }
        let done = row["partial"].as_f64().unwrap_or(0.0);
        print!(
            "\r{model}: {:>5.1}%  {:.1} of {:.1} MiB (Ctrl-C cancels; the part downloaded is kept)",
            100.0 * done / total,
            done / MIB,
            total / MIB
        );
        let _ = std::io::stdout().flush();
        std::thread::sleep(REDRAW);
    }
}
