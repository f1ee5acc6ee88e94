//! Another account on this machine, made for a test (root only: `useradd`, then `setpriv` to run as it)
//! and removed after it.

use std::process::Command;

/// Another local account, made for the test while it runs as root (and removed after); `None` where the
/// tests do not run as root or cannot make users: the test is then skipped ([`super::cannot_run`]: a
/// failure in CI, never a silent pass). Each
/// test has its own (tests run at once, and one's removal must not pull the user from under another).
pub struct OtherUser {
    name: &'static str,
}

impl OtherUser {
    pub fn make(name: &'static str) -> Option<OtherUser> {
        let root = std::fs::metadata("/proc/self")
            .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
            .unwrap_or(false);
        if !root {
            super::cannot_run(name, "not root, so no other user can be made");
            return None;
        }
        let exists = Command::new("id")
            .arg(name)
            .output()
            .is_ok_and(|o| o.status.success());
        if !exists {
            let made = Command::new("useradd")
                .args([
                    "--system",
                    "--no-create-home",
                    "--shell",
                    "/usr/sbin/nologin",
                    name,
                ])
                .status();
            if !made.is_ok_and(|s| s.success()) {
                super::cannot_run(name, "useradd could not make a user");
                return None;
            }
        }
        Some(OtherUser { name })
    }

    /// `program args` run as the other user, with nothing of ours in its environment.
    pub fn command(&self, program: &str, args: &[&str]) -> Command {
        let mut cmd = Command::new("setpriv");
        cmd.env_clear()
            .env("PATH", "/usr/bin:/bin")
            .args([
                &format!("--reuid={}", self.name),
                &format!("--regid={}", self.name),
                "--clear-groups",
                "--",
                program,
            ])
            .args(args)
            .current_dir("/");
        cmd
    }
}

impl Drop for OtherUser {
    fn drop(&mut self) {
        let _ = Command::new("userdel").arg(self.name).status();
    }
}
