//! Where the hub keeps its files, and the per-install token that guards its API.

use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use clawmux_core::remote::MachineName;

use clawmux_core::layout::{DB_FILE, MACHINES_FILE, PORT_FILE, TOKEN_FILE};

/// Files of the hub's own that may sit in the data folder from any version, tightened to 0600 at start.
const OWN_FILES: &[&str] = &[
    TOKEN_FILE,
    MACHINES_FILE,
    DB_FILE,
    "clawmux.db-wal",
    "clawmux.db-shm",
    PORT_FILE,
    "tmux.conf",
    "voice.json",
];
/// Folders of the hub's own whose every file is its own (recordings, agents' settings, the store's copies
/// made before upgrades), tightened the same way. `agents/` is not one: it holds work folders, the user's
/// code, whose modes are the user's.
const OWN_FOLDERS: &[&str] = &["voice", "launch", clawmux_store::BACKUPS_DIR];

/// Makes the data folder private, whatever the umask and whatever an older version left: the folder 0700
/// (so nothing in it can be reached by another user), the database 0600 before SQLite opens it (SQLite
/// gives its WAL and shared-memory files the database's mode), and every file of the hub's own 0600.
pub fn make_private(data_dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(data_dir)?;
    std::fs::set_permissions(data_dir, std::fs::Permissions::from_mode(0o700))?;
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(data_dir.join(DB_FILE))?;
    let tighten = |path: &Path, mode: u32| match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() || meta.is_dir() => {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        }
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    };
    for file in OWN_FILES {
        tighten(&data_dir.join(file), 0o600)?;
    }
    for folder in OWN_FOLDERS {
        let mut pending = vec![data_dir.join(folder)];
        while let Some(dir) = pending.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            tighten(&dir, 0o700)?;
            for entry in entries {
                let entry = entry?;
                if entry.file_type()?.is_dir() {
                    pending.push(entry.path());
                } else {
                    tighten(&entry.path(), 0o600)?;
                }
            }
        }
    }
    Ok(())
}

/// Writes `bytes` to `path`, creating it 0600 whatever the umask (the data folder's files are the user's
/// alone).
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?
        .write_all(bytes)
}

/// `n` random bytes (the system's randomness) as lowercase hex: tokens, codes, ids.
pub fn random_hex(n: usize) -> std::io::Result<String> {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes).map_err(std::io::Error::other)?;
    Ok(clawmux_core::hex::hex(&bytes))
}

/// Reads the install's token, creating it (32 random bytes as hex, mode 0600) on first start.
///
/// The token is what stops any other local program, or a web page in the user's browser, from driving
/// agents through the hub. It is never logged.
pub fn load_or_create_token(data_dir: &Path) -> std::io::Result<String> {
    std::fs::create_dir_all(data_dir)?;
    let path = data_dir.join(TOKEN_FILE);
    match std::fs::read_to_string(&path) {
        Ok(token) if valid_token(token.trim()) => {
            // Someone loosened the mode: tighten it again rather than serve with a readable token.
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
            return Ok(token.trim().to_owned());
        }
        Ok(_) => {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "{} is not a ClawMux token; delete it to make a new one",
                    path.display()
                ),
            ))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let token = random_hex(32)?;
    // create_new: two hubs starting at once cannot both write a token; the loser reads the winner's.
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)
    {
        Ok(mut f) => {
            f.write_all(token.as_bytes())?;
            f.sync_all()?;
            Ok(token)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let token = std::fs::read_to_string(&path)?;
            Ok(token.trim().to_owned())
        }
        Err(e) => Err(e),
    }
}

fn valid_token(t: &str) -> bool {
    t.len() == 64 && t.bytes().all(|b| b.is_ascii_hexdigit())
}

/// How long hearing one hands-free utterance may take, in milliseconds (`Options::hear_within`'s default).
pub const HEAR_WITHIN_MS: u64 = 30_000;

