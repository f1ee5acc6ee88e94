//! How long a link waits before dialling a machine again after a failure: doubling from a quarter of a
//! second to half a minute, each wait drawn within ±20 % so that links dropped together (a laptop waking,
//! a VPN coming back) do not all dial at the same instant; back to the shortest once a dial succeeds.

use std::time::Duration;

/// The first wait.
const FIRST: Duration = Duration::from_millis(250);
/// The longest wait.
const MOST: Duration = Duration::from_secs(30);

/// The waits between dials of one machine.
#[derive(Debug, Clone)]
pub struct Backoff {
    next: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff { next: FIRST }
    }
}

impl Backoff {
    /// The wait before the next dial, given `draw` in `0.0..1.0` (the jitter); the one after is longer.
    pub fn after_failure(&mut self, draw: f64) -> Duration {
        let base = self.next;
        self.next = (self.next * 2).min(MOST);
        base.mul_f64(0.8 + 0.4 * draw.clamp(0.0, 1.0))
    }

    /// A dial succeeded: the next failure waits the shortest again.
    pub fn reset(&mut self) {
        self.next = FIRST;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_up_to_half_a_minute_and_start_over_after_a_success() {
        let mut b = Backoff::default();
        let waits: Vec<u64> = (0..10)
            .map(|_| b.after_failure(0.5).as_millis() as u64)
            .collect();
        assert_eq!(
            waits,
            [250, 500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]
        );
        b.reset();
        assert_eq!(b.after_failure(0.5), FIRST);
        let mut b = Backoff::default();
        assert_eq!(b.after_failure(0.0), Duration::from_millis(200));
        let mut b = Backoff::default();
        assert_eq!(b.after_failure(1.0), Duration::from_millis(300));
    }
}
