//! What an agent costs and how full its context is, and how much of the account's limits is gone: read from
//! the payload Claude Code hands a status-line command at each refresh, checked, and turned into the
//! figures the sidebar, the header and `clawmux usage` show.
//!
//! Pure: the caller hands in the time. A payload is taken whole or not at all: one figure out of range
//! (a percentage over 100, a negative or fractional token count, a cost that is not a finite non-negative
//! number, a reset time before 2020 or past 2100), or none of the status line's fields at all, refuses it,
//! so a bad payload never moves a figure.
//!
//! Tokens have one source of truth: the transcript's answers, each counted once by its `message.id`. The
//! status line's `context_window.total_input_tokens` / `total_output_tokens` describe the latest response
//! only (Claude Code 2.1.330), so summing their changes undercounts; they are checked and not counted.
//!
//! Long: the status line's payload and what is derived from it are one format, read and checked together.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Millis;

/// The two limit windows of a subscription account, as Claude Code names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Window {
    /// The 5-hour window.
    FiveHour,
    /// The 7-day window.
    SevenDay,
}

impl Window {
    /// Both windows, shortest first.
    pub const ALL: [Window; 2] = [Window::FiveHour, Window::SevenDay];

    /// The name in the payload and on the wire.
    pub fn name(self) -> &'static str {
        match self {
            Window::FiveHour => "five_hour",
            Window::SevenDay => "seven_day",
        }
    }

    /// How long the window is.
    pub fn length_ms(self) -> i64 {
        match self {
            Window::FiveHour => 5 * 3_600_000,
            Window::SevenDay => 7 * 86_400_000,
        }
    }
}

/// Tokens, as Claude Code counts them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    /// Input tokens sent in all (cached or not): the sum over the transcript's answers.
    pub input: u64,
    /// Output tokens received in all: the sum over the transcript's answers.
    pub output: u64,
    /// Of the latest request's input, read from the prompt cache.
    pub cache_read: u64,
    /// Of the latest request's input, written to the prompt cache.
    pub cache_write: u64,
}

/// How full the context window is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Context {
    /// Tokens in the context now (the latest request's input, cached or not).
    pub used: u64,
    /// The window's size.
    pub size: u64,
    /// Percent used, as Claude Code reckons it.
    pub percent: u8,
}

/// One limit window of the account.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Limit {
    /// Which.
    pub window: Window,
    /// Percent used (0-100).
    pub percent: f64,
    /// When it resets.
    pub resets_at: Millis,
}

/// What one status-line payload says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// When the hub received it.
    pub at: Millis,
    /// The Claude Code session the status line reported (a new one counts its cost from zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The model's name for people (`Opus 5.5`), else its id.
    pub model: Option<String>,
    /// The context window, once the first answer came.
    pub context: Option<Context>,
    /// Tokens used.
    pub tokens: Tokens,
    /// Claude Code's estimate of the session's cost, in US dollars (at list price).
    pub cost_usd: Option<f64>,
    /// The account's limit windows (subscription accounts only, after the first answer).
    pub limits: Vec<Limit>,
}

/// One agent's figures, as the sidebar, the header and `clawmux usage` show them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentUsage {
    /// The agent.
    pub session_id: String,
    /// The latest sample.
    #[serde(flatten)]
    pub sample: Sample,
    /// The sidebar's line (`48% · 96k/200k · $1.20`).
    pub line: String,
    /// Rate-limited: since when, and until when if known.
    pub limited: Option<Limited>,
    /// The user asked that it continue when the limit that stopped it resets.
    #[serde(default)]
    pub continues: bool,
}

/// An agent held by the account's limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limited {
    /// When Claude Code said so.
    pub since: Millis,
    /// When the window at its limit resets, if the account's figures say which.
    pub until: Option<Millis>,
    /// When ClawMux will continue it, if the user asked for that and the reset is known.
    #[serde(default)]
    pub continues_at: Option<Millis>,
}