/// How the hub starts and looks after agents. [`Options::from_env`] reads each from the environment, so
/// `clawmux serve` and the app take them the same way.
#[derive(Debug, Clone)]
pub struct Options {
    /// The `clawmux` binary agents and hooks run (`CLAWMUX_BIN`; else the one beside this program).
    pub clawmux: PathBuf,
    /// Claude Code when a spawn names no command (`CLAWMUX_CLAUDE`, default `claude` on PATH).
    pub claude: String,
    /// tmux (`CLAWMUX_TMUX`, default `tmux` on PATH).
    pub tmux: PathBuf,
    /// How long an agent may take to reach its first `clawmux wait` before the UI shows its terminal
    /// (`CLAWMUX_START_TIMEOUT_MS`, default 90 s).
    pub start_timeout: Duration,
    /// How long a working agent may be silent, no tool running, before it is taken to have left the loop
    /// and is reminded to run `clawmux wait` (`CLAWMUX_NUDGE_QUIET_MS`, default 60 s).
    pub nudge_quiet: Duration,
    /// The same after the user interrupted it (`CLAWMUX_NUDGE_AFTER_INTERRUPT_MS`, default 5 s).
    pub nudge_after_interrupt: Duration,
    /// Reminders per time out of the loop before the hub gives up and asks the user (default 3).
    pub nudge_max: u32,
    /// How long a prompt typed into an agent's terminal (a reminder) takes to show as an event before
    /// Enter is pressed again (`CLAWMUX_SUBMIT_WAIT_MS`, default 3 s).
    pub submit_wait: Duration,
    /// How long transcript lines are held so a hook that happened before them is applied first
    /// (`CLAWMUX_REORDER_MS`, default 300 ms). Hooks are never held.
    pub reorder_window: Duration,
    /// How long Claude Code lets one Bash call (a `clawmux wait`) run before it moves it to the background,
    /// set in each agent's settings (`CLAWMUX_BASH_TIMEOUT_MS`, default a day; tests make it short).
    pub bash_timeout: Duration,
    /// How long a connection to the TCP port may send nothing before it is closed
    /// (`CLAWMUX_IDLE_TIMEOUT_MS`, default 60 s).
    pub idle_timeout: Duration,
    /// How long hearing one hands-free utterance may take before the hub answers that the machine is
    /// too busy (`CLAWMUX_HEAR_WITHIN_MS`, default 30 s: under the idle time of its connection).
    pub hear_within: Duration,
    /// Whether a phone's push service may be on this machine (`CLAWMUX_PUSH_ON_LOOPBACK=1`: tests run one;
    /// never otherwise, or a paired phone could make the hub post to any local port).
    pub push_on_loopback: bool,
    /// Where speech models are downloaded from instead of whisper.cpp's repository (`CLAWMUX_MODELS_URL`:
    /// a mirror; the files must still be the pinned ones).
    pub models_url: Option<String>,
    /// How long Claude Code's own view of a session may disagree with ours before the disagreement is
    /// recorded (`CLAWMUX_SECOND_OPINION_MS`, default 5 s).
    pub second_opinion_after: Duration,
    /// Between two agents continued after the same usage-limit reset, so that they do not all start again
    /// in the same second (`CLAWMUX_CONTINUE_GAP_MS`, default 20 s).
    pub continue_gap: Duration,
    /// How full an agent's context may get before the user is told auto-compaction nears, in percent
    /// (`CLAWMUX_CONTEXT_NOTICE_PERCENT`, default 80; 0 is off).
    pub context_notice: u8,
    /// An ssh config file to use instead of the user's `~/.ssh/config` when reaching other machines
    /// (`CLAWMUX_SSH_CONFIG`).
    pub ssh_config: Option<PathBuf>,
    /// How many turns two agents may pass each other in an hour, both ways together, before the next is
    /// refused until the user steps in (`CLAWMUX_TURNS_PER_HOUR`, default 60; acknowledgements not counted).
    pub turns_per_hour: u32,
    /// How long a message between agents may wait in its recipient's inbox before its sender's user is
    /// told (`CLAWMUX_UNDELIVERED_MS`, default 10 minutes).
    pub undelivered_after: Duration,
    /// What this machine calls itself to other machines' hubs, in the address of its agents there
    /// (`sky@laptop`): `CLAWMUX_MACHINE_NAME`, else the host's name made a machine's name.
    pub machine_name: MachineName,
}

