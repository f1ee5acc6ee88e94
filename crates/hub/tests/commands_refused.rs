//! What no transport may pass on: a command the surface does not have, a field a command does not know,
//! nothing named.

#![allow(missing_docs)]

use clawmux_hub::Command;
use serde_json::json;

#[test]
fn no_unknown_command_or_field_reads_as_a_command() {
    for bad in [
        json!({"command": "drop_tables"}),
        json!({"command": "sessions", "extra": 1}),
        json!({"command": "thread_reply", "to": "sky", "re": "msg-zz", "text": "x", "client_id": "c"}),
        json!({}),
    ] {
        assert!(
            serde_json::from_value::<Command>(bad.clone()).is_err(),
            "{bad}"
        );
    }
}