/// One limit window of the account, with where its pace leads.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LimitView {
    /// The window, its use and its reset.
    #[serde(flatten)]
    pub limit: Limit,
    /// When it is reached at the pace since its period began (as far as the hub saw it), if before it
    /// resets.
    pub reached_at: Option<Millis>,
}

/// The account's limits as last reported (empty for an API key, and before the first answer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Account {
    /// Each window reported.
    pub limits: Vec<LimitView>,
    /// When they were last reported.
    pub at: Option<Millis>,
}

/// What one answer of the model used, as the transcript's assistant line says (`message.usage`): where no
/// status-line payload comes (older Claude Code versions), the tokens come from here. An answer written as
/// several lines repeats its `message.id` and usage, so it is counted once by its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Used {
    /// `message.id`.
    pub message_id: String,
    /// `message.model`.
    pub model: Option<String>,
    /// Input tokens not read from or written to the cache.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Input read from the prompt cache.
    pub cache_read: u64,
    /// Input written to the prompt cache.
    pub cache_write: u64,
}

impl Used {
    /// From a transcript line's `message`; `None` without an id or a usage of whole counts.
    pub fn of_message(message: &Value) -> Option<Used> {
        let usage = message.get("usage")?;
        let n = |name: &str| match usage.get(name) {
            None | Some(Value::Null) => Some(0),
            Some(v) => v.as_u64(),
        };
        Some(Used {
            message_id: message.get("id")?.as_str()?.chars().take(128).collect(),
            model: message
                .get("model")
                .and_then(Value::as_str)
                .map(|m| m.chars().take(80).collect()),
            input: n("input_tokens")?,
            output: n("output_tokens")?,
            cache_read: n("cache_read_input_tokens")?,
            cache_write: n("cache_creation_input_tokens")?,
        })
    }
}

impl Sample {
    /// `earlier` (the figures so far, if any) with one more answer of the model added to the tokens, at
    /// `at`; every other figure is the status line's and stays.
    pub fn with_answer(earlier: Option<&Sample>, used: &Used, at: Millis) -> Sample {
        let before = earlier.map(|e| e.tokens).unwrap_or_default();
        Sample {
            at,
            session: earlier.and_then(|e| e.session.clone()),
            model: earlier
                .and_then(|e| e.model.clone())
                .or_else(|| used.model.clone()),
            context: earlier.and_then(|e| e.context),
            tokens: Tokens {
                input: before.input + used.input + used.cache_read + used.cache_write,
                output: before.output + used.output,
                cache_read: used.cache_read,
                cache_write: used.cache_write,
            },
            cost_usd: earlier.and_then(|e| e.cost_usd),
            limits: earlier.map(|e| e.limits.clone()).unwrap_or_default(),
        }
    }

    /// Whether `self`, a status line's payload, is an older refresh of `earlier`'s session that arrived
    /// late (each refresh is a process of its own): the same session, with less spent.
    pub fn is_stale(&self, earlier: &Sample) -> bool {
        let same = self.session.is_some() && self.session == earlier.session;
        same && self.cost_usd.unwrap_or(0.0) < earlier.cost_usd.unwrap_or(0.0)
    }

    /// Whether `self`, a status line's payload, reports another Claude Code session than `earlier` (a
    /// new one counts its cost from zero). Without ids, a cost below the one before says so.
    pub fn is_new_session(&self, earlier: &Sample) -> bool {
        match (&self.session, &earlier.session) {
            (Some(a), Some(b)) => a != b,
            _ => self.cost_usd.unwrap_or(0.0) < earlier.cost_usd.unwrap_or(0.0),
        }
    }
}

/// Why a payload was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UsageError {
    /// Not a JSON object.
    #[error("the status-line payload is not a JSON object")]
    NotJson,
    /// A figure that cannot be right.
    #[error("`{0}` is out of range")]
    OutOfRange(&'static str),
    /// None of the status line's fields (`model`, `context_window`, `cost`).
    #[error("not a status-line payload: it has none of `model`, `context_window`, `cost`")]
    NotStatusLine,
}

