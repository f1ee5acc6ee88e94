//! "Start at login": a freedesktop autostart entry (`$XDG_CONFIG_HOME/autostart/clawmux.desktop`), which
//! every desktop that follows the XDG autostart rules (GNOME, KDE, Xfce, Cinnamon, MATE, LXQt) runs when
//! the user logs in. Off until the user turns it on; turning it off removes the entry and nothing else.
//!
//! Why the app and not the hub: the entry starts the window, which starts the hub; the browser UI has no
//! login of its own to start at, so only the window offers the setting.

use std::path::{Path, PathBuf};

use clawmux_core::wire::Code;
use clawmux_hub::HubError;

/// The entry's file name in the autostart folder.
const ENTRY: &str = "clawmux.desktop";

/// The autostart folder: `$XDG_CONFIG_HOME/autostart`, else `~/.config/autostart`.
fn folder() -> Option<PathBuf> {
    std::env::var_os("XDG_CONFIG_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .map(|config| config.join("autostart"))
}

/// `program` as an `Exec` key's argument: quoted, with the characters the desktop entry spec reserves
/// inside quotes escaped, and `%` doubled (a field code otherwise).
fn exec_arg(program: &Path) -> String {
    let mut out = String::from("\"");
    for c in program.display().to_string().chars() {
        match c {
            '"' | '`' | '$' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '%' => out.push_str("%%"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The entry that starts `program` at login.
fn entry(program: &Path) -> String {
    format!(
        "[Desktop Entry]\nType=Application\nName=ClawMux\nComment=Your Claude Code agents, from login\n\
         Exec={}\nIcon=clawmux\nTerminal=false\nX-GNOME-Autostart-enabled=true\n",
        exec_arg(program)
    )
}

/// Whether the app starts at login (its entry is there).
#[tauri::command]
pub fn autostart() -> bool {
    folder().is_some_and(|f| f.join(ENTRY).is_file())
}

/// Turns starting at login on (the entry written, 0600, for this app's executable) or off (removed).
#[tauri::command]
pub fn set_autostart(on: bool) -> Result<bool, HubError> {
    let failed = |e: std::io::Error| {
        HubError::new(
            Code::CannotSave,
            format!("cannot change starting at login: {e}"),
        )
    };
    let dir = folder().ok_or_else(|| failed(std::io::Error::other("no home folder")))?;
    let path = dir.join(ENTRY);
    if on {
        let program = std::env::current_exe().map_err(failed)?;
        std::fs::create_dir_all(&dir).map_err(failed)?;
        clawmux_hub::config::write_private(&path, entry(&program).as_bytes()).map_err(failed)?;
    } else {
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(failed(e)),
        }
    }
    Ok(autostart())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entry_runs_this_program_whatever_its_path_holds() {
        let e = entry(Path::new("/opt/Claw Mux/bin/clawmux-desktop"));
        assert!(e.starts_with("[Desktop Entry]\nType=Application\n"), "{e}");
        assert!(
            e.contains("\nExec=\"/opt/Claw Mux/bin/clawmux-desktop\"\n"),
            "{e}"
        );
        assert_eq!(
            exec_arg(Path::new("/home/u/$HOME/a\"b`c\\d%e\nf")),
            "\"/home/u/\\$HOME/a\\\"b\\`c\\\\d%%ef\""
        );
    }
}
