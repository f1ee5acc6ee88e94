//! The hub's error: a stable [`Code`] and a sentence for people.
//!
//! Which HTTP status fits a code is the HTTP layer's business (`http/status.rs`): the hub's operations run
//! for the browser, the agents and the desktop app's IPC alike, and only one of those speaks HTTP.

use clawmux_core::wire::Code;
use clawmux_store::StoreError;

/// An error as every transport returns it: `{"code": "...", "message": "..."}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HubError {
    /// A stable machine-readable code.
    pub code: Code,
    /// What went wrong, for people.
    pub message: String,
}

impl HubError {
    /// Builds an error.
    pub fn new(code: Code, message: impl Into<String>) -> HubError {
        HubError {
            code,
            message: message.into(),
        }
    }

    /// No such agent.
    pub fn unknown_agent(name: &str) -> HubError {
        HubError::new(Code::UnknownAgent, format!("unknown agent `{name}`"))
    }
}

impl std::fmt::Display for HubError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for HubError {}

impl From<clawmux_api::Error> for HubError {
    fn from(e: clawmux_api::Error) -> HubError {
        HubError::new(e.code, e.message)
    }
}

impl From<StoreError> for HubError {
    fn from(e: StoreError) -> HubError {
        if let StoreError::Corrupt(_)
        | StoreError::Write(_)
        | StoreError::Db(_)
        | StoreError::Migrate(_) = &e
        {
            tracing::error!(error = %e, "store failure");
        }
        HubError::new(e.code(), e.to_string())
    }
}

/// Over IPC (the desktop app) the error is the same `{code, message}` object as over HTTP.
impl serde::Serialize for HubError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = s.serialize_struct("HubError", 2)?;
        out.serialize_field("code", &self.code)?;
        out.serialize_field("message", &self.message)?;
        out.end()
    }
}
