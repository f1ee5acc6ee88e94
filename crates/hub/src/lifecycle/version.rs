//! The version of the Claude Code an agent runs, as it says it (`--version`, a few milliseconds for its
//! native binary): which hook events its settings may name (`clawmux_core::hook::version`). A program
//! that does not say within [`ASK_WITHIN`] gets the settings every supported version knows.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use clawmux_core::hook::version::{parse, Version};

/// How long a program may take to say its version.
const ASK_WITHIN: Duration = Duration::from_secs(3);

/// What `program --version` says, if it says a version.
pub(super) async fn of(program: &Path) -> Option<Version> {
    let asked = tokio::process::Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .output();
    let out = match tokio::time::timeout(ASK_WITHIN, asked).await {
        Ok(Ok(out)) if out.status.success() => out,
        Ok(Ok(_)) | Ok(Err(_)) | Err(_) => {
            tracing::info!(program = %program.display(), "the program did not say its version");
            return None;
        }
    };
    parse(&String::from_utf8_lossy(&out.stdout))
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn program(dir: &Path, name: &str, body: &str) -> std::path::PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[tokio::test]
    async fn a_version_is_what_the_program_says_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let says = program(dir.path(), "says", r#"echo "2.1.332 (Claude Code)""#);
        assert_eq!(of(&says).await, Some([2, 1, 332]));
        let babbles = program(dir.path(), "babbles", "echo hello");
        assert_eq!(of(&babbles).await, None);
        let fails = program(dir.path(), "fails", "echo 2.1.332; exit 1");
        assert_eq!(of(&fails).await, None);
        assert_eq!(of(&dir.path().join("missing")).await, None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_program_that_never_says_is_not_waited_for() {
        let dir = tempfile::tempdir().unwrap();
        let hangs = program(dir.path(), "hangs", "exec sleep 1000");
        assert_eq!(of(&hangs).await, None);
    }
}
