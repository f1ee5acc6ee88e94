//! What `clawmux doctor` finds, as the command prints it with `--json` and as the window shows it ("Check
//! this machine"): one [`Check`] per thing ClawMux needs, each with its fix.

use serde::{Deserialize, Serialize};

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::EnumIter)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// As it should be.
    Ok,
    /// Works, with something the user should know.
    Warn,
    /// Broken: the fix says what to do.
    Fail,
    /// Could not be looked at here (said why).
    Skip,
}

/// One check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Check {
    /// What was checked.
    pub check: String,
    /// How it came out.
    pub status: Status,
    /// What was found.
    pub detail: String,
    /// What to do, when something is to be done.
    pub fix: Option<String>,
}

impl Check {
    /// The check, with what to do.
    pub fn fix(self, fix: impl Into<String>) -> Check {
        Check {
            fix: Some(fix.into()),
            ..self
        }
    }
}
