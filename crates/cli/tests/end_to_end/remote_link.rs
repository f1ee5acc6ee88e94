//! Other machines' links, with a real OpenSSH server in front of a second hub (as `remote.rs`): the link
//! kept open, dialled again when it breaks and backing off while the machine is down; this hub following
//! the other's events and resuming after a cut.

use std::time::Duration;

use crate::common::sshd::Sshd;
use crate::common::{TestHub, BIN};
use crate::remote::{kill_dials_of, kill_newest_ssh_of, remote_hub};

/// The window's link to a machine (`clawmux_hub::machines::link::Link`): one ssh kept open for many calls;
/// broken mid-stream, the next call dials again; a machine that cannot be dialled is tried again only
/// after its back-off, and reached once it is back.
#[test]
fn a_link_is_kept_open_dialled_again_when_it_breaks_and_backs_off_while_down() {
    use clawmux_core::remote::{MachineName, SshTarget};
    use clawmux_hub::machines::link::{Link, LinkError};

    let remote = remote_hub();
    remote.add_agent("sky");
    let mut sshd = Sshd::start(&remote.data(), remote.port, std::path::Path::new(BIN));
    let link = Link::new(
        MachineName::parse("gpu").unwrap(),
        SshTarget::parse(&sshd.url()).unwrap(),
        Some(sshd.client_config.clone()),
    );
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let within = Duration::from_secs(20);
        // Each message with its client id, as the window sends one: a call that may or may not have
        // reached the other hub (`Down`) is sent again, and stored once.
        let send = |text: &'static str| {
            let link = &link;
            async move {
                let command = clawmux_hub::Command::from(clawmux_api::commands::UserMessage {
                    session_id: "sky".to_owned(),
                    text: text.to_owned(),
                    voice: false,
                    attachments: Vec::new(),
                    client_id: Some(format!("c-{text}")),
                });
                let body = serde_json::to_vec(&command).unwrap();
                link.call("POST", "/api/command", &body, within).await
            }
        };
        for text in ["one", "two", "three"] {
            assert_eq!(send(text).await.unwrap().status, 200);
        }
        assert!(link.is_open().await);
        assert_eq!(
            kill_dials_of(&remote.data()),
            1,
            "one dial served three calls"
        );

        // Broken mid-stream (its far end killed): a call finds its ssh gone and dials again at once, or
        // (the ssh not gone yet) hears that the link broke and the next dials again; stored once either way.
        match send("four").await {
            Ok(answer) => assert_eq!(answer.status, 200),
            Err(broke) => {
                assert!(matches!(broke, LinkError::Down { .. }), "{broke}");
                assert_eq!(send("four").await.unwrap().status, 200);
            }
        }

        // The machine goes away: the dial fails with ssh's words, and the next is not made before the
        // back-off says.
        kill_dials_of(&remote.data());
        sshd.stop();
        let mut down = send("five").await.unwrap_err();
        if matches!(down, LinkError::Down { .. }) {
            down = send("five").await.unwrap_err(); // the link broke; this one dials
        }
        assert!(
            matches!(down, LinkError::Dial(ref why) if why.contains("not reachable")),
            "{down}"
        );
        let LinkError::Waiting { retry_in, .. } = send("five").await.unwrap_err() else {
            panic!("a dial was made before the back-off allowed");
        };
        assert!(retry_in <= Duration::from_millis(300), "{retry_in:?}");
        sshd.start_again();
        tokio::time::sleep(retry_in).await;
        assert_eq!(send("five").await.unwrap().status, 200);
    });
    let said: Vec<String> = remote
        .history("sky")
        .iter()
        .map(|m| m["text"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(said, ["one", "two", "three", "four", "five"], "each once");
}

/// The window's side: this hub follows another machine's hub over a real sshd, relays its events tagged
/// with the machine, forwards a message to its agent (answered there), and after the link is cut while
/// that machine goes on, resumes its feed after the last message relayed: what was said meanwhile arrives
/// once, nothing twice.
#[test]
fn this_hub_follows_another_machine_relays_its_events_and_resumes_after_a_cut() {
    let remote = remote_hub();
    let mut sshd = Sshd::start(&remote.data(), remote.port, std::path::Path::new(BIN));
    let config = sshd.client_config.to_str().unwrap().to_owned();
    let local = TestHub::start_with_options(&[("CLAWMUX_SSH_CONFIG", &config)]);
    let mut there = remote.feed(None);
    remote.run(None, &["spawn", "sky", "--demo"]);
    there.state("sky", "idle", Duration::from_secs(20));

    let mut feed = local.feed(None);
    let (status, list) = local.post(
        "/api/command",
        None,
        &serde_json::json!({"command": "machine_add", "name": "gpu", "url": sshd.url()})
            .to_string(),
    );
    assert_eq!(status, 200, "{list}");
    let is_link = |up: bool| {
        move |v: &serde_json::Value| {
            v["type"] == "machine_link" && v["machine"] == "gpu" && v["up"] == up
        }
    };
    feed.until(Duration::from_secs(20), is_link(true))
        .expect("the machine's link came up");
    // The other hub's token crossed the SSH channel only: no process shows it on its command line or in
    // its environment (the ssh and dial-stdio processes of both links among them).
    let token = remote.token.trim();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        for file in ["cmdline", "environ"] {
            let bytes = std::fs::read(entry.path().join(file)).unwrap_or_default();
            assert!(
                !String::from_utf8_lossy(&bytes).contains(token),
                "the remote token is in /proc/{}/{file}",
                entry.file_name().to_string_lossy()
            );
        }
    }
    let sessions = feed
        .until(Duration::from_secs(10), |v| {
            v["type"] == "machine_event" && v["event"]["type"] == "session_list"
        })
        .expect("its agents");
    assert!(sessions["event"]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["session_id"] == "sky"));

    let mut relayed: Vec<String> = Vec::new();
    let mut said = |feed: &mut crate::common::Feed, kind: &str, text: &str| {
        let v = feed
            .until(Duration::from_secs(20), |v| {
                v["type"] == "machine_event"
                    && v["event"]["type"] == kind
                    && v["event"]["text"]
                        .as_str()
                        .is_some_and(|t| t.contains(text))
            })
            .unwrap_or_else(|| panic!("no {kind} with {text:?} relayed"));
        relayed.push(v["event"]["id"].as_str().unwrap().to_owned());
    };
    // A message to sky on gpu, as the window sends it.
    let to_sky = |text: &str, client_id: &str| {
        serde_json::json!({
            "command": "on_machine",
            "machine": "gpu",
            "forward": {"command": "user_message", "session_id": "sky", "text": text, "client_id": client_id},
        })
        .to_string()
    };
    let forward = to_sky("hello over ssh", "c-1");
    let (status, sent) = local.post("/api/command", None, &forward);
    assert_eq!(status, 200, "{sent}");
    said(&mut feed, "user_text", "hello over ssh");
    said(&mut feed, "assistant_text", "hello over ssh");

    // An agent started there after the link came up is listed by `machines` (a window opened now).
    remote.run(None, &["spawn", "moon", "--demo"]);
    there.state("moon", "idle", Duration::from_secs(20));
    feed.until(Duration::from_secs(20), |v| {
        v["type"] == "machine_event"
            && v["event"]["session_id"] == "moon"
            && v["event"]["state"] == "idle"
    })
    .expect("moon's status relayed");
    let (_, machines) = local.post("/api/command", None, r#"{"command":"machines"}"#);
    assert!(
        machines[0]["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["session_id"] == "moon" && s["state"] == "idle"),
        "{machines}"
    );

    // Only the command link's ssh dies (the feed's stays up, so no link event comes): the next message
    // is not refused; the link is dialled again and the message goes once.
    assert_eq!(kill_newest_ssh_of(local.child.id()), 1);
    let (status, sent2) = local.post("/api/command", None, &to_sky("after the cut", "c-2"));
    assert_eq!(status, 200, "{sent2}");
    said(&mut feed, "user_text", "after the cut");
    assert_eq!(
        remote
            .history("sky")
            .iter()
            .filter(|m| m["text"] == "after the cut")
            .count(),
        1
    );

    // The link is cut and the machine cannot be reached; it goes on meanwhile.
    sshd.stop();
    assert!(kill_dials_of(&remote.data()) >= 1);
    let down = feed
        .until(Duration::from_secs(20), is_link(false))
        .expect("the link is seen down");
    assert!(down["last_seen"].as_i64().is_some(), "{down}");
    let (_, machines) = local.post("/api/command", None, r#"{"command":"machines"}"#);
    assert_eq!(machines[0]["up"], false, "{machines}");
    assert!(
        machines[0]["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["session_id"] == "sky"),
        "its agents' last known states stay: {machines}"
    );
    let (status, refused) = local.post("/api/command", None, &forward);
    assert_eq!(status, 502, "{refused}");
    assert_eq!(refused["code"], "machine_unreachable");
    remote.user_message("sky", "said while away");
    there
        .until(Duration::from_secs(20), |v| {
            v["type"] == "assistant_text"
                && v["text"]
                    .as_str()
                    .is_some_and(|t| t.contains("said while away"))
        })
        .expect("answered there");

    // Back: the feed resumes after the last message relayed.
    sshd.start_again();
    feed.until(Duration::from_secs(60), is_link(true))
        .expect("the link came back by itself");
    said(&mut feed, "user_text", "said while away");
    said(&mut feed, "assistant_text", "said while away");
    // The retried send, with its client id, is stored once.
    let (status, again) = local.post("/api/command", None, &forward);
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["id"], sent["id"]);
    let mut unique = relayed.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        unique.len(),
        relayed.len(),
        "nothing relayed twice: {relayed:?}"
    );
    let rest = feed.drain(Duration::from_millis(500));
    assert!(
        !rest.iter().any(|v| v["event"]["id"]
            .as_str()
            .is_some_and(|id| relayed.iter().any(|r| r == id))),
        "nothing relayed twice"
    );
}
