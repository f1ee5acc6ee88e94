//! Where things are in a hub's data folder, named once: the hub writes there, and the small programs beside
//! it find what they need there without linking the hub (the status line, `clawmux-statusline`, starts
//! at every refresh of an agent's line and must stay a small program).
//!
//! Paths only: nothing here reads or writes a file. What the environment says is passed in, but for
//! [`default_data_dir`], which reads it for the programs that have no other word on it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The status line's program, installed beside `clawmux`.
pub const STATUS_LINE_PROGRAM: &str = "clawmux-statusline";

/// The hub's private socket's file name in the data folder.
pub const SOCKET_FILE: &str = "hub.sock";

/// The token file's name inside the data folder (the desktop's key to the hub's API, 0600).
pub const TOKEN_FILE: &str = "token";

/// The list of the other machines inside the data folder.
pub const MACHINES_FILE: &str = "machines.json";

/// The database file's name inside the data folder.
pub const DB_FILE: &str = "clawmux.db";

/// The file in the data folder that names the TCP port the hub serves browsers on, written once it serves
/// (the `clawmux` command itself uses the private socket).
pub const PORT_FILE: &str = "port";

/// The socket of the agents' tmux server inside the data folder.
pub const TMUX_SOCKET_FILE: &str = "tmux.sock";

/// The longest Claude Code session id taken: it names files and agents.
const MAX_SESSION_ID: usize = 128;

/// The data folder: `$CLAWMUX_HOME` (`clawmux_home`), else `.clawmux` in `$HOME` (`home`, else `/`).
pub fn data_dir(clawmux_home: Option<OsString>, home: Option<OsString>) -> PathBuf {
    match clawmux_home {
        Some(dir) => PathBuf::from(dir),
        None => home
            .map_or_else(|| PathBuf::from("/"), PathBuf::from)
            .join(".clawmux"),
    }
}

/// The data folder this process speaks for: `$CLAWMUX_HOME`, else `~/.clawmux` ([`data_dir`]).
pub fn default_data_dir() -> PathBuf {
    data_dir(std::env::var_os("CLAWMUX_HOME"), std::env::var_os("HOME"))
}

/// The hub's private socket in a data folder.
pub fn socket_path(data_dir: &Path) -> PathBuf {
    data_dir.join(SOCKET_FILE)
}

/// Where the hub keeps agent `name`'s launch files (its settings), outside its work folder.
pub fn launch_dir(data_dir: &Path, name: &str) -> PathBuf {
    data_dir.join("launch").join(name)
}

/// The PID file of agent `name`'s `clawmux wait` under way: in its launch folder, out of its work folder
/// (where git would see it).
pub fn pid_file(data_dir: &Path, name: &str) -> PathBuf {
    launch_dir(data_dir, name).join("waiting")
}

/// The demo agent's transcript, likewise out of its work folder.
pub fn demo_transcript(data_dir: &Path, name: &str) -> PathBuf {
    launch_dir(data_dir, name).join("demo-transcript.jsonl")
}

/// Where the status line of a session ClawMux did not start keeps its last good line: by its Claude Code
/// session id, which must pass [`session_id_ok`].
pub fn observed_status_line(data_dir: &Path, session_id: &str) -> PathBuf {
    data_dir
        .join("observed")
        .join(format!("{session_id}.statusline"))
}

/// Whether `id` is a Claude Code session id as ClawMux takes one: 1 to 128 letters, digits, - and _ (it
/// names files and agents, so nothing else).
pub fn session_id_ok(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_SESSION_ID
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_folder_is_clawmux_home_else_in_home() {
        assert_eq!(
            data_dir(Some("/d".into()), Some("/h".into())),
            PathBuf::from("/d")
        );
        assert_eq!(
            data_dir(None, Some("/h".into())),
            PathBuf::from("/h/.clawmux")
        );
        assert_eq!(data_dir(None, None), PathBuf::from("/.clawmux"));
    }

    #[test]
    fn a_session_id_names_a_file_and_nothing_else() {
        assert!(session_id_ok("0b5e6a2e-4c1f_x"));
        for bad in ["", "../x", "a/b", "a b", "é", &"a".repeat(129)] {
            assert!(!session_id_ok(bad), "{bad}");
        }
        assert!(session_id_ok(&"a".repeat(128)));
    }
}
