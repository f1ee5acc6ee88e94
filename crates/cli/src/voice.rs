//! `clawmux voice models` and `clawmux voice download [MODEL]`: the on-device speech models from a
//! terminal. The hub does the download (the same one the window starts, resumable and checked); this
//! follows it with a progress line, and Ctrl-C cancels it (the partial file is kept for the next try).

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use clawmux_api::commands;
use clawmux_api::voice::ModelState;
use clawmux_api::voice::Models;
use clawmux_core::models::LocalModel;
use clawmux_core::wire::Code;

use crate::client::{CallError, Client};
use crate::env::HubArgs;

const MIB: f64 = 1024.0 * 1024.0;
/// How often the progress line is redrawn.
const REDRAW: Duration = Duration::from_millis(300);

fn models_now(client: &Client) -> Result<Models, CallError> {
    client.call(commands::VoiceModels {})
}

fn model_row(models: &Models, model: LocalModel) -> Option<&ModelState> {
    models.models.iter().find(|m| m.model == model)
}

pub fn models(args: &HubArgs) -> Result<(), String> {
    let hub = args.resolve()?;
    let client = Client::new(&hub, Duration::from_secs(5));
    let models = models_now(&client)?;
    println!("{:<10} {:>9}  STATE", "MODEL", "SIZE");
    for m in &models.models {
        let size = m.size as f64 / MIB;
        let state = if m.downloaded {
            "downloaded".to_owned()
        } else if m.downloading {
            "downloading".to_owned()
        } else if let Some(part) = m.partial {
            format!(
                "{:.0} MiB of it kept from an earlier try",
                part as f64 / MIB
            )
        } else {
            "not downloaded".to_owned()
        };
        println!("{:<10} {:>5.0} MiB  {state}", m.model.to_string(), size);
    }
    Ok(())
}

pub fn download(args: &HubArgs, model: &str) -> Result<(), String> {
    let hub = args.resolve()?;
    let client = Client::new(&hub, Duration::from_secs(5));
    let model: LocalModel = serde_json::from_value(serde_json::Value::from(model))
        .map_err(|_| format!("no model `{model}`: tiny.en, base.en or small.en"))?;
    match client.call(commands::DownloadModel { model }) {
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
            let _ = client.call(commands::CancelDownload {});
        }
        let models = models_now(&client)?;
        let row = model_row(&models, model).ok_or_else(|| format!("no model `{model}`"))?;
        let total = (row.size as f64).max(1.0);
        let model = model.to_string();
        if row.downloaded {
            println!(
                "\r{model}: {:.0} MiB, downloaded and checked.{:20}",
                total / MIB,
                ""
            );
            return Ok(());
        }
        if !row.downloading {
            println!();
            let why = row.failure.as_deref().unwrap_or("the download stopped");
            return Err(format!("{model} is not downloaded: {why}"));
        }
        let done = row.partial.unwrap_or(0) as f64;
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
