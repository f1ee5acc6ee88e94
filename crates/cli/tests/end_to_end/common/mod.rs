//! A real hub for tests: `clawmux serve --port 0` in a temporary data folder, with a temporary HOME so no
//! test can touch the real `~/.clawmux` or `~/.claude`, plus helpers to run `clawmux` as an agent would
//! and to watch the UI feed (so tests wait for events, not for time).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod feed;
pub mod other_user;
pub mod raw_http;
#[path = "../../support/sshd.rs"]
pub mod sshd;

pub use feed::Feed;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tungstenite::client::IntoClientRequest;
use tungstenite::stream::MaybeTlsStream;

pub const BIN: &str = env!("CARGO_BIN_EXE_clawmux");

pub struct TestHub {
    pub child: Child,
    pub port: u16,
    pub token: String,
    pub dir: tempfile::TempDir,
    /// The hub's options (`CLAWMUX_*` variables), kept for a restart.
    options: Vec<(String, String)>,
}

impl TestHub {
    pub fn start() -> TestHub {
        TestHub::start_logging("info")
    }

    /// A hub whose log (`<tmp>/hub.log`) is filtered by `filter` (RUST_LOG syntax).
    pub fn start_logging(filter: &str) -> TestHub {
        TestHub::start_in(tempfile::tempdir().unwrap(), filter)
    }

    /// A hub with options (`CLAWMUX_*` variables of its environment).
    pub fn start_with_options(options: &[(&str, &str)]) -> TestHub {
        let options: Vec<(String, String)> = options
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        TestHub::start_full(tempfile::tempdir().unwrap(), "info", options)
    }

    /// A hub on the data folder `<dir>/data`, which may already hold what a test put there.
    pub fn start_in(dir: tempfile::TempDir, filter: &str) -> TestHub {
        TestHub::start_full(dir, filter, Vec::new())
    }

    /// A hub on `<dir>/data` with options (`CLAWMUX_*` and other variables of its environment).
    pub fn start_full(
        dir: tempfile::TempDir,
        filter: &str,
        options: Vec<(String, String)>,
    ) -> TestHub {
        let (child, port) = spawn_serve(dir.path(), 0, filter, &options);
        // The hub records its port just after it says it listens: once that is there, it is all set up.
        let port_file = dir.path().join("data/port");
        wait_until(Duration::from_secs(5), || port_file.exists());
        let token = std::fs::read_to_string(dir.path().join("data/token")).unwrap();
        TestHub {
            child,
            port,
            token,
            dir,
            options,
        }
    }

    /// Kills the hub with SIGKILL and starts a new one on the same data folder and port.
    pub fn crash_and_restart(&mut self) {
        self.kill();
        self.restart();
    }

    /// SIGKILL.
    pub fn kill(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// Starts the hub again on the same data folder and port.
    pub fn restart(&mut self) {
        let (child, port) = spawn_serve(self.dir.path(), self.port, "info", &self.options);
        assert_eq!(port, self.port);
        self.child = child;
    }

    /// CPU time (user + system) the hub process has used so far, from /proc (in clock ticks of 10 ms).
    pub fn cpu_time(&self) -> Duration {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap();
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .unwrap()
            .1
            .split_whitespace()
            .collect();
        let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
        Duration::from_millis(ticks * 10)
    }

    pub fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// `clawmux` with a clean environment pointing at this hub; `agent` sets CLAWMUX_SESSION_ID and the
    /// agent's work folder, as a spawned agent's environment would.
    pub fn clawmux(&self, agent: Option<&str>) -> Command {
        let mut cmd = Command::new(BIN);
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.dir.path())
            .env("CLAWMUX_HOME", self.data())
            .env("CLAWMUX_PORT", self.port.to_string());
        if let Some(a) = agent {
            let work = self.dir.path().join("agents").join(a);
            cmd.env("CLAWMUX_SESSION_ID", a)
                .env("CLAWMUX_WORK_DIR", &work)
                .current_dir(&work);
        }
        cmd
    }

