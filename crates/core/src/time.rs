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

    /// `wait` after `self` (the end of time if that is past what a `Millis` holds).
    pub fn after(self, wait: std::time::Duration) -> Millis {
        Millis(
            self.0
                .saturating_add(i64::try_from(wait.as_millis()).unwrap_or(i64::MAX)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::Millis;
    use std::time::Duration;

    #[test]
    fn a_wait_after_a_time_saturates_instead_of_overflowing() {
        assert_eq!(Millis(1_000).after(Duration::from_secs(2)), Millis(3_000));
        assert_eq!(
            Millis(i64::MAX - 1).after(Duration::from_secs(1)),
            Millis(i64::MAX)
        );
        assert_eq!(Millis(0).after(Duration::MAX), Millis(i64::MAX));
    }
}
