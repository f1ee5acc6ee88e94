//! The wall clock, read only at the hub's edge: the state machine and the features' rules get time handed
//! in, so their tests choose it.

use clawmux_core::Millis;

/// Now, in milliseconds since the epoch.
pub fn now() -> Millis {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    Millis(i64::try_from(ms).unwrap_or(i64::MAX))
}
