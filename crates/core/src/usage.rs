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
mod tests {
    use super::*;
    use serde_json::json;

    /// A payload as Claude Code 2.1.330 sends it after a first answer (trimmed of what is not read).
    fn payload() -> Value {
        json!({
            "session_id": "b3fcb467", "model": {"id": "claude-opus-5-5", "display_name": "Opus 5.5"},
            "cost": {"total_cost_usd": 1.2, "total_duration_ms": 6424},
            "context_window": {
                "total_input_tokens": 96_000, "total_output_tokens": 4_000, "context_window_size": 200_000,
                "current_usage": {"input_tokens": 6_000, "output_tokens": 10, "cache_creation_input_tokens": 10_000,
                                  "cache_read_input_tokens": 80_000},
                "used_percentage": 48, "remaining_percentage": 52
            },
            "rate_limits": {"five_hour": {"used_percentage": 42, "resets_at": 1_795_570_218},
                            "seven_day": {"used_percentage": 17.5, "resets_at": 1_795_825_818}}
        })
    }

    fn parse(v: &Value) -> Result<Sample, UsageError> {
        Sample::parse(v.to_string().as_bytes(), Millis(5))
    }

    #[test]
    fn a_payload_gives_the_figures_it_holds() {
        let s = parse(&payload()).unwrap();
        assert_eq!(s.model.as_deref(), Some("Opus 5.5"));
        assert_eq!(
            s.context,
            Some(Context {
                used: 96_000,
                size: 200_000,
                percent: 48
            })
        );
        assert_eq!(s.session.as_deref(), Some("b3fcb467"));
        // The totals are the latest response's: the transcript counts the session's tokens.
        assert_eq!(
            s.tokens,
            Tokens {
                input: 0,
                output: 0,
                cache_read: 80_000,
                cache_write: 10_000
            }
        );
        assert_eq!(s.cost_usd, Some(1.2));
        assert_eq!(s.limits.len(), 2);
        assert_eq!(s.limits[0].window, Window::FiveHour);
        assert_eq!(s.limits[0].resets_at, Millis(1_795_570_218_000));
        assert_eq!(s.limits[1].percent, 17.5);
        assert_eq!(s.line(), "48% · 96k/200k · $1.20");
    }

    #[test]
    fn before_the_first_answer_there_is_no_context_and_no_limits() {
        // As sent at start: current_usage and the percentages are null, no rate_limits.
        let v = json!({"model": {"id": "claude-opus-5-5"}, "cost": {"total_cost_usd": 0},
            "context_window": {"total_input_tokens": 0, "total_output_tokens": 0, "context_window_size": 1_000_000,
                               "current_usage": null, "used_percentage": null, "remaining_percentage": null}});
        let s = parse(&v).unwrap();
        assert_eq!(s.model.as_deref(), Some("claude-opus-5-5"));
        assert_eq!(s.context, None);
        assert!(s.limits.is_empty());
        assert_eq!(s.line(), "$0.00");
    }

    #[test]
    fn a_payload_with_none_of_the_status_lines_fields_is_refused() {
        for v in [
            json!({}),
            json!({"hello": "world"}),
            json!({"session_id": "s", "model": null}),
        ] {
            assert_eq!(parse(&v), Err(UsageError::NotStatusLine), "{v}");
        }
        assert!(parse(&json!({"cost": {"total_cost_usd": 0.1}})).is_ok());
    }

    #[test]
    fn a_late_refresh_of_the_same_session_is_stale_and_another_session_is_new() {
        let mut later = parse(&payload()).unwrap();
        later.cost_usd = Some(0.674);
        let mut older = later.clone();
        older.cost_usd = Some(0.0749);
        assert!(older.is_stale(&later));
        assert!(!older.is_new_session(&later));
        assert!(!later.is_stale(&older));
        let mut other = older.clone();
        other.session = Some("another".into());
        assert!(!other.is_stale(&later));
        assert!(other.is_new_session(&later));
        // Without ids, a cost that fell is the only sign: a new session.
        let (mut a, mut b) = (later.clone(), older.clone());
        (a.session, b.session) = (None, None);
        assert!(!b.is_stale(&a));
        assert!(b.is_new_session(&a));
    }

    #[test]
    fn a_figure_out_of_range_refuses_the_whole_payload() {
        let cases: [(&str, Value); 7] = [
            ("/context_window/used_percentage", json!(101)),
            ("/context_window/used_percentage", json!("48")),
            ("/context_window/total_input_tokens", json!(-1)),
            ("/context_window/total_output_tokens", json!(1.5)),
            ("/cost/total_cost_usd", json!(-0.01)),
            ("/rate_limits/five_hour/used_percentage", json!(250)),
            ("/rate_limits/seven_day/resets_at", json!(99)),
        ];
        for (pointer, bad) in cases {
            let mut v = payload();
            *v.pointer_mut(pointer).unwrap() = bad.clone();
            assert!(
                matches!(parse(&v), Err(UsageError::OutOfRange(_))),
                "{pointer} = {bad}"
            );
        }
        for body in [&b"not json"[..], b"[1,2]", b"\"text\"", b""] {
            assert_eq!(
                Sample::parse(body, Millis(0)),
                Err(UsageError::NotJson),
                "{body:?}"
            );
        }
    }

