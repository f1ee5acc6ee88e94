//! Other machines over SSH, with a real OpenSSH server on a loopback port (`common/sshd.rs`) in front of a
//! second hub of its own data folder, "the remote": `clawmux remote add|list|remove`, `--machine` on the
//! commands that talk to a hub, the remote hub started when it does not run, and a host key that does not
//! match refused.

use std::time::Duration;

use crate::common::sshd::Sshd;
use crate::common::{TestHub, BIN};

/// `clawmux args` against the local hub with the test's ssh config; (success, stdout, stderr).
pub(crate) fn clawmux(
    local: &TestHub,
    config: &std::path::Path,
    args: &[&str],
) -> (bool, String, String) {
    let out = local
        .clawmux(None)
        .env("CLAWMUX_SSH_CONFIG", config)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The remote hub: a hub of its own data folder, finding tmux on its PATH for the demo agent.
pub(crate) fn remote_hub() -> TestHub {
    let path = std::env::var("PATH").unwrap_or_default();
    TestHub::start_with_options(&[("PATH", &path)])
}

/// This machine's hub for a test whose machines it is not to reach itself: an empty ssh config (never
/// the user's own).
pub(crate) fn local_hub() -> TestHub {
    TestHub::start_with_options(&[("CLAWMUX_SSH_CONFIG", "/dev/null")])
}

#[test]
fn a_machine_over_ssh_is_kept_reached_and_its_agents_driven_from_here() {
    let remote = remote_hub();
    let sshd = Sshd::start(&remote.data(), remote.port, std::path::Path::new(BIN));
    let config = sshd.client_config.clone();
    let url = sshd.url();
    let local = TestHub::start_with_options(&[("CLAWMUX_SSH_CONFIG", config.to_str().unwrap())]);
    let mut here = local.feed(None);

    let (ok, out, err) = clawmux(&local, &config, &["remote", "add", "gpu", &url]);
    assert!(ok, "{err}");
    assert!(
        out.contains("reached: its hub runs, with 0 agent(s)"),
        "{out}{err}"
    );
    // The running hub was told: it follows the machine at once.
    here.until(Duration::from_secs(20), |v| {
        v["type"] == "machine_link" && v["machine"] == "gpu" && v["up"] == true
    })
    .expect("the running hub follows a machine added on the command line");
    let (_, list, _) = clawmux(&local, &config, &["remote", "list"]);
    assert!(list.contains("gpu") && list.contains(&url), "{list}");
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(local.data().join("machines.json"))
            .unwrap()
            .permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);

    // An agent spawned there, in a folder of that machine, runs on the remote hub, not here.
    let folder = remote.dir.path().join("project");
    std::fs::create_dir_all(&folder).unwrap();
    let mut feed = remote.feed(None);
    let (ok, _, err) = clawmux(
        &local,
        &config,
        &[
            "spawn",
            "sky",
            "--demo",
            "--machine",
            "gpu",
            "--work-dir",
            folder.to_str().unwrap(),
        ],
    );
    assert!(ok, "{err}");
    feed.state("sky", "idle", Duration::from_secs(20));
    let (ok, status, err) = clawmux(&local, &config, &["status", "--machine", "gpu"]);
    assert!(ok && status.contains("sky"), "{status}{err}");
    let (_, here, _) = clawmux(&local, &config, &["status"]);
    assert!(!here.contains("sky"), "{here}");

    // What the remote agents said is found from here.
    remote.user_message("sky", "the otters are on the roof");
    let (ok, found, err) = clawmux(&local, &config, &["search", "otters", "--machine", "gpu"]);
    assert!(
        ok && found.contains("otters are on the roof"),
        "{found}{err}"
    );

    // A hostile hook there: its escape sequences (clear screen, clipboard write, title) never reach
    // this terminal.
    remote.hook(
        "sky",
        serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "t9",
            "tool_input": {"command": "\u{1b}[2J\u{1b}]52;c;ZWNobw==\u{7}\u{1b}]0;owned\u{7}ls"}}),
    );
    let (ok, timeline, err) = clawmux(&local, &config, &["timeline", "sky", "--machine", "gpu"]);
    assert!(ok && timeline.contains("52;c;ZWNobw=="), "{timeline}{err}");
    assert!(
        !timeline.contains(['\u{1b}', '\u{7}']) && !err.contains(['\u{1b}', '\u{7}']),
        "{timeline:?}{err:?}"
    );

    let (ok, _, err) = clawmux(&local, &config, &["terminate", "sky", "--machine", "gpu"]);
    assert!(ok, "{err}");
    feed.state("sky", "dead", Duration::from_secs(20));

    // Refusals say why and change nothing.
    let (ok, _, err) = clawmux(&local, &config, &["status", "--machine", "nope"]);
    assert!(!ok && err.contains("no machine named `nope`"), "{err}");
    let (ok, _, err) = clawmux(&local, &config, &["open", "--machine", "gpu"]);
    assert!(!ok && err.contains("works on this machine only"), "{err}");
    let (ok, _, err) = clawmux(
        &local,
        &config,
        &[
            "spawn",
            "moon",
            "--demo",
            "--machine",
            "gpu",
            "--work-dir",
            "project",
        ],
    );
    assert!(
        !ok && err.contains("give the full path of a folder on gpu"),
        "{err}"
    );
    let (ok, _, err) = clawmux(
        &local,
        &config,
        &["remote", "add", "x", "ssh://-oProxyCommand=touch"],
    );
    assert!(!ok && err.contains("is not an address"), "{err}");
    let (ok, _, err) = clawmux(&local, &config, &["remote", "add", "gpu", &url]);
    assert!(!ok && err.contains("already in the list"), "{err}");

    let (ok, _, err) = clawmux(&local, &config, &["remote", "remove", "gpu"]);
    assert!(ok, "{err}");
    let (_, list, _) = clawmux(&local, &config, &["remote", "list"]);
    assert!(!list.contains("gpu"), "{list}");
    // The running hub forgets it too: no machine listed, no dial of it left running.
    let (_, machines) = local.post("/api/command", None, r#"{"command":"machines"}"#);
    assert_eq!(machines, serde_json::json!([]));
    crate::common::wait_until(Duration::from_secs(10), || {
        kill_dials_of_signal(&remote.data(), "-0") == 0
    });
}

