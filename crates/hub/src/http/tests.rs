//! Tests of `the module`.

use super::*;

#[test]
fn hosts_and_origins() {
    let g = Guard {
        token: Arc::from("t"),
        port: 3460,
        exposed: None,
        local: false,
        phone: None,
        phones_at: None,
    };
    assert!(g.host_ok(Some("127.0.0.1:3460")));
    assert!(g.host_ok(Some("localhost:3460")));
    assert!(!g.host_ok(Some("evil.example:3460")));
    assert!(!g.host_ok(Some("127.0.0.1:80")));
    assert!(!g.host_ok(None));
    assert!(g.origin_ok("http://127.0.0.1:3460"));
    assert!(!g.origin_ok("http://localhost:3460"));
    assert!(!g.origin_ok("http://[::1]:3460"));
    assert!(g.origin_ok("tauri://localhost"));
    assert!(!g.origin_ok("http://evil.example"));
    assert!(!g.origin_ok("null"));
    assert!(constant_time_eq(b"abc", b"abc"));
    assert!(!constant_time_eq(b"abc", b"abd"));
    assert!(!constant_time_eq(b"abc", b"ab"));
}
