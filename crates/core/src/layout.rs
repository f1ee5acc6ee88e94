//! Where things are in a hub's data folder, named once: the hub writes there, and the small programs beside
//! it find what they need there without linking the hub (the status line, `clawmux-statusline`, starts
//! at every refresh of an agent's line and must stay a small program).
//!
//! Paths only: nothing here reads or writes a file. What the environment says is passed in.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The status line's program, installed beside `clawmux`.
pub const STATUS_LINE_PROGRAM: &str = "clawmux-statusline";

/// The hub's private socket's file name in the data folder.
pub const SOCKET_FILE: &str = "hub.sock";

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

/// The hub's private socket in a data folder.
pub fn socket_path(data_dir: &Path) -> PathBuf {
    data_dir.join(SOCKET_FILE)
}

/// Where the hub keeps agent `name`'s launch files (its settings), outside its work folder.
pub fn launch_dir(data_dir: &Path, name: &str) -> PathBuf {
    data_dir.join("launch").join(name)
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
