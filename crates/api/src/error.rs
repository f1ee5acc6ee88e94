//! The error every transport answers with, `{"code": "...", "message": "..."}`: a stable [`Code`] and a
//! sentence for people. What the protocol's own rules refuse (a phone's address that is not one, a push
//! contact that is not one) is refused with it; the hub turns it into its own error.

use clawmux_core::wire::Code;
use serde::{Deserialize, Serialize};

/// An error as the hub answers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Error {
    /// A stable machine-readable code.
    pub code: Code,
    /// What went wrong, for people.
    pub message: String,
}

impl Error {
    /// Builds an error.
    pub fn new(code: Code, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for Error {}
