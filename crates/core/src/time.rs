//! Time as the machine sees it: milliseconds since the Unix epoch, always handed in by the caller.

use serde::{Deserialize, Serialize};

/// A point in time, in milliseconds since the Unix epoch (UTC).
///
/// The state machine never reads a clock: every event carries the time it happened at its source, so a
/// replay of stored events reproduces the decisions exactly, durations included.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(transparent)]
pub struct Millis(pub i64);

impl Millis {
    /// Milliseconds from `earlier` to `self`; zero if `earlier` is later (clocks of two sources may disagree).
    pub fn since(self, earlier: Millis) -> u64 {
        u64::try_from(self.0.saturating_sub(earlier.0)).unwrap_or(0)
    }
}