    /// `clawmux-statusline`, the status line ClawMux sets for its agents, in the environment of
    /// [`TestHub::clawmux`]: the workspace's build of it, beside `clawmux`.
    pub fn status_line(&self, agent: Option<&str>) -> Command {
        let program = Path::new(BIN).with_file_name(clawmux_core::layout::STATUS_LINE_PROGRAM);
        assert!(
            program.is_file(),
            "{} is not built: cargo build -p clawmux-statusline",
            program.display()
        );
        let clawmux = self.clawmux(agent);
        let mut cmd = Command::new(program);
        cmd.env_clear();
        for (k, v) in clawmux.get_envs() {
            if let Some(v) = v {
                cmd.env(k, v);
            }
        }
        if let Some(dir) = clawmux.get_current_dir() {
            cmd.current_dir(dir);
        }
        cmd
    }

    pub fn work_dir(&self, agent: &str) -> PathBuf {
        self.dir.path().join("agents").join(agent)
    }

    /// Runs `clawmux args` (as the agent, if named) and requires it to succeed; returns what it printed.
    pub fn run(&self, agent: Option<&str>, args: &[&str]) -> String {
        let out = self.clawmux(agent).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "clawmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Registers an agent through the CLI, in `<tmp>/agents/<name>`.
    pub fn add_agent(&self, name: &str) {
        let work = self.work_dir(name);
        self.run(
            None,
            &["agent", "add", name, "--work-dir", work.to_str().unwrap()],
        );
    }

    pub fn http(&self) -> ureq::Agent {
        self.http_within(Duration::from_secs(10))
    }

    /// A client that waits up to `within` for an answer: speech heard on the device takes a second
    /// alone, and many on a machine whose cores are busy (the hub answers within its own bound).
    pub fn http_within(&self, within: Duration) -> ureq::Agent {
        ureq::Agent::config_builder()
            .http_status_as_error(false)
            .proxy(None)
            .timeout_global(Some(within))
            .build()
            .into()
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// An authorised request; returns status and JSON body.
    pub fn post(&self, path: &str, session: Option<&str>, body: &str) -> (u16, Value) {
        let mut req = self
            .http()
            .post(self.url(path))
            .header("Authorization", format!("Bearer {}", self.token))
            .header("Content-Type", "application/json");
        if let Some(s) = session {
            req = req.header("ClawMux-Session", s);
        }
        answer(req.send(body))
    }

    /// A POST that declares a body of `length` bytes and sends none of it: the answer a client gets for
    /// its request head alone (a hub refusing an oversized body answers before reading it).
    pub fn post_declaring(&self, path: &str, content_type: &str, length: usize) -> (u16, Value) {
        use std::io::{Read, Write};
        let mut socket = std::net::TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        socket
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        write!(
            socket,
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}\r\n\
             ClawMux-Session: sky\r\nContent-Type: {content_type}\r\nContent-Length: {length}\r\n\
             Connection: close\r\n\r\n",
            self.port, self.token
        )
        .unwrap();
        let mut answer = Vec::new();
        socket
            .read_to_end(&mut answer)
            .expect("an answer before the body");
        status_and_body(&answer)
    }

    pub fn get(&self, path: &str) -> (u16, Value) {
        answer(
            self.http()
                .get(self.url(path))
                .header("Authorization", format!("Bearer {}", self.token))
                .call(),
        )
    }

    /// An authorised GET whose answer is text (JSON lines), read whole.
    pub fn get_text(&self, path: &str) -> String {
        let mut resp = self
            .http()
            .get(self.url(path))
            .header("Authorization", format!("Bearer {}", self.token))
            .call()
            .unwrap();
        assert_eq!(resp.status().as_u16(), 200, "{path}");
        resp.body_mut()
            .with_config()
            .limit(1 << 30)
            .read_to_string()
            .unwrap()
    }

    pub fn user_message(&self, agent: &str, text: &str) -> String {
        let (status, v) = self.post(
            &format!("/api/sessions/{agent}/messages"),
            None,
            &json!({ "text": text }).to_string(),
        );
        assert_eq!(status, 200, "{v}");
        v["id"].as_str().unwrap().to_owned()
    }

    pub fn session(&self, agent: &str) -> Value {
        let (_, v) = self.get("/api/sessions");
        v.as_array()
            .unwrap()
            .iter()
            .find(|s| s["session_id"] == agent)
            .unwrap()
            .clone()
    }

    pub fn history(&self, agent: &str) -> Vec<Value> {
        let (status, v) = self.get(&format!("/api/history/{agent}?limit=1000"));
        assert_eq!(status, 200, "{v}");
        v["messages"].as_array().unwrap().clone()
    }

    /// The UI feed, from `cursor` if given.
    pub fn feed(&self, cursor: Option<&str>) -> Feed {
        let mut url = format!("ws://127.0.0.1:{}/ws?token={}", self.port, self.token);
        if let Some(c) = cursor {
            url.push_str(&format!("&cursor={c}"));
        }
        let (ws, _) = tungstenite::connect(url.into_client_request().unwrap()).unwrap();
        if let MaybeTlsStream::Plain(s) = ws.get_ref() {
            s.set_read_timeout(Some(Duration::from_millis(100)))
                .unwrap();
        }
        Feed { ws }
    }

    /// A tool hook as Claude Code's HTTP hook sends it.
    pub fn hook(&self, agent: &str, payload: Value) -> (u16, Value) {
        self.post("/api/hooks/tool-status", Some(agent), &payload.to_string())
    }

    /// Runs a command hook with `payload` on stdin; returns (exit code, stderr).
    pub fn command_hook(&self, agent: Option<&str>, args: &[&str], payload: &str) -> (i32, String) {
        let out = self.command_hook_output(agent, args, payload);
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// Runs a command hook with `payload` on stdin; returns all it did.
    pub fn command_hook_output(
        &self,
        agent: Option<&str>,
        args: &[&str],
        payload: &str,
    ) -> std::process::Output {
        let mut cmd = self.clawmux(agent);
        cmd.args(args);
        output_with(cmd, payload)
    }
}

/// Runs `cmd` with `stdin` written to it, as Claude Code runs a hook or a status line: what it printed.
pub fn output_with(mut cmd: Command, stdin: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

impl Drop for TestHub {
    /// The hub goes, and so do its agents' terminals (a test that failed half way may have left agents
    /// running): a test leaves no process behind.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(self.data().join("tmux.sock"))
            .arg("kill-server")
            .stderr(Stdio::null())
            .status();
    }
}

fn answer(resp: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> (u16, Value) {
    let mut resp = resp.unwrap();
    let status = resp.status().as_u16();
    let text = resp.body_mut().read_to_string().unwrap_or_default();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

fn spawn_serve(dir: &Path, port: u16, filter: &str, options: &[(String, String)]) -> (Child, u16) {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("hub.log"))
        .unwrap();
    let mut child = Command::new(BIN)
        .env_clear()
        .env("HOME", dir)
        .env("RUST_LOG", filter)
        .envs(options.iter().map(|(k, v)| (k, v)))
        .args(["serve", "--port", &port.to_string(), "--data-dir"])
        .arg(dir.join("data"))
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .split("127.0.0.1:")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {line:?}"));
    (child, port)
}

/// Spawns `clawmux wait` for `agent` and returns it once the hub has it (the agent is idle).
pub fn start_wait(hub: &TestHub, feed: &mut Feed, agent: &str) -> Child {
    let child = hub
        .clawmux(Some(agent))
        .arg("wait")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    feed.state(agent, "idle", Duration::from_secs(5));
    child
}

/// Polls a condition that has no event of its own (a file on disk, a row count), briefly.
pub fn wait_until(within: Duration, cond: impl Fn() -> bool) {
    let deadline = Instant::now() + within;
    while !cond() {
        assert!(
            Instant::now() < deadline,
            "condition not met within {within:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A test (or a part of one, named by `what`) that cannot run on this machine. Never a pass: in CI (`CI`
/// set) it fails; elsewhere it says so, and is listed in the file `CLAWMUX_SKIPPED` names, which
/// `scripts/test` prints as skipped at the end of its run.
pub fn cannot_run(what: &str, why: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{what} cannot run here ({why}): in CI every test must run"
    );
    eprintln!("SKIPPED: {what}: {why}");
    if let Some(list) = std::env::var_os("CLAWMUX_SKIPPED") {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(list)
        {
            let _ = writeln!(f, "{what}: {why}");
        }
    }
}

/// An HTTP/1.1 answer read whole off a socket: its status and its body as JSON.
pub fn status_and_body(answer: &[u8]) -> (u16, Value) {
    let answer = String::from_utf8_lossy(answer);
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = answer.split("\r\n\r\n").nth(1).unwrap_or("");
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}