#[test]
fn a_host_key_that_does_not_match_is_refused() {
    let local = local_hub();
    let remote = remote_hub();
    let sshd = Sshd::start(&remote.data(), remote.port, std::path::Path::new(BIN));
    let wrong = sshd.wrong_key_config();
    let (ok, out, err) = clawmux(&local, &wrong, &["remote", "add", "gpu", &sshd.url()]);
    assert!(ok, "the machine is kept: {err}");
    assert!(
        out.contains("not reached yet") && out.contains("does not match"),
        "{out}"
    );
    let (ok, _, err) = clawmux(&local, &wrong, &["status", "--machine", "gpu"]);
    assert!(!ok, "refused");
    assert!(err.contains("host key of `gpu` does not match"), "{err}");
    // With the right key the same machine is reached.
    let (ok, _, err) = clawmux(&local, &sshd.client_config, &["status", "--machine", "gpu"]);
    assert!(ok, "{err}");
}

#[test]
fn a_machine_whose_hub_does_not_run_gets_it_started() {
    let local = local_hub();
    let there = tempfile::tempdir().unwrap();
    let data = there.path().join("data");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let sshd = Sshd::start(&data, port, std::path::Path::new(BIN));
    let config = sshd.client_config.clone();
    let (ok, _, err) = clawmux(&local, &config, &["remote", "add", "gpu", &sshd.url()]);
    assert!(ok, "{err}");
    let (ok, status, err) = clawmux(&local, &config, &["status", "--machine", "gpu"]);
    assert!(ok, "{status}{err}");
    assert!(data.join("port").exists(), "the hub was started there");
    // The hub started there outlives the dial: it is found by its command line, and stopped.
    assert_eq!(stop_hub_of(&data), 1, "one hub was started there");
}

