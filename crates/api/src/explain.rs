//! A wrong indicator's case file, asked for and answered (`clawmux report`).

use std::path::PathBuf;

use clawmux_core::report::CaseFile;
use clawmux_core::Millis;
use serde::{Deserialize, Serialize};

/// What `report` is asked for.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportRequest {
    /// The agent.
    pub session_id: String,
    /// How far back the span goes, in milliseconds (default ten minutes).
    #[serde(default)]
    pub since_ms: Option<u64>,
    /// The end of the span (default now): a preview and its save name the same span.
    #[serde(default)]
    pub until: Option<Millis>,
    /// What the user says was right (`idle`, `working`, `needs:answer`, `not-needed`, ...).
    #[serde(default)]
    pub right: Option<String>,
    /// Keep message texts, tool inputs and paths (they are redacted otherwise).
    #[serde(default)]
    pub keep: bool,
    /// Save it in the data folder's `reports/` (the window's "Save"); otherwise only return it.
    #[serde(default)]
    pub save: bool,
}

/// A report, as returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Report {
    /// The file and what was taken out.
    #[serde(flatten)]
    pub file: CaseFile,
    /// The span's end, to ask for the same span again.
    pub until: Millis,
    /// Where it was saved, when it was.
    pub path: Option<PathBuf>,
}
