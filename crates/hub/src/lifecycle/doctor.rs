//! "Check this machine": the window's and the browser's way to `clawmux doctor`, where "This looks wrong"
//! and the first screen point. The hub runs the `clawmux` it starts agents with, on its own data folder, so
//! the checks see the machine as the hub and its agents do; one list of checks, kept in the command.

use std::process::Stdio;
use std::time::Duration;

use clawmux_api::doctor::Check;
use clawmux_core::wire::Code;

use super::Lifecycle;
use crate::error::HubError;

/// The longest the checks may take (each program they ask answers at once, or is not there).
const DOCTOR_TAKES: Duration = Duration::from_secs(30);

impl Lifecycle {
    /// What `clawmux doctor --json` finds on this machine, each with its fix.
    pub async fn doctor(&self) -> Result<Vec<Check>, HubError> {
        let failed = |e: &dyn std::fmt::Display| {
            HubError::new(
                Code::Internal,
                format!("`clawmux doctor` could not run: {e}"),
            )
        };
        let run = tokio::process::Command::new(&self.options.clawmux)
            .args(["doctor", "--json"])
            .env("CLAWMUX_HOME", &*self.data_dir)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .output();
        let out = tokio::time::timeout(DOCTOR_TAKES, run)
            .await
            .map_err(|_| failed(&format!("no answer within {} s", DOCTOR_TAKES.as_secs())))?
            .map_err(|e| failed(&e))?;
        // A failed check exits 1 and still prints every check.
        serde_json::from_slice(&out.stdout)
            .map_err(|e| failed(&format!("it printed something else ({e})")))
    }
}
