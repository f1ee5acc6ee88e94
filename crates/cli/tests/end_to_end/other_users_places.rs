//! Another account on the same machine, where the hub keeps and serves things: the data folder private
//! whatever the umask or an older version left, the loopback addresses the hub holds, and a flood of idle
//! connections at the user's file limit that leaves the agents and the user served.

use crate::common::other_user::OtherUser;
use crate::common::raw_http::request;
use crate::common::{output_with, TestHub, BIN};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn the_data_folder_is_private_whatever_the_umask_and_an_older_version_left() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    // An older version's folder, readable by everyone: 0755, a 0644 recording, agent settings and token.
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    for sub in ["voice", "launch/sky"] {
        std::fs::create_dir_all(data.join(sub)).unwrap();
    }
    let old_files = ["voice/rec.wav", "launch/sky/settings.json", "voice.json"];
    for file in old_files {
        std::fs::write(data.join(file), "{}").unwrap();
    }
    std::fs::write(data.join("token"), "ab".repeat(32)).unwrap();
    for p in [&data, &data.join("voice"), &data.join("launch")] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    for file in old_files.iter().chain(&["token"]) {
        std::fs::set_permissions(data.join(file), std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    // With tmux on its PATH: the demo agent below runs in a terminal, as agents do.
    let path = std::env::var("PATH").unwrap_or_default();
    let hub = TestHub::start_full(dir, "info", vec![("PATH".into(), path)]);
    hub.add_agent("sky");
    hub.user_message("sky", "a conversation no one else may read");
    assert_eq!(mode(&data), 0o700, "the data folder");
    for folder in ["voice", "launch", "launch/sky"] {
        assert_eq!(mode(&data.join(folder)), 0o700, "{folder}");
    }
    for file in old_files.iter().chain(&[
        "token",
        "clawmux.db",
        "clawmux.db-wal",
        "clawmux.db-shm",
        "port",
    ]) {
        assert_eq!(mode(&data.join(file)), 0o600, "{file}");
    }
    // Another user, who can reach the folder that holds the data folder (as anyone can reach a home),
    // reads nothing of it, and cannot read an agent's environment or find the token on a command line.
    let Some(other) = OtherUser::make("clawmux-t-reader") else {
        return;
    };
    std::fs::set_permissions(hub.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    hub.run(None, &["spawn", "demo", "--demo"]);
    let mut feed = hub.feed(None);
    feed.state("demo", "idle", Duration::from_secs(20));
    let probe = format!(
        r#"
import os, sys
token = sys.argv[1].encode()
for path in ["{db}", "{wav}", "{token}"]:
    try: open(path, "rb").read(); print("READ", path)
    except OSError as e: print(type(e).__name__)
for pid in filter(lambda p: p.isdigit() and p != str(os.getpid()), os.listdir("/proc")):
    try:
        if token in open(f"/proc/{{pid}}/cmdline", "rb").read(): print("CMDLINE", pid)
    except OSError: pass
    try:
        if token in open(f"/proc/{{pid}}/environ", "rb").read(): print("ENVIRON", pid)
    except OSError: pass
"#,
        db = data.join("clawmux.db").display(),
        wav = data.join("voice/rec.wav").display(),
        token = data.join("token").display(),
    );
    let out = other
        .command("/usr/bin/python3", &["-c", &probe, &hub.token])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "PermissionError\nPermissionError\nPermissionError\n",
        "what another user got: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Tries to listen on `[::1]:PORT` (with every reuse option a listener can ask for); prints the outcome.
const LISTEN_V6: &str = r#"
import errno, socket, sys
s = socket.socket(socket.AF_INET6)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
try:
    s.bind(("::1", int(sys.argv[1]))); s.listen(8); print("LISTENING", flush=True)
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno), flush=True)
"#;

#[test]
fn localhost_reaches_the_hub_on_either_loopback_address_and_no_other_user_can_listen_beside_it() {
    let hub = TestHub::start();
    let v6 = match TcpStream::connect(("::1", hub.port)) {
        Ok(s) => s,
        Err(e) => {
            crate::common::cannot_run(
                "ipv6 loopback",
                &format!("this machine has no IPv6 loopback ({e})"),
            );
            return;
        }
    };
    // A browser that resolves localhost to ::1 reaches the hub itself.
    let mut v6 = v6;
    let req = request(
        "GET",
        "/api/health",
        &[
            ("Host", format!("localhost:{}", hub.port)),
            ("Authorization", format!("Bearer {}", hub.token)),
        ],
        "",
    );
    v6.write_all(req.as_bytes()).unwrap();
    let mut answer = String::new();
    v6.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let Some(other) = OtherUser::make("clawmux-t-v6") else {
        return;
    };
    let out = other
        .command(
            "/usr/bin/python3",
            &["-c", LISTEN_V6, &hub.port.to_string()],
        )
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "EADDRINUSE");
}