impl Options {
    /// The options from the environment, with defaults.
    pub fn from_env() -> Options {
        let ms = |var: &str, default: u64| {
            Duration::from_millis(
                std::env::var(var)
                    .ok()
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or(default),
            )
        };
        Options {
            clawmux: std::env::var_os("CLAWMUX_BIN")
                .map(PathBuf::from)
                .unwrap_or_else(default_clawmux),
            claude: std::env::var("CLAWMUX_CLAUDE").unwrap_or_else(|_| "claude".to_owned()),
            tmux: std::env::var_os("CLAWMUX_TMUX")
                .map_or_else(|| PathBuf::from("tmux"), PathBuf::from),
            start_timeout: ms("CLAWMUX_START_TIMEOUT_MS", 90_000),
            nudge_quiet: ms("CLAWMUX_NUDGE_QUIET_MS", 60_000),
            nudge_after_interrupt: ms("CLAWMUX_NUDGE_AFTER_INTERRUPT_MS", 5_000),
            nudge_max: 3,
            submit_wait: ms("CLAWMUX_SUBMIT_WAIT_MS", 3_000),
            reorder_window: ms("CLAWMUX_REORDER_MS", 300),
            bash_timeout: ms(
                "CLAWMUX_BASH_TIMEOUT_MS",
                clawmux_api::transport::BASH_TIMEOUT_MS,
            ),
            idle_timeout: ms("CLAWMUX_IDLE_TIMEOUT_MS", clawmux_api::transport::IDLE_MS),
            hear_within: ms("CLAWMUX_HEAR_WITHIN_MS", HEAR_WITHIN_MS),
            push_on_loopback: std::env::var("CLAWMUX_PUSH_ON_LOOPBACK").is_ok_and(|v| v == "1"),
            models_url: std::env::var("CLAWMUX_MODELS_URL")
                .ok()
                .filter(|u| !u.is_empty()),
            second_opinion_after: ms("CLAWMUX_SECOND_OPINION_MS", 5_000),
            continue_gap: ms("CLAWMUX_CONTINUE_GAP_MS", 20_000),
            context_notice: std::env::var("CLAWMUX_CONTEXT_NOTICE_PERCENT")
                .ok()
                .and_then(|v| v.trim().parse().ok())
                .filter(|p| *p <= 100)
                .unwrap_or(80),
            ssh_config: std::env::var_os("CLAWMUX_SSH_CONFIG")
                .filter(|c| !c.is_empty())
                .map(PathBuf::from),
            turns_per_hour: std::env::var("CLAWMUX_TURNS_PER_HOUR")
                .ok()
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(60),
            undelivered_after: ms("CLAWMUX_UNDELIVERED_MS", 10 * 60_000),
            machine_name: machine_name(
                std::env::var("CLAWMUX_MACHINE_NAME").ok(),
                std::fs::read_to_string("/proc/sys/kernel/hostname").ok(),
            ),
        }
    }
}

/// This program if it is `clawmux`, else the `clawmux` beside it (the app ships both in one folder), else
/// `clawmux` on PATH.
fn default_clawmux() -> PathBuf {
    let exe = std::env::current_exe().ok();
    if let Some(exe) = &exe {
        if exe.file_name().is_some_and(|n| n == "clawmux") {
            return exe.clone();
        }
        if let Some(sibling) = exe.parent().map(|d| d.join("clawmux")) {
            if sibling.is_file() {
                return sibling;
            }
        }
    }
    crate::lifecycle::launch::resolve_program("clawmux").unwrap_or_else(|| PathBuf::from("clawmux"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_is_created_once_with_mode_0600() {
        let dir = tempfile::tempdir().unwrap();
        let t1 = load_or_create_token(dir.path()).unwrap();
        let t2 = load_or_create_token(dir.path()).unwrap();
        assert_eq!(t1, t2);
        assert!(valid_token(&t1));
        let mode = std::fs::metadata(dir.path().join(TOKEN_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        std::fs::write(dir.path().join(TOKEN_FILE), "garbage").unwrap();
        assert!(load_or_create_token(dir.path()).is_err());
    }
}

/// This machine's name for other machines: the one set, else the host's, each made a machine's name (its
/// first 32 letters, digits, `-` and `_`); `here` when neither gives one.
fn machine_name(set: Option<String>, host: Option<String>) -> MachineName {
    [set, host]
        .into_iter()
        .flatten()
        .find_map(|name| {
            let kept: String = name
                .trim()
                .split('.')
                .next()
                .unwrap_or_default()
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
                .take(clawmux_core::wire::MAX_NAME_LEN)
                .collect();
            MachineName::parse(kept.trim_start_matches(['-', '_'])).ok()
        })
        .unwrap_or_else(MachineName::here)
}

#[cfg(test)]
mod machine_name_tests {
    use super::machine_name;

    #[test]
    fn the_machine_is_named_as_set_else_by_its_host() {
        let name = |set: Option<&str>, host: Option<&str>| {
            machine_name(set.map(str::to_owned), host.map(str::to_owned)).to_string()
        };
        assert_eq!(name(Some("laptop"), Some("box")), "laptop");
        assert_eq!(name(None, Some("dev-box.example.org\n")), "dev-box");
        assert_eq!(name(Some("local"), Some("box")), "box");
        assert_eq!(name(Some("\u{1b}]0;x"), None), "0x");
        assert_eq!(name(None, None), "here");
    }
}
