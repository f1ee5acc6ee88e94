//! Phones at an address of the hub's own, over TLS with the app's certificate (`docs/SECURITY.md`,
//! "Phones"): served there, and never with the desktop's token.

use crate::common::raw_http::{raw, request};
use crate::common::TestHub;
use rustls::pki_types::pem::PemObject;
use serde_json::{json, Value};
use std::time::Duration;

/// Sends one request over TLS to the phones' own address, trusting `cert` alone (as a phone that took
/// the desktop's certificate does): the status and the JSON answer; `None` when no TLS session with
/// that certificate could be made.
fn over_tls(
    port: u16,
    cert: &rustls::pki_types::CertificateDer<'static>,
    call: (&str, &str, Value),
    token: Option<&str>,
) -> Option<(u16, Value)> {
    over_tls_from(
        port,
        cert,
        call,
        token,
        &format!("https://127.0.0.1:{port}"),
    )
}

/// [`over_tls`] from the page at `origin`.
fn over_tls_from(
    port: u16,
    cert: &rustls::pki_types::CertificateDer<'static>,
    (method, path, body): (&str, &str, Value),
    token: Option<&str>,
    origin: &str,
) -> Option<(u16, Value)> {
    use std::io::{Read, Write};
    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert.clone()).unwrap();
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let client = rustls::ClientConnection::new(std::sync::Arc::new(config), name).unwrap();
    let tcp = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut tls = rustls::StreamOwned::new(client, tcp);
    let host = format!("127.0.0.1:{port}");
    let mut headers = vec![
        ("Host", host.clone()),
        ("Origin", origin.to_owned()),
        ("Content-Type", "application/json".to_owned()),
    ];
    if let Some(t) = token {
        headers.push(("Authorization", format!("Bearer {t}")));
    }
    let body = if body.is_null() {
        String::new()
    } else {
        body.to_string()
    };
    tls.write_all(request(method, path, &headers, &body).as_bytes())
        .ok()?;
    let mut out = Vec::new();
    let _ = tls.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).into_owned();
    let status = text.split(' ').nth(1)?.parse().ok()?;
    let json = text
        .split_once("\r\n\r\n")
        .and_then(|(_, b)| serde_json::from_str(b).ok())
        .unwrap_or(Value::Null);
    Some((status, json))
}

/// The port of `https://127.0.0.1:PORT` in what `clawmux phone` printed.
fn listening_port(printed: &str) -> u16 {
    let at = printed
        .split_once("listening for phones at https://127.0.0.1:")
        .unwrap_or_else(|| panic!("not listening: {printed}"))
        .1;
    at.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn phones_at_an_address_of_their_own_are_served_over_tls_with_the_apps_certificate_and_never_the_desktops_token(
) {
    let hub = TestHub::start();
    hub.add_agent("sky");
    // Refused at the boundary: every interface, a name that is not one. Nothing kept.
    for bad in [
        &["phone", "address", "0.0.0.0:3461"][..],
        &["phone", "address", "127.0.0.1:0", "--name", "a b"][..],
        &["phone", "address", "nowhere"][..],
    ] {
        let out = hub.clawmux(None).args(bad).output().unwrap();
        assert!(!out.status.success(), "{bad:?}");
        assert!(!String::from_utf8_lossy(&out.stderr).trim().is_empty());
    }
    assert!(!hub.run(None, &["phone", "status"]).contains("address"));

    // Set while phones are off: kept, not served.
    let kept = hub.run(None, &["phone", "address", "127.0.0.1:0"]);
    assert!(
        kept.contains("phones' address 127.0.0.1:0 (when phones are on)"),
        "{kept}"
    );
    let on = hub.run(None, &["phone", "on"]);
    let port = listening_port(&on);
    assert!(
        on.contains("with this desktop's own certificate, SHA-256 "),
        "{on}"
    );
    let tls = hub.data().join("phone-tls");
    let cert = rustls::pki_types::CertificateDer::from_pem_file(tls.join("cert.pem")).unwrap();
    let print = sha2_hex(&cert);
    assert!(
        on.contains(&print),
        "the fingerprint printed is the certificate's: {on}"
    );

    // The page, over TLS; plain HTTP gets no answer there.
    let page = over_tls(port, &cert, ("GET", "/ui/index.html", Value::Null), None).unwrap();
    assert_eq!(page.0, 200);
    assert_eq!(
        raw(
            port,
            &request("GET", "/", &[("Host", format!("127.0.0.1:{port}"))], "")
        )
        .0,
        0
    );

    // Paired by the link to that address; the phone's token works there, the desktop's never does.
    let pairing = hub.run(None, &["phone", "pair"]);
    let prefix = format!("https://127.0.0.1:{port}/#pair=");
    let code = pairing
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("{pairing}"));
    assert!(pairing.contains(&print), "{pairing}");
    let pair = json!({"code": code, "name": "Pixel over tailnet"});
    let (status, paired) = over_tls(port, &cert, ("POST", "/api/phone/pair", pair), None).unwrap();
    assert_eq!(status, 200, "{paired}");
    let token = paired["token"].as_str().unwrap();
    let sessions = over_tls(
        port,
        &cert,
        ("GET", "/api/sessions", Value::Null),
        Some(token),
    );
    assert_eq!(sessions.map(|s| s.0), Some(200));
    let send = (
        "POST",
        "/api/sessions/sky/messages",
        json!({"text": "over TLS"}),
    );
    assert_eq!(
        over_tls(port, &cert, send, Some(token)).map(|s| s.0),
        Some(200)
    );
    assert_eq!(hub.history("sky").last().unwrap()["text"], "over TLS");
    let desktop = over_tls(
        port,
        &cert,
        ("GET", "/api/sessions", Value::Null),
        Some(&hub.token),
    );
    assert_eq!(
        desktop.map(|d| d.0),
        Some(401),
        "the desktop's token at the phones' address"
    );
    let settings = (
        "POST",
        "/api/command",
        json!({"command": "set_phone", "on": false}),
    );
    assert_eq!(
        over_tls(port, &cert, settings, Some(token)).map(|s| s.0),
        Some(403)
    );
    // Only the phones' own page may call with a phone's token there: no other origin, the app's neither.
    for origin in [
        format!("http://127.0.0.1:{port}"),
        "tauri://localhost".to_owned(),
        "http://tauri.localhost".to_owned(),
        format!("http://127.0.0.1:{}", hub.port),
        "http://127.0.0.1:0".to_owned(),
        "https://evil.example".to_owned(),
    ] {
        let read = ("GET", "/api/sessions", Value::Null);
        assert_eq!(
            over_tls_from(port, &cert, read, Some(token), &origin).map(|s| s.0),
            Some(403),
            "from {origin}"
        );
    }

    // Phones off: the address is closed; an address not this machine's says why.
    hub.run(None, &["phone", "off"]);
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "closed"
    );
    hub.run(None, &["phone", "on"]);
    let elsewhere = hub.run(None, &["phone", "address", "192.0.2.1:3461"]);
    assert!(
        elsewhere.contains("cannot listen for phones: cannot listen on 192.0.2.1:3461"),
        "{elsewhere}"
    );
    let cleared = hub.run(None, &["phone", "address", "off"]);
    assert!(
        !cleared.contains("listening") && !cleared.contains("cannot"),
        "{cleared}"
    );
}

/// A certificate's SHA-256 fingerprint as browsers show it.
fn sha2_hex(cert: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(cert)
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(":")
}
