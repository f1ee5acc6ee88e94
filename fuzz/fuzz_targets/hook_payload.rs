//! A hook payload, as Claude Code posts it: parsed, stepped through the machine in every state (plain and
//! observed), and rebuilt from its stored form.
#![no_main]

use clawmux_core::{step, Event, Millis, Snapshot, Source, State};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (event, _) = Event::from_hook_payload(data);
    for observed in [false, true] {
        for state in State::ALL {
            let mut s = if observed { Snapshot::observed(Millis(0)) } else { Snapshot::new(Millis(0)) };
            s.state = state;
            let (after, _) = step(&s, &event, Source::Hook, Millis(1));
            let _ = step(&after, &event, Source::Hook, Millis(2));
        }
    }
    assert_eq!(Event::from_stored(&event.kind(), data).kind(), event.kind());
});
