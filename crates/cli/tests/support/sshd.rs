//! A real OpenSSH server (Debian's `openssh-server`) for the tests of other machines: started on a
//! loopback port with a throwaway host key, letting in only a throwaway user key, and giving its sessions
//! the "remote" machine's environment (its own data folder and HOME, this build's `clawmux` on the PATH).
//! No real `~/.ssh` is read or written: the client gets a config file of its own (`CLAWMUX_SSH_CONFIG`).
//! Shared by the end-to-end tests and the benchmark of a remote hop (`benches/remote.rs`).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

pub struct Sshd {
    child: Child,
    pub port: u16,
    pub dir: tempfile::TempDir,
    /// The client's config: this server's key known, the user's key to log in with.
    pub client_config: PathBuf,
    sshd_config: PathBuf,
}

/// Starts sshd on `config` and returns once it listens; its log goes on to the test's output.
fn listen(config: &Path) -> Child {
    let mut child = Command::new("/usr/sbin/sshd")
        .args(["-D", "-e", "-f"])
        .arg(config)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sshd (Debian's openssh-server; scripts/setup installs it)");
    let (tx, rx) = mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.contains("Server listening") {
                let _ = tx.send(());
            }
            eprintln!("sshd: {line}");
        }
    });
    rx.recv_timeout(Duration::from_secs(10))
        .expect("sshd did not listen");
    child
}

fn keygen(path: &Path) -> String {
    let ok = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "test", "-f"])
        .arg(path)
        .status()
        .unwrap()
        .success();
    assert!(ok, "ssh-keygen");
    let public = std::fs::read_to_string(path.with_extension("pub")).unwrap();
    public
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn user() -> String {
    let out = Command::new("id").arg("-un").output().unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

impl Sshd {
    /// A server whose sessions see `remote_data` as the data folder, `remote_port` as the hub's port, and
    /// the `clawmux` of `bin` first on their PATH.
    pub fn start(remote_data: &Path, remote_port: u16, bin: &Path) -> Sshd {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let host_key = keygen(&d.join("host"));
        let user_key = keygen(&d.join("user"));
        std::fs::write(d.join("authorized_keys"), format!("{user_key}\n")).unwrap();
        let home = d.join("home");
        std::fs::create_dir_all(&home).unwrap();
        let bin = bin.parent().unwrap();
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let sshd_config = d.join("sshd_config");
        std::fs::write(
            &sshd_config,
            format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {host}\nPidFile {d}/sshd.pid\n\
                 AuthorizedKeysFile {d}/authorized_keys\nStrictModes no\nUsePAM no\n\
                 PasswordAuthentication no\nKbdInteractiveAuthentication no\nPubkeyAuthentication yes\n\
                 PermitRootLogin prohibit-password\nAllowUsers {user}\nLogLevel INFO\n\
                 SetEnv HOME={home} PATH={bin}:/usr/local/bin:/usr/bin:/bin CLAWMUX_HOME={data} CLAWMUX_PORT={rport}\n",
                host = d.join("host").display(),
                d = d.display(),
                user = user(),
                home = home.display(),
                bin = bin.display(),
                data = remote_data.display(),
                rport = remote_port,
            ),
        )
        .unwrap();
        if user() == "root" {
            std::fs::create_dir_all("/run/sshd").unwrap();
        }
        let child = listen(&sshd_config);
        let client_config = d.join("ssh_config");
        let sshd = Sshd {
            child,
            port,
            dir,
            client_config,
            sshd_config,
        };
        sshd.write_client_config(&sshd.client_config, &host_key);
        sshd
    }

    /// Writes a client config that knows `host_key` as this server's key.
    pub fn write_client_config(&self, path: &Path, host_key: &str) {
        let d = self.dir.path();
        let known = path.with_extension("known_hosts");
        std::fs::write(&known, format!("[127.0.0.1]:{} {host_key}\n", self.port)).unwrap();
        std::fs::write(
            path,
            format!(
                "Host *\n  IdentityFile {d}/user\n  IdentitiesOnly yes\n  UserKnownHostsFile {known}\n  \
                 GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n  BatchMode yes\n  LogLevel ERROR\n",
                d = d.display(),
                known = known.display(),
            ),
        )
        .unwrap();
    }

    /// A client config that holds another key for this server, as after a machine in the middle.
    pub fn wrong_key_config(&self) -> PathBuf {
        let other = keygen(&self.dir.path().join("other-host"));
        let path = self.dir.path().join("wrong_ssh_config");
        self.write_client_config(&path, &other);
        path
    }

    /// Stops listening: no new login gets in (sessions under way go on, as with a real server).
    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Listens again, on the same port.
    pub fn start_again(&mut self) {
        self.child = listen(&self.sshd_config);
    }

    /// `ssh://user@127.0.0.1:port`.
    pub fn url(&self) -> String {
        format!("ssh://{}@127.0.0.1:{}", user(), self.port)
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
