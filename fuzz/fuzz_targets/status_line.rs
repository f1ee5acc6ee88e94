//! A status-line payload as the bridge hands it to the hub: read whole or refused, never a panic, and a
//! payload taken has every figure in range.
#![no_main]

use clawmux_core::usage::Sample;
use clawmux_core::Millis;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = Sample::parse(data, Millis(0)) {
        if let Some(c) = s.context {
            assert!(c.percent <= 100);
        }
        for l in &s.limits {
            assert!((0.0..=100.0).contains(&l.percent));
        }
        assert!(s.cost_usd.is_none_or(|c| c.is_finite() && c >= 0.0));
        let _ = s.line();
    }
});
