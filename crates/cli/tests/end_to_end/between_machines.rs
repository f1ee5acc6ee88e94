//! Agents of two machines writing to each other, with a real OpenSSH server on a loopback port in front
//! of the other machine's hub (`common/sshd.rs`): sky here (`laptop`) writes to `moon@box` with the real
//! `clawmux send`, moon's wait there prints it from `sky@laptop`; moon answers `sky@laptop`, and sky's wait
//! here prints it from `moon@box`, once, even when this hub was killed while the answer was written; an
//! ask across them is answered `--re` there and printed here; a machine not linked and a reply to a
//! machine that never wrote are refused, nothing stored.

use std::time::Duration;

use crate::common::sshd::Sshd;
use crate::common::{start_wait, TestHub, BIN};
use crate::remote::{clawmux, remote_hub};

/// What `agent`'s `clawmux wait` on `hub` prints, once something is there.
fn waited(hub: &TestHub, agent: &str) -> String {
    let mut feed = hub.feed(None);
    let wait = start_wait(hub, &mut feed, agent);
    String::from_utf8(wait.wait_with_output().unwrap().stdout).unwrap()
}

#[test]
fn agents_of_two_machines_write_and_answer_across_ssh_and_a_hub_killed_loses_nothing() {
    let remote = remote_hub();
    remote.add_agent("moon");
    let sshd = Sshd::start(&remote.data(), remote.port, std::path::Path::new(BIN));
    let config = sshd.client_config.clone();
    let mut local = TestHub::start_with_options(&[
        ("CLAWMUX_SSH_CONFIG", config.to_str().unwrap()),
        ("CLAWMUX_MACHINE_NAME", "laptop"),
    ]);
    local.add_agent("sky");
    let mut here = local.feed(None);
    let (ok, _, err) = clawmux(&local, &config, &["remote", "add", "box", &sshd.url()]);
    assert!(ok, "{err}");
    here.until(Duration::from_secs(20), |v| {
        v["type"] == "machine_link" && v["machine"] == "box" && v["up"] == true
    })
    .expect("this hub follows box");

    // A reply to a machine none of whose agents wrote, and a machine not linked: refused, nothing stored.
    let refused = remote
        .clawmux(Some("moon"))
        .args(["send", "--to", "sky@laptop", "hello?"])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("no agent of it wrote to you"));
    let refused = local
        .clawmux(Some("sky"))
        .args(["send", "--to", "moon@nowhere", "hello?"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&refused.stderr).contains("no machine `nowhere`"));

    local.run(
        Some("sky"),
        &["send", "--to", "moon@box", "is the schema done?"],
    );
    let printed = waited(&remote, "moon");
    assert!(
        printed.contains("from:sky@laptop] is the schema done?"),
        "{printed}"
    );

    remote.run(
        Some("moon"),
        &["send", "--to", "sky@laptop", "yes, since noon"],
    );
    let printed = waited(&local, "sky");
    assert!(
        printed.contains("from:moon@box] yes, since noon"),
        "{printed}"
    );

    // This hub is killed; moon answers meanwhile; started again, it takes the answer, once.
    local.kill();
    remote.run(
        Some("moon"),
        &["send", "--to", "sky@laptop", "and the index too"],
    );
    local.restart();
    // (Restarted, the hub may take sky for gone, having no process of it: its wait is run as is.)
    let out = local.clawmux(Some("sky")).arg("wait").output().unwrap();
    let printed = String::from_utf8(out.stdout).unwrap();
    assert_eq!(printed.matches("[MSG id:").count(), 1, "{printed}");
    assert!(
        printed.contains("from:moon@box] and the index too"),
        "{printed}"
    );
    // Here, the thread holds moon's two answers, each once; there, sky's message (moon's answers are in
    // moon's own conversation there, as its answers to the user are).
    let thread = |hub: &TestHub, a: &str, b: &str| {
        let (status, v) = hub.post(
            "/api/command",
            None,
            &serde_json::json!({"command": "thread", "a": a, "b": b}).to_string(),
        );
        assert_eq!(status, 200, "{v}");
        v.as_array()
            .unwrap()
            .iter()
            .map(|p| p["message"]["text"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        thread(&local, "sky", "moon@box"),
        ["yes, since noon", "and the index too"]
    );
    assert_eq!(
        thread(&remote, "moon", "sky@laptop"),
        ["is the schema done?"]
    );

    // An ask across the machines: moon answers `--re` it there, and sky's ask prints the answer here.
    let asking = local
        .clawmux(Some("sky"))
        .args([
            "ask",
            "moon@box",
            "which port does the API use?",
            "--timeout",
            "60",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let printed = waited(&remote, "moon");
    let id = printed
        .split("[MSG id:")
        .nth(1)
        .and_then(|rest| rest.get(..12))
        .unwrap_or_else(|| panic!("no message in {printed}"))
        .to_owned();
    remote.run(
        Some("moon"),
        &["send", "--to", "sky@laptop", "--re", &id, "port 8080"],
    );
    let out = asking.wait_with_output().unwrap();
    let answered = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{answered} {:?} {:?}",
        thread(&local, "sky", "moon@box"),
        thread(&remote, "moon", "sky@laptop")
    );
    assert!(answered.contains("from:moon@box] port 8080"), "{answered}");
}