/// The earliest and latest reset times taken as real (2020 to 2100).
const RESET_RANGE: std::ops::RangeInclusive<i64> = 1_577_836_800..=4_102_444_800;

fn count(v: Option<&Value>, name: &'static str) -> Result<u64, UsageError> {
    match v {
        None | Some(Value::Null) => Ok(0),
        Some(v) => v.as_u64().ok_or(UsageError::OutOfRange(name)),
    }
}

fn percent(v: Option<&Value>, name: &'static str) -> Result<Option<f64>, UsageError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_f64() {
            Some(p) if (0.0..=100.0).contains(&p) => Ok(Some(p)),
            _ => Err(UsageError::OutOfRange(name)),
        },
    }
}

impl Sample {
    /// Reads a status-line payload received at `at`.
    /// Long: the status line's payload read field by field, each range-checked where it is read.
    pub fn parse(body: &[u8], at: Millis) -> Result<Sample, UsageError> {
        let v: Value = serde_json::from_slice(body).map_err(|_| UsageError::NotJson)?;
        let v = v.as_object().ok_or(UsageError::NotJson)?;
        if !["model", "context_window", "cost"]
            .iter()
            .any(|f| v.get(*f).is_some_and(|x| !x.is_null()))
        {
            return Err(UsageError::NotStatusLine);
        }
        let session = v
            .get("session_id")
            .and_then(Value::as_str)
            .map(|s| s.chars().take(128).collect::<String>());
        let model = v.get("model").and_then(|m| {
            m.get("display_name")
                .or_else(|| m.get("id"))
                .and_then(Value::as_str)
                .map(|s| s.chars().take(80).collect::<String>())
        });
        let cw = v.get("context_window");
        let field = |name: &str| cw.and_then(|c| c.get(name));
        let current = field("current_usage").filter(|c| !c.is_null());
        let now = |name: &str| current.and_then(|c| c.get(name));
        // The latest response's, not the session's: checked, and not counted (the transcript counts).
        count(
            field("total_input_tokens"),
            "context_window.total_input_tokens",
        )?;
        count(
            field("total_output_tokens"),
            "context_window.total_output_tokens",
        )?;
        let tokens = Tokens {
            input: 0,
            output: 0,
            cache_read: count(
                now("cache_read_input_tokens"),
                "current_usage.cache_read_input_tokens",
            )?,
            cache_write: count(
                now("cache_creation_input_tokens"),
                "current_usage.cache_creation_input_tokens",
            )?,
        };
        let size = count(field("context_window_size"), "context_window_size")?;
        let used_percent = percent(field("used_percentage"), "used_percentage")?;
        let context = match (current, used_percent) {
            (Some(_), Some(p)) if size > 0 => {
                let used = count(now("input_tokens"), "current_usage.input_tokens")?
                    .saturating_add(tokens.cache_read)
                    .saturating_add(tokens.cache_write);
                Some(Context {
                    used,
                    size,
                    // A value checked to be in 0..=100.
                    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                    percent: p.round() as u8,
                })
            }
            _ => None,
        };
        let cost_usd = match v.get("cost").and_then(|c| c.get("total_cost_usd")) {
            None | Some(Value::Null) => None,
            Some(c) => match c.as_f64() {
                Some(c) if c.is_finite() && (0.0..1e7).contains(&c) => Some(c),
                _ => return Err(UsageError::OutOfRange("cost.total_cost_usd")),
            },
        };
        let mut limits = Vec::new();
        if let Some(rl) = v.get("rate_limits").filter(|r| !r.is_null()) {
            for window in Window::ALL {
                let Some(w) = rl.get(window.name()).filter(|w| !w.is_null()) else {
                    continue;
                };
                let Some(p) = percent(w.get("used_percentage"), "rate_limits.used_percentage")?
                else {
                    continue;
                };
                let resets = w
                    .get("resets_at")
                    .and_then(Value::as_i64)
                    .filter(|s| RESET_RANGE.contains(s))
                    .ok_or(UsageError::OutOfRange("rate_limits.resets_at"))?;
                limits.push(Limit {
                    window,
                    percent: p,
                    resets_at: Millis(resets * 1000),
                });
            }
        }
        Ok(Sample {
            at,
            session,
            model,
            context,
            tokens,
            cost_usd,
            limits,
        })
    }

