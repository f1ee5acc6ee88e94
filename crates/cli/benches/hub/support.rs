//! The hub under measurement: the real release binary started on a fresh data folder (or one prefilled
//! with history), and the clients the figures are measured with.

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};
use sqlx::Connection;
use tungstenite::client::IntoClientRequest;
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

/// The `clawmux` measured: the bench's own release build, or `CLAWMUX_BENCH_BIN` (the profiling build of
/// docs/PROFILE.md, say).
pub static BIN: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    std::env::var("CLAWMUX_BENCH_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_clawmux").to_owned())
});

pub fn pct(samples: &mut [Duration], p: usize) -> Duration {
    samples.sort();
    samples[(samples.len() * p / 100).min(samples.len() - 1)]
}

pub fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

pub struct Hub {
    pub child: Child,
    pub port: u16,
    pub token: String,
    pub dir: tempfile::TempDir,
}

impl Drop for Hub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Hub {
    pub fn start(dir: tempfile::TempDir) -> Hub {
        let mut child = Command::new(&*BIN)
            .env_clear()
            .env("HOME", dir.path())
            .env("RUST_LOG", "warn")
            // The figures send hundreds of messages between two agents within the hour.
            .env("CLAWMUX_TURNS_PER_HOUR", "1000000")
            .args(["serve", "--port", "0", "--data-dir"])
            .arg(dir.path().join("data"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .split("127.0.0.1:")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let token = std::fs::read_to_string(dir.path().join("data/token")).unwrap();
        Hub {
            child,
            port,
            token,
            dir,
        }
    }

    pub fn http(&self) -> ureq::Agent {
        ureq::Agent::config_builder()
            .proxy(None)
            .http_status_as_error(false)
            .build()
            .into()
    }

    pub fn post(&self, http: &ureq::Agent, path: &str, session: Option<&str>, body: &str) -> Value {
        let mut req = http
            .post(format!("http://127.0.0.1:{}{path}", self.port))
            .header("Authorization", format!("Bearer {}", self.token))
            .header("Content-Type", "application/json");
        if let Some(s) = session {
            req = req.header("ClawMux-Session", s);
        }
        let mut resp = req.send(body).unwrap();
        let status = resp.status().as_u16();
        let text = resp.body_mut().read_to_string().unwrap();
        assert!(status < 300, "{path}: {status} {text}");
        serde_json::from_str(&text).unwrap_or(Value::Null)
    }

    /// `GET path` with the token, as JSON.
    pub fn get(&self, http: &ureq::Agent, path: &str) -> Value {
        let mut resp = http
            .get(format!("http://127.0.0.1:{}{path}", self.port))
            .header("Authorization", format!("Bearer {}", self.token))
            .call()
            .unwrap();
        serde_json::from_str(&resp.body_mut().read_to_string().unwrap()).unwrap_or(Value::Null)
    }

    pub fn agent_cmd(&self, agent: &str) -> Command {
        let mut cmd = Command::new(&*BIN);
        let work = self.dir.path().join("data/agents").join(agent);
        cmd.env_clear()
            .env("HOME", self.dir.path())
            .env("CLAWMUX_PORT", self.port.to_string())
            .env("CLAWMUX_HOME", self.dir.path().join("data"))
            .env("CLAWMUX_SESSION_ID", agent)
            .env("CLAWMUX_WORK_DIR", &work)
            .current_dir(work);
        cmd
    }

    pub fn feed(&self) -> WebSocket<MaybeTlsStream<TcpStream>> {
        let url = format!("ws://127.0.0.1:{}/ws?token={}", self.port, self.token);
        tungstenite::connect(url.into_client_request().unwrap())
            .unwrap()
            .0
    }

    pub fn add(&self, http: &ureq::Agent, agent: &str) {
        self.post(
            http,
            "/api/agents",
            None,
            &json!({ "name": agent }).to_string(),
        );
    }

    /// CPU time (user + system) of the hub process, from /proc.
    pub fn cpu(&self) -> Duration {
        stat_cpu(&format!("/proc/{}/stat", self.child.id()), 11)
    }

    pub fn rss_mb(&self) -> f64 {
        self.status_mb("VmRSS:")
    }

    /// The highest resident memory so far (the voice benchmark's).
    #[allow(dead_code)]
    pub fn peak_mb(&self) -> f64 {
        self.status_mb("VmHWM:")
    }

    fn status_mb(&self, field: &str) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let kb: f64 = status
            .lines()
            .find_map(|l| l.strip_prefix(field))
            .unwrap()
            .trim()
            .trim_end_matches(" kB")
            .parse()
            .unwrap();
        kb / 1024.0
    }
}

pub fn next_event(
    ws: &mut WebSocket<MaybeTlsStream<TcpStream>>,
    pred: impl Fn(&Value) -> bool,
) -> Value {
    loop {
        if let Message::Text(t) = ws.read().unwrap() {
            let v: Value = serde_json::from_str(&t).unwrap();
            if pred(&v) {
                return v;
            }
        }
    }
}

/// A database with `n` messages of history for agent `sky`, made before the hub starts.
pub fn prefilled(n: i64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(data.join("agents/sky")).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let path = data.join("clawmux.db");
        let store = clawmux_store::Store::open(&path).await.unwrap();
        let work = data.join("agents/sky");
        store
            .add_agent("sky", work.to_str().unwrap(), clawmux_core::Millis(0))
            .await
            .unwrap();
        store.close().await;
        let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display()))
            .await
            .unwrap();
        sqlx::query(
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?1) \
             INSERT INTO messages (id, agent, kind, sender, recipient, text, at) \
             SELECT printf('msg-%08x', x), 'sky', 'assistant', 'sky', 'user', \
             'history message ' || x || ', about one sentence of text.', x FROM c",
        )
        .bind(n)
        .execute(&mut conn)
        .await
        .unwrap();
        conn.close().await.unwrap();
    });
    dir
}

/// The CPU time of this process's children that have ended (user + system), from /proc (the status-line
/// benchmark's).
#[allow(dead_code)]
pub fn children_cpu() -> Duration {
    stat_cpu("/proc/self/stat", 13)
}

/// The user and system times at fields `first` and `first + 1` (counted after the command's name) of the
/// `stat` file at `path`, in 10 ms ticks.
fn stat_cpu(path: &str, first: usize) -> Duration {
    let stat = std::fs::read_to_string(path).unwrap();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    let ticks: u64 =
        fields[first].parse::<u64>().unwrap() + fields[first + 1].parse::<u64>().unwrap();
    Duration::from_millis(ticks * 10)
}
