//! The hub's private socket: `<data dir>/hub.sock`, the way agents and the `clawmux` command reach it.
//!
//! A TCP port on loopback is open to every local user, and while the hub is down anyone can bind it: an
//! agent or hook that kept calling it would hand its credential to whoever did, and take their answers
//! for the hub's. A Unix socket in the data folder cannot be stood in for: the folder is 0700, so no other
//! user can create, replace or connect to the file, and each connection's peer is checked to be this
//! user besides (`SO_PEERCRED`). The API is the same as on the port; only what guards it differs (no
//! browser can reach a Unix socket, so there is no `Host` or `Origin` to check).

use std::io;
use std::path::Path;

use tokio::net::{UnixListener, UnixStream};

pub use clawmux_core::layout::{socket_path, SOCKET_FILE};

/// The private socket: accepts only connections from this user's processes.
pub struct PrivateSocket {
    inner: UnixListener,
    uid: u32,
}

impl PrivateSocket {
    /// Binds `<data dir>/hub.sock` (0600). A socket left by a hub that is gone is replaced; one a running
    /// hub answers on is not: two hubs on one data folder would each take the other's agents.
    pub async fn bind(data_dir: &Path) -> io::Result<PrivateSocket> {
        let path = socket_path(data_dir);
        if UnixStream::connect(&path).await.is_ok() {
            return Err(io::Error::new(
                io::ErrorKind::AddrInUse,
                format!(
                    "another hub already serves {} (its socket {} answers)",
                    data_dir.display(),
                    path.display()
                ),
            ));
        }
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        let inner = UnixListener::bind(&path)?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
        Ok(PrivateSocket {
            inner,
            uid: rustix::process::getuid().as_raw(),
        })
    }
}

impl axum::serve::Listener for PrivateSocket {
    type Io = UnixStream;
    type Addr = tokio::net::unix::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            match self.inner.accept().await {
                Ok((stream, addr)) => match stream.peer_cred() {
                    Ok(peer) if peer.uid() == self.uid => return (stream, addr),
                    Ok(peer) => {
                        tracing::warn!(uid = peer.uid(), "refused a connection from another user");
                    }
                    Err(e) => tracing::warn!(error = %e, "refused a connection of unknown origin"),
                },
                Err(e) => super::peers::accept_failed(e).await,
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}