/// An executable `clawmux` in `dir` that runs `body` (sh) instead: a machine's broken or old install.
fn stand_in_clawmux(dir: &std::path::Path, body: &str) -> std::path::PathBuf {
    let script = dir.join("clawmux");
    std::fs::write(&script, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    script
}

/// What a machine without `clawmux`, or with one too old to dial, says: each with what to do. The old
/// one is a script that answers as a `clawmux` without `dial-stdio` does (clap's refusal).
#[test]
fn a_machine_without_clawmux_or_with_an_old_one_says_so_with_the_fix() {
    let local = local_hub();
    let remote = remote_hub();
    let old = tempfile::tempdir().unwrap();
    let script = stand_in_clawmux(
        old.path(),
        "echo \"error: unrecognized subcommand 'dial-stdio'\" >&2\nexit 2",
    );
    let too_old = Sshd::start(&remote.data(), remote.port, &script);
    let (ok, _, err) = clawmux(
        &local,
        &too_old.client_config,
        &["remote", "add", "old", &too_old.url()],
    );
    assert!(ok, "{err}");
    let (ok, _, err) = clawmux(
        &local,
        &too_old.client_config,
        &["status", "--machine", "old"],
    );
    assert!(
        !ok && err.contains("too old to be reached from here: update it there"),
        "{err}"
    );

    // A machine whose shell writes escape sequences as it fails: what ssh relays is made printable.
    let hostile = old.path().join("hostile");
    std::fs::create_dir_all(&hostile).unwrap();
    let script = stand_in_clawmux(
        &hostile,
        "printf '\\033]0;owned\\007\\033[2Jboom\\n' >&2\nexit 3",
    );
    let loud = Sshd::start(&remote.data(), remote.port, &script);
    let (_, out, err) = clawmux(
        &local,
        &loud.client_config,
        &["remote", "add", "loud", &loud.url()],
    );
    assert!(
        out.contains("not reached yet") && out.contains("boom"),
        "{out:?}{err:?}"
    );
    let (ok, out2, err2) = clawmux(
        &local,
        &loud.client_config,
        &["status", "--machine", "loud"],
    );
    assert!(!ok && err2.contains("boom"), "{err2:?}");
    for text in [&out, &err, &out2, &err2] {
        assert!(!text.contains(['\u{1b}', '\u{7}']), "{text:?}");
    }

    let installed = ["/usr/bin/clawmux", "/usr/local/bin/clawmux"]
        .iter()
        .any(|p| std::path::Path::new(p).exists());
    if !installed {
        let none = tempfile::tempdir().unwrap();
        let missing = Sshd::start(&remote.data(), remote.port, &none.path().join("clawmux"));
        clawmux(
            &local,
            &missing.client_config,
            &["remote", "add", "bare", &missing.url()],
        );
        let (ok, _, err) = clawmux(
            &local,
            &missing.client_config,
            &["status", "--machine", "bare"],
        );
        assert!(
            !ok && err.contains("`clawmux` is not installed on `bare`"),
            "{err}"
        );
    }
}

/// `clawmux attach NAME --machine M` runs `clawmux attach NAME` there, by the user's ssh: an agent that has
/// no terminal there is that machine's answer.
#[test]
fn attach_on_another_machine_runs_there() {
    let local = local_hub();
    let remote = remote_hub();
    let sshd = Sshd::start(&remote.data(), remote.port, std::path::Path::new(BIN));
    let config = sshd.client_config.clone();
    clawmux(&local, &config, &["remote", "add", "gpu", &sshd.url()]);
    let (ok, _, err) = clawmux(&local, &config, &["attach", "nope", "--machine", "gpu"]);
    assert!(!ok && err.contains("agent nope has no terminal"), "{err}");
    let (ok, _, err) = clawmux(&local, &config, &["attach", "a;b", "--machine", "gpu"]);
    assert!(!ok && err.contains("not a plain identifier"), "{err}");
}

/// Stops the `clawmux serve` processes whose command line names `data`; how many there were.
fn stop_hub_of(data: &std::path::Path) -> usize {
    let needle = data.to_str().unwrap();
    signal_processes("-TERM", |cmdline, _| {
        cmdline.contains(" serve ") && cmdline.contains(needle)
    })
}

/// Kills the `clawmux dial-stdio` serving the remote data folder `data` (found by the environment sshd
/// gave it), as a link dropping mid-stream would end it.
pub(crate) fn kill_dials_of(data: &std::path::Path) -> usize {
    kill_dials_of_signal(data, "-KILL")
}

/// Sends `signal` to the `clawmux dial-stdio` processes serving `data` (`-0`: counts them).
fn kill_dials_of_signal(data: &std::path::Path, signal: &str) -> usize {
    let needle = format!("CLAWMUX_HOME={}", data.display());
    signal_processes(signal, |cmdline, environ| {
        cmdline.contains("dial-stdio") && environ.split('\0').any(|v| v == needle)
    })
}

/// Kills the newest `ssh` child of process `parent` (a hub's command link: dialled after its feed's).
pub(crate) fn kill_newest_ssh_of(parent: u32) -> usize {
    let mut newest: Option<(u64, String)> = None;
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // After the command's name in parentheses: state, ppid, ... and the start time 22nd.
        let Some((name, rest)) = stat.rsplit_once(") ") else {
            continue;
        };
        let fields: Vec<&str> = rest.split(' ').collect();
        if !name.ends_with("(ssh") || fields.get(1) != Some(&parent.to_string().as_str()) {
            continue;
        }
        let started: u64 = fields.get(19).and_then(|f| f.parse().ok()).unwrap_or(0);
        if newest.as_ref().is_none_or(|(s, _)| started >= *s) {
            newest = Some((started, entry.file_name().to_string_lossy().into_owned()));
        }
    }
    newest.map_or(0, |(_, pid)| {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", &pid])
            .status();
        // Gone, as an ssh whose network went away is by the time the next message comes (a zombie until
        // the hub reaps it).
        crate::common::wait_until(Duration::from_secs(5), || {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
                stat.rsplit_once(") ")
                    .is_some_and(|(_, rest)| rest.starts_with('Z'))
            })
        });
        1
    })
}

/// Sends `signal` to every process whose command line (its words joined by spaces) and environment
/// (`NAME=value` joined by NULs) match; how many there were.
fn signal_processes(signal: &str, matching: impl Fn(&str, &str) -> bool) -> usize {
    let mut signalled = 0;
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let read = |file: &str| {
            String::from_utf8_lossy(&std::fs::read(entry.path().join(file)).unwrap_or_default())
                .into_owned()
        };
        if matching(&read("cmdline").replace('\0', " "), &read("environ")) {
            let pid = entry.file_name().to_string_lossy().into_owned();
            let _ = std::process::Command::new("kill")
                .args([signal, &pid])
                .status();
            signalled += 1;
        }
    }
    signalled
}