    /// Whether `self` tells something `earlier` did not (a figure moved): only those are kept in history.
    pub fn differs(&self, earlier: &Sample) -> bool {
        self.model != earlier.model
            || self.context != earlier.context
            || self.tokens != earlier.tokens
            || self.cost_usd != earlier.cost_usd
            || self.limits != earlier.limits
    }

    /// Whether the context filled past `threshold` percent between `earlier` and `self` (it was below, or
    /// unknown, and is at or above now): the moment to tell the user that auto-compaction nears. A context
    /// that shrank (compacted, a new session) and fills again crosses again. A threshold of 0 is off.
    pub fn context_crossed(&self, earlier: Option<&Sample>, threshold: u8) -> bool {
        let before = earlier.and_then(|e| e.context).map_or(0, |c| c.percent);
        let now = self.context.map_or(0, |c| c.percent);
        threshold > 0 && before < threshold && now >= threshold
    }

    /// The sidebar's line: `48% · 96k/200k · $1.20` (what is known of it).
    pub fn line(&self) -> String {
        let mut parts = Vec::new();
        if let Some(c) = self.context {
            parts.push(format!("{}%", c.percent));
            parts.push(format!("{}/{}", short(c.used), short(c.size)));
        }
        if let Some(cost) = self.cost_usd {
            parts.push(format!("${cost:.2}"));
        }
        if parts.is_empty() && self.tokens.input + self.tokens.output > 0 {
            // The transcript's tokens alone (no status line): what there is.
            parts.push(format!(
                "in {} · out {}",
                short(self.tokens.input),
                short(self.tokens.output)
            ));
        }
        parts.join(" · ")
    }
}

/// A count for people: `950`, `96k`, `1.2M`.
pub fn short(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=999_999 => format!("{}k", (n + 500) / 1000),
        _ => {
            let tenths = (n + 50_000) / 100_000;
            if tenths.is_multiple_of(10) {
                format!("{}M", tenths / 10)
            } else {
                format!("{}.{}M", tenths / 10, tenths % 10)
            }
        }
    }
}

/// When a limit window is reached at the pace between two readings of it (each with when it was taken):
/// `None` when it is not rising, when the readings are of different windows (it reset between them), or when
/// that pace does not reach it before it resets. Already at 100%: the time of the last reading.
pub fn reached_at(first: (Millis, &Limit), last: (Millis, &Limit)) -> Option<Millis> {
    let ((t0, a), (t1, b)) = (first, last);
    if b.percent >= 100.0 {
        return Some(t1);
    }
    if a.window != b.window || a.resets_at != b.resets_at || t1 <= t0 || b.percent <= a.percent {
        return None;
    }
    #[allow(clippy::cast_precision_loss)]
    let pace = (b.percent - a.percent) / (t1.0 - t0.0) as f64;
    #[allow(clippy::cast_possible_truncation)]
    let at = t1.0 + ((100.0 - b.percent) / pace) as i64;
    (at < b.resets_at.0).then_some(Millis(at))
}

/// One agent's use on one day.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DayUsage {
    /// The day, `YYYY-MM-DD`, in the time zone asked for.
    pub day: String,
    /// The agent.
    pub agent: String,
    /// US dollars.
    pub cost: f64,
    /// Input tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
}

#[cfg(test)]
mod tests;
