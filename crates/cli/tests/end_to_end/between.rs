//! Between agents with the real `clawmux` binary: an ask answered through the other agent's wait and
//! send, each message's delivery as the window reads it, thanks kept and not delivered, a closed thread,
//! bad input refused with a clear error and nothing stored, and an ask that outlives a hub killed under
//! it.

use serde_json::{json, Value};
use std::process::{Child, Stdio};

use crate::common::feed::needs_is;
use crate::common::{start_wait, TestHub};

fn command(hub: &TestHub, command: Value) -> Value {
    let (status, answer) = hub.post("/api/command", None, &command.to_string());
    assert_eq!(status, 200, "{command}: {answer}");
    answer
}

/// The thread of `a` and `b`: each message's text and delivery.
fn thread(hub: &TestHub, a: &str, b: &str) -> Vec<(String, String)> {
    command(hub, json!({"command": "thread", "a": a, "b": b}))
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["message"]["text"].as_str().unwrap().to_owned(),
                p["delivery"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// `clawmux ask to text` as `from`, running.
fn ask(hub: &TestHub, from: &str, to: &str, text: &str) -> Child {
    hub.clawmux(Some(from))
        .args(["ask", to, text, "--timeout", "60"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The id of the first message line a wait printed.
fn first_id(printed: &str) -> String {
    printed
        .split("[MSG id:")
        .nth(1)
        .and_then(|rest| rest.get(..12))
        .unwrap_or_else(|| panic!("no message in {printed:?}"))
        .to_owned()
}

#[test]
fn an_ask_is_answered_through_the_other_agents_wait_and_each_delivery_is_shown() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    hub.add_agent("moon");
    let mut feed = hub.feed(None);
    let wait = start_wait(&hub, &mut feed, "moon");
    let asking = ask(&hub, "sky", "moon", "which port does the API use?");
    let printed = String::from_utf8(wait.wait_with_output().unwrap().stdout).unwrap();
    assert!(
        printed.contains("from:sky] which port does the API use?"),
        "{printed}"
    );
    let question = first_id(&printed);
    // The hand-over is recorded once the hub reads the wait's confirmation: its inbox says so.
    feed.until(std::time::Duration::from_secs(10), |v| {
        v["type"] == "inbox_update" && v["session_id"] == "moon" && v["pending"] == 0
    })
    .expect("moon's inbox never emptied");
    assert_eq!(
        thread(&hub, "sky", "moon"),
        [(
            "which port does the API use?".to_owned(),
            "handed_over".to_owned()
        )]
    );

    let answer = hub.run(
        Some("moon"),
        &["send", "--to", "sky", "--re", &question, "8080"],
    );
    let out = asking.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        printed.trim(),
        format!("[MSG id:{} from:moon] 8080", answer.trim())
    );
    assert_eq!(
        thread(&hub, "sky", "moon"),
        [
            (
                "which port does the API use?".to_owned(),
                "answered".to_owned()
            ),
            ("8080".to_owned(), "handed_over".to_owned()),
        ]
    );

    // Thanks for an answer is kept in the thread, never handed to moon as a turn; the sender is told.
    let thanks = hub
        .clawmux(Some("sky"))
        .args(["send", "--to", "moon", "--re", answer.trim(), "Thanks!"])
        .output()
        .unwrap();
    assert!(thanks.status.success());
    assert!(
        String::from_utf8_lossy(&thanks.stderr).contains("not handed to moon as a new turn"),
        "{}",
        String::from_utf8_lossy(&thanks.stderr)
    );
    assert_eq!(thread(&hub, "sky", "moon").last().unwrap().1, "not_a_turn");

    // Moon closes the thread with a last word that reaches sky; then neither can write.
    hub.run(Some("moon"), &["close", "sky", "done here"]);
    let (last_word, delivery) = thread(&hub, "sky", "moon").pop().unwrap();
    assert!(last_word.starts_with("done here") && last_word.contains("no answer is expected"));
    assert_eq!(delivery, "queued");
    // Sky's next wait hands it the last word, and not the answer its ask already took.
    let printed = String::from_utf8(
        start_wait(&hub, &mut feed, "sky")
            .wait_with_output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(
        printed.contains("from:moon] done here") && !printed.contains("8080"),
        "{printed}"
    );
    for (from, to) in [("sky", "moon"), ("moon", "sky")] {
        let refused = hub
            .clawmux(Some(from))
            .args(["send", "--to", to, "one more thing"])
            .output()
            .unwrap();
        assert_eq!(refused.status.code(), Some(1));
        let err = String::from_utf8_lossy(&refused.stderr);
        assert!(
            err.contains("thread_closed") || err.contains("closed by"),
            "{err}"
        );
    }
    let threads = command(&hub, json!({"command": "threads"}));
    assert_eq!(threads[0]["closed"]["by"], "moon", "{threads}");
    command(
        &hub,
        json!({"command": "reopen_thread", "a": "moon", "b": "sky"}),
    );
    hub.run(Some("sky"), &["send", "--to", "moon", "reopened"]);
}

#[test]
fn bad_sends_between_agents_are_refused_clearly_and_store_nothing() {
    let hub = TestHub::start_with_options(&[("CLAWMUX_TURNS_PER_HOUR", "2")]);
    hub.add_agent("sky");
    hub.add_agent("moon");
    let refused = |from: &str, args: &[&str], says: &str| {
        let out = hub.clawmux(Some(from)).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    };
    refused(
        "sky",
        &["send", "--to", "sky", "hello me"],
        "cannot write to itself",
    );
    refused("sky", &["ask", "sky", "me?"], "cannot write to itself");
    refused("sky", &["send", "--to", "nobody", "hi"], "nobody");
    refused("sky", &["close", "nobody"], "nobody");
    refused(
        "sky",
        &["send", "--to", "moon", "--re", "msg-zz", "hi"],
        "bad_message_id",
    );
    hub.run(Some("sky"), &["send", "--to", "moon", "one"]);
    hub.run(Some("moon"), &["send", "--to", "sky", "two"]);
    refused("sky", &["send", "--to", "moon", "three"], "the limit");
    let threads = command(&hub, json!({"command": "threads"}));
    assert_eq!(threads.as_array().unwrap().len(), 1, "{threads}");
    assert_eq!(
        (&threads[0]["messages"], &threads[0]["queued"]),
        (&json!(2), &json!(2)),
        "{threads}"
    );
}

#[test]
fn an_ask_outlives_its_hub_killed_and_started_again() {
    let mut hub = TestHub::start();
    hub.add_agent("sky");
    hub.add_agent("moon");
    let mut feed = hub.feed(None);
    let wait = start_wait(&hub, &mut feed, "moon");
    let asking = ask(&hub, "sky", "moon", "is the migration done?");
    let printed = String::from_utf8(wait.wait_with_output().unwrap().stdout).unwrap();
    let question = first_id(&printed);
    hub.crash_and_restart();
    hub.run(
        Some("moon"),
        &["send", "--to", "sky", "--re", &question, "yes, at 14:02"],
    );
    let out = asking.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("from:moon] yes, at 14:02"));
    let states: Vec<String> = thread(&hub, "sky", "moon")
        .into_iter()
        .map(|(_, d)| d)
        .collect();
    assert_eq!(states, ["answered", "handed_over"]);
}

#[test]
fn a_message_that_does_not_get_through_needs_the_senders_user_until_it_is_taken() {
    let hub = TestHub::start_with_options(&[("CLAWMUX_UNDELIVERED_MS", "1500")]);
    hub.add_agent("sky");
    hub.add_agent("moon");
    let mut feed = hub.feed(None);
    hub.run(
        Some("sky"),
        &["send", "--to", "moon", "is the schema done?"],
    );
    let raised = feed
        .until(std::time::Duration::from_secs(20), |v| {
            needs_is(v, "sky", Some("undelivered"))
        })
        .expect("sky needs its user for the message moon did not take");
    let reason = raised["needs"]["reason"].as_str().unwrap();
    assert!(reason.contains("moon has not taken it"), "{reason}");
    assert!(
        raised["needs"]["notice"] == true,
        "the user may dismiss it: {raised}"
    );
    // moon is never the one told.
    assert!(hub.session("moon")["needs"].is_null());
    // moon takes it: sky's "needs you" ends by itself.
    let wait = hub
        .clawmux(Some("moon"))
        .arg("wait")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let printed = String::from_utf8(wait.wait_with_output().unwrap().stdout).unwrap();
    assert!(printed.contains("is the schema done?"), "{printed}");
    feed.until(std::time::Duration::from_secs(20), |v| {
        needs_is(v, "sky", None)
    })
    .expect("the need ends once moon took the message");
}

#[test]
fn an_agent_flooding_a_thread_is_stopped_at_its_count_and_the_others_are_served() {
    let hub = TestHub::start_with_options(&[("CLAWMUX_TURNS_PER_HOUR", "60")]);
    for name in ["sky", "moon", "rain"] {
        hub.add_agent(name);
    }
    // A thousand sends from sky to moon, eight at a time, as fast as the real binary goes.
    let refused = std::sync::atomic::AtomicUsize::new(0);
    let sent = std::sync::atomic::AtomicUsize::new(0);
    let started = std::time::Instant::now();
    std::thread::scope(|s| {
        for t in 0..8 {
            let (hub, refused, sent) = (&hub, &refused, &sent);
            s.spawn(move || {
                for i in 0..125 {
                    let out = hub
                        .clawmux(Some("sky"))
                        .args(["send", "--to", "moon", &format!("flood {t}-{i}")])
                        .output()
                        .unwrap();
                    let counter = if out.status.success() {
                        sent
                    } else {
                        let err = String::from_utf8_lossy(&out.stderr);
                        assert!(err.contains("thread_limit"), "{err}");
                        refused
                    };
                    counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            });
        }
    });
    let (sent, refused) = (sent.into_inner(), refused.into_inner());
    println!(
        "flood: 1000 sends in {:?}: {sent} stored, {refused} refused",
        started.elapsed()
    );
    assert_eq!(
        (sent, refused),
        (60, 940),
        "exactly the hour's count gets through"
    );
    let threads = command(&hub, json!({"command": "threads"}));
    assert_eq!(threads[0]["messages"], 60, "{threads}");
    // Sky's user is told; moon's inbox holds the 60, and the others are served as ever.
    assert_eq!(hub.session("sky")["needs"]["need"], "undelivered");
    hub.run(
        Some("rain"),
        &["send", "--to", "moon", "the build is green"],
    );
    let mut feed = hub.feed(None);
    let printed = String::from_utf8(
        start_wait(&hub, &mut feed, "moon")
            .wait_with_output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(printed.matches("[MSG id:").count(), 61, "{printed}");
    assert!(printed.contains("from:rain] the build is green"));
}
