//! A hub that stops serving leaves nothing running: the tasks it started end with it, and a link to another
//! machine (an ssh of the user's) goes with them. The window's process serves a hub of its own, so what a hub
//! leaves behind outlives it there.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::Path;
use std::time::Duration;

use clawmux_hub::config::Options;
use clawmux_hub::http::peers::Loopback;
use clawmux_hub::Hub;

/// Whether process `pid` still runs (a zombie waiting to be reaped does not).
fn running(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z')),
        Err(_) => false,
    }
}

/// Waits, at most `within`, for process `pid` to end; whether it did (a signal takes its moment).
async fn ends(pid: i32, within: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + within;
    while running(pid) {
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    true
}

/// Waits, at most `within`, for `path` to hold a line; its text.
async fn line_in(path: &Path, within: Duration) -> Option<String> {
    let deadline = tokio::time::Instant::now() + within;
    while tokio::time::Instant::now() < deadline {
        if let Ok(text) = std::fs::read_to_string(path) {
            if text.ends_with('\n') {
                return Some(text.trim().to_owned());
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hub_that_stops_ends_its_tasks_and_the_ssh_of_its_links() {
    let dir = tempfile::tempdir().unwrap();
    // The other machine is an ssh that never gets an answer: its proxy writes ssh's pid and then waits
    // on ssh (it ends when ssh does), so the relay stays in its dial for as long as it is let.
    let ssh_pid = dir.path().join("ssh.pid");
    let ssh_config = dir.path().join("ssh_config");
    std::fs::write(
        &ssh_config,
        format!(
            "Host *\n  ProxyCommand sh -c 'echo $PPID > {}; exec cat'\n",
            ssh_pid.display()
        ),
    )
    .unwrap();
    let options = Options {
        models_url: Some("http://127.0.0.1:9".to_owned()),
        ssh_config: Some(ssh_config),
        ..Options::from_env()
    };
    let hub = Hub::open_with(&dir.path().join("data"), options)
        .await
        .unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(clawmux_hub::serve(
        Loopback::bind(0).await.unwrap(),
        hub.clone(),
        async move {
            let _ = stopped.await;
        },
    ));
    hub.machines().add("gpu", "ssh://127.0.0.1:9").unwrap();
    let pid: i32 = line_in(&ssh_pid, Duration::from_secs(30))
        .await
        .expect("the relay dials the machine")
        .parse()
        .unwrap();
    assert!(running(pid), "ssh runs while the hub serves");
    assert!(hub.tasks().running() > 0);

    stop.send(()).unwrap();
    serving.await.unwrap().unwrap();
    assert_eq!(hub.tasks().running(), 0, "every task of the hub ended");
    assert!(
        ends(pid, Duration::from_secs(10)).await,
        "the link's ssh ended with the hub"
    );
    assert!(hub.machines().list().is_empty(), "no machine followed");
}