    #[test]
    fn only_a_sample_that_moves_a_figure_differs() {
        let a = parse(&payload()).unwrap();
        let mut b = Sample::parse(payload().to_string().as_bytes(), Millis(99)).unwrap();
        assert!(!b.differs(&a), "the time alone is no change");
        b.cost_usd = Some(1.3);
        assert!(b.differs(&a));
    }

    #[test]
    fn counts_read_short() {
        assert_eq!(short(950), "950");
        assert_eq!(short(96_000), "96k");
        assert_eq!(short(1_000_000), "1M");
        assert_eq!(short(1_240_000), "1.2M");
    }

    fn limit(percent: f64, resets_at: i64) -> Limit {
        Limit {
            window: Window::FiveHour,
            percent,
            resets_at: Millis(resets_at),
        }
    }

    #[test]
    fn the_pace_between_two_readings_says_when_a_limit_is_reached() {
        let hour = 3_600_000;
        // 20% to 40% in an hour: 100% three hours later, before the reset at five.
        let at = reached_at(
            (Millis(0), &limit(20.0, 5 * hour)),
            (Millis(hour), &limit(40.0, 5 * hour)),
        );
        assert_eq!(at, Some(Millis(4 * hour)));
        // The same pace with the reset sooner: not reached.
        assert_eq!(
            reached_at(
                (Millis(0), &limit(20.0, 3 * hour)),
                (Millis(hour), &limit(40.0, 3 * hour))
            ),
            None
        );
        // Not rising, or across a reset: no projection.
        assert_eq!(
            reached_at(
                (Millis(0), &limit(40.0, 5 * hour)),
                (Millis(hour), &limit(40.0, 5 * hour))
            ),
            None
        );
        assert_eq!(
            reached_at(
                (Millis(0), &limit(90.0, hour)),
                (Millis(hour), &limit(10.0, 6 * hour))
            ),
            None
        );
        // At the limit: reached now.
        assert_eq!(
            reached_at(
                (Millis(0), &limit(90.0, 5 * hour)),
                (Millis(hour), &limit(100.0, 5 * hour))
            ),
            Some(Millis(hour))
        );
    }

    #[test]
    fn the_context_crosses_a_threshold_once_per_filling() {
        let at = |percent: u8| Sample {
            at: Millis(0),
            session: None,
            model: None,
            context: Some(Context {
                used: u64::from(percent) * 2_000,
                size: 200_000,
                percent,
            }),
            tokens: Tokens::default(),
            cost_usd: None,
            limits: Vec::new(),
        };
        assert!(at(81).context_crossed(Some(&at(79)), 80));
        assert!(at(80).context_crossed(None, 80));
        assert!(!at(85).context_crossed(Some(&at(81)), 80), "once");
        assert!(!at(79).context_crossed(Some(&at(10)), 80));
        // Compacted, then filled again: told again.
        assert!(at(90).context_crossed(Some(&at(20)), 80));
        assert!(!at(90).context_crossed(Some(&at(20)), 0), "off");
    }

    #[test]
    fn the_transcripts_answers_add_up_to_tokens_when_no_status_line_comes() {
        let line = br#"{"type":"assistant","message":{"id":"msg_1","model":"claude-opus-5-5","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":1200,"cache_creation_input_tokens":300,"cache_read_input_tokens":45000,"output_tokens":321}}}"#;
        let used = crate::transcript::parse_line(line).unwrap().usage.unwrap();
        assert_eq!(
            (
                used.message_id.as_str(),
                used.input,
                used.cache_read,
                used.output
            ),
            ("msg_1", 1200, 45_000, 321)
        );
        let first = Sample::with_answer(None, &used, Millis(5));
        assert_eq!((first.tokens.input, first.tokens.output), (46_500, 321));
        assert_eq!(
            (first.context, first.cost_usd),
            (None, None),
            "no status line's figures"
        );
        assert_eq!(first.line(), "in 47k · out 321");
        let second = Sample::with_answer(Some(&first), &used, Millis(6));
        assert_eq!(second.tokens.input, 93_000);
        assert_eq!(second.model.as_deref(), Some("claude-opus-5-5"));
        // No id, a count that is not whole, or not an assistant line: nothing.
        for bad in [
            &br#"{"type":"assistant","message":{"usage":{"input_tokens":1}}}"#[..],
            br#"{"type":"assistant","message":{"id":"m","usage":{"input_tokens":-1}}}"#,
            br#"{"type":"user","message":{"id":"m","usage":{"input_tokens":1}}}"#,
        ] {
            assert_eq!(crate::transcript::parse_line(bad).unwrap().usage, None);
        }
    }
}
