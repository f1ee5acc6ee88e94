//! What the store's benchmarks share.

use std::time::Duration;

/// The `p`th percentile of `samples` (sorted in place).
pub fn percentile(samples: &mut [Duration], p: usize) -> Duration {
    samples.sort();
    samples[(samples.len() * p / 100).min(samples.len() - 1)]
}
