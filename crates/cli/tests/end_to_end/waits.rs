//! `clawmux wait` end to end: the real hub, the real binary as the agent's wait, every way a wait ends.

use std::io::Read;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{start_wait, wait_until, TestHub};
use serde_json::json;

const SEC: Duration = Duration::from_secs(1);

#[test]
fn wait_prints_the_message_with_its_id_and_sender_then_exits() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let mut feed = hub.feed(None);
    let mut wait = start_wait(&hub, &mut feed, "sky");
    let pid_file = hub.data().join("launch/sky/waiting");
    assert_eq!(
        std::fs::read_to_string(&pid_file).unwrap(),
        wait.id().to_string()
    );
    // Nothing of ClawMux's in the agent's work folder, where its `git add -A` would commit it.
    assert!(!hub.work_dir("sky").join(".waiting").exists());
    let id = hub.user_message("sky", "hello\nsecond line");
    feed.state("sky", "processing", 2 * SEC);
    let status = wait.wait().unwrap();
    let mut out = String::new();
    wait.stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert!(status.success());
    assert_eq!(out, format!("[MSG id:{id} from:user] hello\nsecond line\n"));
    assert!(!pid_file.exists(), "the PID file must be removed at exit");

    // A voice message reads as VOICE.
    let wait = start_wait(&hub, &mut feed, "sky");
    let (_, v) = hub.post(
        "/api/sessions/sky/messages",
        None,
        r#"{"text":"spoken","voice":true}"#,
    );
    let out = wait.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "[VOICE id:{} from:user] spoken\n",
            v["id"].as_str().unwrap()
        )
    );

    // Said hands-free: the user is listening, so the agent reads that a spoken answer is asked; unless
    // the voice settings say not to ask.
    for (spoken_answers, mark) in [(true, " aloud"), (false, "")] {
        let (status, _) = hub.post(
            "/api/voice/settings",
            None,
            &json!({ "spoken_answers": spoken_answers }).to_string(),
        );
        assert_eq!(status, 200);
        let wait = start_wait(&hub, &mut feed, "sky");
        let (_, heard) = hub.post(
            "/api/command",
            None,
            &json!({"command": "hear", "text": "Sky, run the tests."}).to_string(),
        );
        assert_eq!(heard["done"], "sent", "{heard}");
        let out = wait.wait_with_output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!(
                "[VOICE id:{} from:user{mark}] run the tests.\n",
                heard["id"].as_str().unwrap()
            )
        );
    }
}

#[test]
fn messages_sent_while_nobody_waits_are_delivered_at_the_next_wait() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let a = hub.user_message("sky", "first");
    let b = hub.user_message("sky", "second");
    let out = hub.clawmux(Some("sky")).arg("wait").output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("[MSG id:{a} from:user] first\n[MSG id:{b} from:user] second\n")
    );
}

#[test]
fn a_killed_wait_is_noticed_within_two_seconds_and_its_messages_stay() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let mut feed = hub.feed(None);
    let mut wait = start_wait(&hub, &mut feed, "sky");
    wait.kill().unwrap();
    wait.wait().unwrap();
    let took = feed.state("sky", "processing", 2 * SEC);
    eprintln!("killed wait noticed after {took:?}");
    // Nothing was handed to the dead waiter: the next wait gets the message.
    let id = hub.user_message("sky", "after the kill");
    let out = hub.clawmux(Some("sky")).arg("wait").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("[MSG id:{id} from:user] after the kill\n")
    );
}

#[test]
fn a_silent_half_open_wait_is_noticed_within_two_seconds() {
    use tungstenite::client::IntoClientRequest;
    let hub = TestHub::start();
    hub.add_agent("sky");
    let mut feed = hub.feed(None);
    let mut req = format!("ws://127.0.0.1:{}/ws/wait/sky", hub.port)
        .into_client_request()
        .unwrap();
    req.headers_mut().insert(
        "Authorization",
        format!("Bearer {}", hub.token).parse().unwrap(),
    );
    // Connects, then never reads again: it answers no ping, like a peer behind a dead network.
    let (_silent, _) = tungstenite::connect(req).unwrap();
    feed.state("sky", "idle", 2 * SEC);
    let took = feed.state("sky", "processing", Duration::from_millis(2500));
    assert!(took <= 2 * SEC, "took {took:?}");
}

