//! The hub's error: a stable code, a sentence for people, and the HTTP status that fits.

pub use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use clawmux_store::StoreError;

/// An error as the API returns it: `{"code": "...", "message": "..."}` with a fitting status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// A stable machine-readable code.
    pub code: &'static str,
    /// What went wrong, for people.
    pub message: String,
}

impl ApiError {
    /// Builds an error.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }

    /// 400: the request itself is wrong.
    pub fn bad_request(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, message)
    }

    /// 404: no such agent.
    pub fn unknown_agent(name: &str) -> ApiError {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "unknown_agent",
            format!("unknown agent `{name}`"),
        )
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for ApiError {}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        let status = match &e {
            StoreError::UnknownAgent(_) => StatusCode::NOT_FOUND,
            StoreError::AgentExists(_) | StoreError::KeyReused(_) => StatusCode::CONFLICT,
            StoreError::BadName(_)
            | StoreError::UnknownCursor(_)
            | StoreError::UnknownParent(_)
            | StoreError::Import(_) => StatusCode::BAD_REQUEST,
            StoreError::Corrupt(_)
            | StoreError::Write(_)
            | StoreError::Db(_)
            | StoreError::Migrate(_) => {
                tracing::error!(error = %e, "store failure");
                StatusCode::INTERNAL_SERVER_ERROR
            }
        };
        ApiError::new(status, e.code(), e.to_string())
    }
}

/// Over IPC (the desktop app) the error is the same `{code, message}` object as over HTTP.
impl serde::Serialize for ApiError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = s.serialize_struct("ApiError", 2)?;
        out.serialize_field("code", self.code)?;
        out.serialize_field("message", &self.message)?;
        out.end()
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "code": self.code, "message": self.message });
        (self.status, axum::Json(body)).into_response()
    }
}
