//! Prints what a remote hop adds to a message: the user's message posted to an agent's conversation on
//! a hub, straight at its private socket, against the same through a link over a real OpenSSH server on
//! loopback (`clawmux_hub::machines::link::Link`: the user's ssh, `clawmux dial-stdio` there, one
//! connection kept open). Goal: the hop adds < 5 ms at p50. Also the first dial (ssh's login and the
//! hello). Run: `cargo bench -p clawmux --bench remote` (needs Debian's `openssh-server`).

#![allow(clippy::unwrap_used, missing_docs)] // a benchmark: a failure should stop it loudly

#[path = "../tests/support/sshd.rs"]
mod sshd;
#[path = "hub/support.rs"]
#[allow(dead_code)]
mod support;

use std::time::{Duration, Instant};

use clawmux_core::http1::{may_be_complete, parse_answer};
use clawmux_core::remote::{MachineName, SshTarget};
use clawmux_hub::machines::link::Link;
use serde_json::json;
use support::{ms, pct, Hub, BIN};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const ROUNDS: usize = 2_000;

fn body(i: usize) -> Vec<u8> {
    json!({ "text": format!("message {i} to the remote agent") })
        .to_string()
        .into_bytes()
}

/// Posts over the hub's socket, one connection kept open, as the link does over ssh.
async fn direct(socket: &std::path::Path, token: &str, path: &str) -> Vec<Duration> {
    let mut s = tokio::net::UnixStream::connect(socket).await.unwrap();
    let mut samples = Vec::with_capacity(ROUNDS);
    let mut chunk = vec![0u8; 65536];
    for i in 0..ROUNDS {
        let body = body(i);
        let mut req = format!(
            "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
             Authorization: Bearer {token}\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        req.extend_from_slice(&body);
        let start = Instant::now();
        s.write_all(&req).await.unwrap();
        let mut raw = Vec::new();
        while !may_be_complete(&raw) {
            let n = s.read(&mut chunk).await.unwrap();
            assert!(n > 0, "the hub closed");
            raw.extend_from_slice(&chunk[..n]);
        }
        samples.push(start.elapsed());
        assert_eq!(parse_answer(&raw).unwrap().status, 200);
    }
    samples
}

async fn through(link: &Link, path: &str) -> Vec<Duration> {
    let mut samples = Vec::with_capacity(ROUNDS);
    for i in 0..ROUNDS {
        let body = body(i);
        let start = Instant::now();
        let answer = link
            .call("POST", path, &body, Duration::from_secs(10))
            .await
            .unwrap();
        samples.push(start.elapsed());
        assert_eq!(
            answer.status,
            200,
            "{}",
            String::from_utf8_lossy(&answer.body)
        );
    }
    samples
}

fn main() {
    let hub = Hub::start(tempfile::tempdir().unwrap());
    let http = hub.http();
    hub.add(&http, "sky");
    let data = hub.dir.path().join("data");
    let sshd = sshd::Sshd::start(&data, hub.port, std::path::Path::new(&*BIN));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let path = "/api/sessions/sky/messages";
        let socket = clawmux_hub::http::local::socket_path(&data);
        let link = Link::new(
            MachineName::parse("gpu").unwrap(),
            SshTarget::parse(&sshd.url()).unwrap(),
            Some(sshd.client_config.clone()),
        );
        let start = Instant::now();
        let first = link.call("GET", "/api/sessions", b"", Duration::from_secs(20)).await;
        let dial = start.elapsed();
        assert_eq!(first.unwrap().status, 200);
        println!("remote hop: the first dial (ssh's login over loopback, dial-stdio's hello, one GET): {}", ms(dial));
        let mut rounds = [Vec::new(), Vec::new()];
        for _ in 0..2 {
            rounds[0].extend(direct(&socket, hub.token.trim(), path).await);
            rounds[1].extend(through(&link, path).await);
        }
        let [mut d, mut r] = rounds;
        let (d50, d99, r50, r99) = (pct(&mut d, 50), pct(&mut d, 99), pct(&mut r, 50), pct(&mut r, 99));
        println!(
            "a message to an agent, {} each way: at the hub's socket p50 {}, p99 {}; through ssh p50 {}, p99 {}",
            2 * ROUNDS,
            ms(d50),
            ms(d99),
            ms(r50),
            ms(r99)
        );
        println!(
            "the remote hop adds p50 {} (goal < 5 ms), p99 {}",
            ms(r50.saturating_sub(d50)),
            ms(r99.saturating_sub(d99))
        );
    });
}
