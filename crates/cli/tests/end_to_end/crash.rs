//! SIGKILL the hub in the middle of a stream of sends: every acknowledged message is stored exactly once,
//! every agent's state is what its recorded events say, and agents carry on after a restart.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::{start_wait, TestHub};
use serde_json::json;

#[test]
fn sigkill_during_sends_loses_and_duplicates_nothing() {
    let mut hub = TestHub::start();
    hub.add_agent("sky");
    hub.add_agent("moon");
    // Known states before the storm: sky COMPACTING (no waiter), moon IDLE in a real `clawmux wait`.
    let mut feed = hub.feed(None);
    let sky_wait = start_wait(&hub, &mut feed, "sky");
    hub.user_message("sky", "wake up");
    sky_wait.wait_with_output().unwrap();
    feed.state("sky", "processing", Duration::from_secs(2));
    hub.hook(
        "sky",
        json!({"hook_event_name":"PreCompact","trigger":"auto"}),
    );
    let mut moon_wait = start_wait(&hub, &mut feed, "moon");
    drop(feed);

    let acked: Arc<Mutex<Vec<String>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let users = {
        let (acked, stop, url, token) = (
            acked.clone(),
            stop.clone(),
            hub.url("/api/sessions/sky/messages"),
            hub.token.clone(),
        );
        std::thread::spawn(move || {
            let http: ureq::Agent = ureq::Agent::config_builder()
                .proxy(None)
                .timeout_global(Some(Duration::from_secs(2)))
                .build()
                .into();
            for i in 0.. {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let body =
                    json!({"text": format!("user {i}"), "client_id": format!("c{i}")}).to_string();
                match http
                    .post(&url)
                    .header("Authorization", format!("Bearer {token}"))
                    .header("Content-Type", "application/json")
                    .send(body.as_str())
                {
                    Ok(mut r) => {
                        let v: serde_json::Value =
                            serde_json::from_str(&r.body_mut().read_to_string().unwrap()).unwrap();
                        acked
                            .lock()
                            .unwrap()
                            .push(v["id"].as_str().unwrap().to_owned());
                    }
                    Err(_) => break,
                }
            }
        })
    };
    let agent_sends = {
        let (acked, stop) = (acked.clone(), stop.clone());
        let mut base = hub.clawmux(Some("sky"));
        base.args(["send", "--to", "user"]);
        let program = base.get_program().to_owned();
        let envs: Vec<_> = base
            .get_envs()
            .map(|(k, v)| (k.to_owned(), v.map(ToOwned::to_owned)))
            .collect();
        let cwd = base.get_current_dir().map(ToOwned::to_owned);
        std::thread::spawn(move || {
            for i in 0.. {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let mut cmd = std::process::Command::new(&program);
                cmd.env_clear();
                for (k, v) in &envs {
                    if let Some(v) = v {
                        cmd.env(k, v);
                    }
                }
                if let Some(d) = &cwd {
                    cmd.current_dir(d);
                }
                let out = cmd
                    .args(["send", "--to", "user", &format!("agent {i}")])
                    .output()
                    .unwrap();
                if out.status.success() {
                    acked
                        .lock()
                        .unwrap()
                        .push(String::from_utf8_lossy(&out.stdout).trim().to_owned());
                }
            }
        })
    };
    // Kill at a random moment once the stream is well under way.
    let kill_after = 100 + fastrand::usize(..200);
    while acked.lock().unwrap().len() < kill_after {
        std::thread::sleep(Duration::from_millis(5));
    }
    hub.kill();
    stop.store(true, Ordering::Relaxed);
    users.join().unwrap();
    agent_sends.join().unwrap();

    // Offline: the file alone says the same as the events.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let store = clawmux_store::Store::open(&hub.data().join("clawmux.db"))
            .await
            .unwrap();
        for agent in store.agents().await.unwrap() {
            assert_eq!(
                store.replay(&agent.name).await.unwrap(),
                agent.snapshot,
                "{}",
                agent.name
            );
        }
        store.close().await;
    });

    hub.restart();
    let acked = acked.lock().unwrap().clone();
    let mut stored: HashMap<String, usize> = HashMap::new();
    for m in hub.history("sky") {
        *stored
            .entry(m["id"].as_str().unwrap().to_owned())
            .or_default() += 1;
    }
    let (mut lost, mut duplicated) = (0, 0);
    for id in &acked {
        match stored.get(id) {
            None => lost += 1,
            Some(1) => {}
            Some(_) => duplicated += 1,
        }
    }
    eprintln!(
        "sent and acknowledged {}, stored {}, lost {lost}, duplicated {duplicated}",
        acked.len(),
        stored.len()
    );
    assert_eq!((lost, duplicated), (0, 0));
    assert!(stored.values().all(|n| *n == 1));
    assert_eq!(hub.session("sky")["state"], "compacting");
    assert_eq!(hub.session("moon")["state"], "idle");
    // moon's wait reconnected by itself and still works.
    let id = hub.user_message("moon", "still there?");
    let done = std::time::Instant::now();
    while moon_wait.try_wait().unwrap().is_none() {
        assert!(
            done.elapsed() < Duration::from_secs(5),
            "moon's wait did not get the message after the restart"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = moon_wait.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("[MSG id:{id} from:user] still there?\n")
    );
}

#[test]
fn an_idle_agent_whose_wait_died_with_the_hub_is_not_shown_idle_forever() {
    let mut hub = TestHub::start();
    hub.add_agent("sky");
    hub.add_agent("moon");
    let mut feed = hub.feed(None);
    let mut sky_wait = start_wait(&hub, &mut feed, "sky");
    let mut moon_wait = start_wait(&hub, &mut feed, "moon");
    drop(feed);
    // The hub dies, and sky's wait dies with it; moon's wait lives on and reconnects.
    hub.kill();
    sky_wait.kill().unwrap();
    sky_wait.wait().unwrap();
    hub.restart();
    let mut feed = hub.feed(None);
    let took = feed.state("sky", "processing", Duration::from_secs(6));
    eprintln!("sky shown as out of its wait {took:?} after the restart");
    assert_eq!(hub.session("moon")["state"], "idle");
    moon_wait.kill().unwrap();
    moon_wait.wait().unwrap();
}
