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

#[test]
fn the_routers_future_stays_small() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    rt.block_on(async {
        let hub = clawmux_hub::Hub::open_with(dir.path(), clawmux_hub::config::Options::from_env())
            .await
            .unwrap();
        let command: Command = serde_json::from_value(json!({"command": "sessions"})).unwrap();
        let size = std::mem::size_of_val(&hub.dispatch(command));
        println!("the router's future: {size} bytes");
        // A thread's stack is 2 MiB; the router runs inside the transports' futures.
        assert!(size < 4096, "{size} bytes");
    });
}
