//! A small blocking HTTP client for the hub's API (ureq), with the token and the short timeouts hooks need.

use std::time::Duration;

use serde_json::Value;

use crate::env::HubAddr;

/// Why a call failed.
#[derive(Debug)]
pub enum CallError {
    /// The hub could not be reached (not running, wrong port, timed out).
    Unreachable(String),
    /// The hub answered with an error.
    Api {
        /// HTTP status.
        status: u16,
        /// Its code.
        code: String,
        /// Its message.
        message: String,
    },
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Unreachable(why) => write!(f, "the hub is not reachable: {why}"),
            CallError::Api { code, message, .. } => write!(f, "{message} ({code})"),
        }
    }
}

/// A client for one hub.
pub struct Client {
    agent: ureq::Agent,
    base: String,
    bearer: String,
}

impl Client {
    /// A client whose every call gives up after `timeout`.
    pub fn new(hub: &HubAddr, timeout: Duration) -> Client {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .timeout_connect(Some(timeout.min(Duration::from_millis(500))))
            .http_status_as_error(false)
            // The hub is on loopback: never send its token through a proxy from the environment.
            .proxy(None)
            .build()
            .into();
        Client {
            agent,
            base: format!("http://127.0.0.1:{}", hub.port),
            bearer: format!("Bearer {}", hub.token),
        }
    }

    /// `POST path` with a JSON body, as `session` when given.
    pub fn post(&self, path: &str, session: Option<&str>, body: &[u8]) -> Result<Value, CallError> {
        let mut req = self
            .agent
            .post(format!("{}{path}", self.base))
            .header("Authorization", &self.bearer)
            .header("Content-Type", "application/json");
        if let Some(s) = session {
            req = req.header("ClawMux-Session", s);
        }
        Self::answer(req.send(body))
    }

    /// `GET path`.
    pub fn get(&self, path: &str) -> Result<Value, CallError> {
        let req = self
            .agent
            .get(format!("{}{path}", self.base))
            .header("Authorization", &self.bearer);
        Self::answer(req.call())
    }

    /// `GET path`, for an answer that is text rather than one JSON value (JSON lines).
    pub fn get_text(&self, path: &str) -> Result<String, CallError> {
        let resp = self
            .agent
            .get(format!("{}{path}", self.base))
            .header("Authorization", &self.bearer)
            .call();
        let mut resp = resp.map_err(|e| CallError::Unreachable(e.to_string()))?;
        let status = resp.status().as_u16();
        let text = resp
            .body_mut()
            .with_config()
            .limit(256 * 1024 * 1024)
            .read_to_string()
            .map_err(|e| CallError::Unreachable(e.to_string()))?;
        if (200..300).contains(&status) {
            return Ok(text);
        }
        let value: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let field = |k: &str| value.get(k).and_then(Value::as_str).map(str::to_owned);
        Err(CallError::Api {
            status,
            code: field("code").unwrap_or_else(|| "http_error".into()),
            message: field("message").unwrap_or_else(|| format!("HTTP {status}")),
        })
    }

    fn answer(
        resp: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    ) -> Result<Value, CallError> {
        let mut resp = resp.map_err(|e| CallError::Unreachable(e.to_string()))?;
        let status = resp.status().as_u16();
        let text = resp
            .body_mut()
            .read_to_string()
            .map_err(|e| CallError::Unreachable(e.to_string()))?;
        let value: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        if (200..300).contains(&status) {
            return Ok(value);
        }
        let field = |k: &str| value.get(k).and_then(Value::as_str).map(str::to_owned);
        Err(CallError::Api {
            status,
            code: field("code").unwrap_or_else(|| "http_error".into()),
            message: field("message").unwrap_or_else(|| format!("HTTP {status}")),
        })
    }
}