/// Holds `n` idle connections to the port (those accepted or queued within a moment each), made from 8
/// threads at once.
fn hold(port: u16, n: usize) -> Vec<TcpStream> {
    std::thread::scope(|s| {
        let makers: Vec<_> = (0..8)
            .map(|_| {
                s.spawn(move || {
                    (0..n / 8)
                        .filter_map(|_| {
                            let addr = ([127, 0, 0, 1], port).into();
                            TcpStream::connect_timeout(&addr, Duration::from_millis(20)).ok()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        makers.into_iter().flat_map(|m| m.join().unwrap()).collect()
    })
}

#[test]
fn a_flood_of_idle_connections_at_a_limit_of_1024_files_leaves_the_agents_and_the_user_served() {
    // The usual desktop limit, soft and hard: the hub cannot raise it, so its budget must hold.
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut hub = Command::new("prlimit")
        .args([
            "--nofile=1024:1024",
            "--",
            BIN,
            "serve",
            "--port",
            "0",
            "--data-dir",
        ])
        .arg(&data)
        .env_clear()
        .env("HOME", dir.path())
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(hub.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let port: u16 = line
        .split("127.0.0.1:")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|p| p.parse().ok())
        .unwrap();
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", hub.id())).unwrap();
    assert!(
        limits
            .lines()
            .any(|l| l.starts_with("Max open files") && l.split_whitespace().nth(3) == Some("1024")),
        "{limits}"
    );
    let clawmux = |args: &[&str], agent: Option<&str>, stdin: &str| {
        let mut cmd = Command::new(BIN);
        cmd.env_clear()
            .env("HOME", dir.path())
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("CLAWMUX_HOME", &data)
            .args(args);
        if let Some(a) = agent {
            cmd.env("CLAWMUX_SESSION_ID", a);
        }
        let out = output_with(cmd, stdin);
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    std::fs::create_dir_all(dir.path().join("sky")).unwrap();
    let work = dir.path().join("sky");
    assert!(
        clawmux(
            &["agent", "add", "sky", "--work-dir", work.to_str().unwrap()],
            None,
            ""
        )
        .0
    );

    // A hostile agent (it runs as the user) holds 2,000 connections to the TCP port.
    let flood = hold(port, 2000);
    let descriptors = std::fs::read_dir(format!("/proc/{}/fd", hub.id()))
        .unwrap()
        .count();
    eprintln!(
        "flood: {} connections made, the hub holds {descriptors} descriptors",
        flood.len()
    );
    assert!(
        descriptors < 1024 - 128,
        "headroom kept: {descriptors} descriptors open"
    );
    // The agents' socket and everything behind it (the store, new files) still serve.
    let started = std::time::Instant::now();
    let (ok, out) = clawmux(
        &["hook", "tool-status"],
        Some("sky"),
        r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"make"}}"#,
    );
    assert!(ok, "the hook ran: {out}");
    let (ok, status) = clawmux(&["status"], None, "");
    assert!(ok && status.contains("sky"), "{status}");
    std::fs::create_dir_all(dir.path().join("rain")).unwrap();
    let rain = dir.path().join("rain");
    assert!(
        clawmux(
            &["agent", "add", "rain", "--work-dir", rain.to_str().unwrap()],
            None,
            ""
        )
        .0
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // The flood gone, the port serves again.
    drop(flood);
    let mut again = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let token = std::fs::read_to_string(data.join("token")).unwrap();
    again
        .write_all(
            request(
                "GET",
                "/api/health",
                &[
                    ("Host", format!("127.0.0.1:{port}")),
                    ("Authorization", format!("Bearer {token}")),
                ],
                "",
            )
            .as_bytes(),
        )
        .unwrap();
    let mut answer = String::new();
    again.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    hub.kill().unwrap();
    hub.wait().unwrap();
}
