//! The UI feed as a test watches it: every event the hub broadcasts, waited for by what it says (never by
//! time).

use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::Value;
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

/// The hub's UI feed (`/ws`), as a test reads it.
pub struct Feed {
    pub ws: WebSocket<MaybeTlsStream<TcpStream>>,
}

impl Feed {
    /// The next event matching `pred` within `within`, or `None`.
    pub fn until(&mut self, within: Duration, pred: impl Fn(&Value) -> bool) -> Option<Value> {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            match self.ws.read() {
                Ok(Message::Text(t)) => {
                    let v: Value = serde_json::from_str(&t).unwrap();
                    if pred(&v) {
                        return Some(v);
                    }
                }
                Ok(_) => {}
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(e) => panic!("feed closed: {e}"),
            }
        }
        None
    }

    /// Waits for `agent` to reach `state`; returns how long it took.
    pub fn state(&mut self, agent: &str, state: &str, within: Duration) -> Duration {
        let start = Instant::now();
        self.until(within, |v| {
            v["type"] == "session_status" && v["session_id"] == agent && v["state"] == state
        })
        .unwrap_or_else(|| panic!("{agent} did not become {state} within {within:?}"));
        start.elapsed()
    }

    /// Every event that arrives within `within`.
    pub fn drain(&mut self, within: Duration) -> Vec<Value> {
        let mut all = Vec::new();
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Some(v) =
                self.until(deadline.saturating_duration_since(Instant::now()), |_| true)
            {
                all.push(v);
            }
        }
        all
    }
}

/// Whether `v` is a status event of `agent` whose "needs you" is `need` (`None`: nothing needed).
pub fn needs_is(v: &Value, agent: &str, need: Option<&str>) -> bool {
    v["type"] == "session_status"
        && v["session_id"] == agent
        && match need {
            Some(n) => v["needs"]["need"] == n,
            None => v["needs"].is_null(),
        }
}
