//! HTTP/1.1 by hand, for tests that must send what no client library would (forged hosts, origins, bodies).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// Sends one raw HTTP/1.1 request; returns the status code and the whole answer.
pub fn raw(port: u16, request: &str) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, text)
}

/// A request's text: the method, path and headers given, and the body.
pub fn request(method: &str, path: &str, headers: &[(&str, String)], body: &str) -> String {
    let mut r = format!(
        "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        r.push_str(&format!("{k}: {v}\r\n"));
    }
    r.push_str("\r\n");
    r.push_str(body);
    r
}