#[test]
fn wait_for_an_unknown_agent_fails_clearly() {
    let hub = TestHub::start();
    std::fs::create_dir_all(hub.work_dir("ghost")).unwrap();
    let out = hub.clawmux(Some("ghost")).arg("wait").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("unknown agent"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_agent_that_reenters_wait_at_once_is_shown_idle_every_time() {
    // The agent loop: the wait prints its message and exits, and the next `clawmux wait` starts at once.
    // If the old wait's disconnect were recorded after the new wait's connect, the agent would show
    // PROCESSING while it waits. There is no event to await when the state never left IDLE, so each cycle
    // checks the state itself, within a bound.
    let hub = TestHub::start();
    hub.add_agent("sky");
    let spawn = || {
        hub.clawmux(Some("sky"))
            .arg("wait")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let mut wait = spawn();
    for i in 0..40 {
        wait_until(2 * SEC, || hub.session("sky")["state"] == "idle");
        hub.user_message("sky", &format!("m{i}"));
        let mut out = String::new();
        wait.stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        assert!(out.contains(&format!("] m{i}")), "{out}");
        wait.wait().unwrap();
        wait = spawn();
    }
    wait_until(2 * SEC, || hub.session("sky")["state"] == "idle");
    wait.kill().unwrap();
    wait.wait().unwrap();
}

#[test]
fn a_terminated_wait_cleans_up_and_the_agent_leaves_idle() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let mut feed = hub.feed(None);
    let mut wait = start_wait(&hub, &mut feed, "sky");
    let pid_file = hub.data().join("launch/sky/waiting");
    assert!(pid_file.exists());
    let term = std::process::Command::new("kill")
        .args(["-TERM", &wait.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let status = wait.wait().unwrap();
    let mut err = String::new();
    wait.stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains("interrupted") && !err.contains("connection lost"),
        "{err}"
    );
    assert!(
        !pid_file.exists(),
        "the PID file must be removed on SIGTERM"
    );
    feed.state("sky", "processing", 2 * SEC);
}

/// Whether process `pid` has ended (gone, or a zombie nobody reaped yet).
fn ended(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
        stat.rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
    })
}

#[test]
fn a_wait_ends_by_itself_when_nobody_is_left_and_removes_only_its_own_pid_file() {
    let mut hub = TestHub::start();
    hub.add_agent("sky");
    let mut feed = hub.feed(None);
    let waiting = hub.data().join("launch/sky/waiting");

    // Its `.waiting` now names a newer wait: the old one leaves it alone on its way out.
    let mut old = start_wait(&hub, &mut feed, "sky");
    assert_eq!(
        std::fs::read_to_string(&waiting).unwrap(),
        old.id().to_string()
    );
    std::fs::write(&waiting, "4194304").unwrap();
    std::process::Command::new("kill")
        .arg(old.id().to_string())
        .status()
        .unwrap();
    old.wait().unwrap();
    assert_eq!(std::fs::read_to_string(&waiting).unwrap(), "4194304");
    std::fs::remove_file(&waiting).unwrap();

    // The shell that ran it ends (Claude's Bash tool, or Claude itself): the orphaned wait ends too.
    let mut shell = std::process::Command::new("sh");
    shell
        .envs(
            hub.clawmux(Some("sky"))
                .get_envs()
                .filter_map(|(k, v)| Some((k, v?))),
        )
        .current_dir(hub.work_dir("sky"))
        .args([
            "-c",
            &format!("'{}' wait & echo $!; exec sleep 60", crate::common::BIN),
        ])
        .stdout(Stdio::piped());
    let mut shell = shell.spawn().unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(shell.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let orphan: u32 = line.trim().parse().unwrap();
    feed.state("sky", "idle", 5 * SEC);
    shell.kill().unwrap();
    shell.wait().unwrap();
    let start = Instant::now();
    wait_until(5 * SEC, || ended(orphan));
    eprintln!(
        "an orphaned wait ended {} ms after its shell",
        start.elapsed().as_millis()
    );

    // The hub is gone for good (its data folder removed): a reconnecting wait gives up.
    let gone = start_wait(&hub, &mut feed, "sky");
    hub.kill();
    std::fs::remove_dir_all(hub.data()).unwrap();
    let out = gone.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("data folder"), "{err}");
}

#[test]
fn a_wait_whose_bash_call_returned_takes_no_message_and_ends() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let mut feed = hub.feed(None);
    let wait_call =
        json!({"tool_name": "Bash", "tool_input": {"command": "clawmux wait"}, "session_id": "c1"});
    let mut pre = wait_call.clone();
    pre["hook_event_name"] = json!("PreToolUse");
    hub.hook("sky", pre);
    let backgrounded = start_wait(&hub, &mut feed, "sky");
    // Claude Code's Bash tool reached its timeout and moved the wait to the background: the call returns.
    let mut post = wait_call;
    post["hook_event_name"] = json!("PostToolUse");
    post["tool_response"] = json!({"stdout": "", "backgroundTaskId": "b1"});
    assert_eq!(hub.hook("sky", post).0, 200);
    let out = backgrounded.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "the backgrounded wait ended");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Bash call"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty(), "it printed no message");
    feed.state("sky", "processing", 2 * SEC);
    // A message sent now waits for the next wait, in the foreground.
    let id = hub.user_message("sky", "are you there?");
    let next = start_wait(&hub, &mut feed, "sky");
    let out = next.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("[MSG id:{id} from:user] are you there?\n")
    );
}

#[test]
fn a_wait_that_names_no_hubs_folder_says_so_at_once() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let start = Instant::now();
    let out = hub
        .clawmux(Some("sky"))
        .env("CLAWMUX_HOME", hub.dir.path().join("no-such-folder"))
        .arg("wait")
        .output()
        .unwrap();
    assert!(start.elapsed() < 2 * SEC, "it did not keep trying");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no hub has a data folder at") && err.contains("CLAWMUX_HOME"),
        "{err}"
    );
}
