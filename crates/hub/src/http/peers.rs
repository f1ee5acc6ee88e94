//! Who may hold a connection to the hub's TCP port, and for how long.
//!
//! Every local user can connect to a loopback port, and the hub has a limited number of descriptors: 2,000
//! idle connections of another user's once kept it from answering anyone. On loopback the kernel knows
//! whose socket the other end is (`/proc/net/tcp`, as identd reads it), so a connection from another
//! user's process is closed at once: nobody but the user has any business with the hub (a browser runs as
//! the user). And a connection that sends nothing for [`IDLE`] is closed, whoever holds it: the hub's
//! WebSockets hear a pong at least every 15 s, so only a dead or stalled client is ever idle that long.

use std::future::Future;
use std::io;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::{Instant, Sleep};

/// How long a connection may stay silent.
pub const IDLE: Duration = Duration::from_secs(60);

/// The hub's TCP listener: only this user's processes (on loopback), idle connections closed.
pub struct UserOnly {
    inner: TcpListener,
    uid: u32,
    idle: Duration,
    owners: Owners,
}

impl UserOnly {
    /// Wraps a bound listener; connections that stay silent for `idle` are closed.
    pub fn new(inner: TcpListener, idle: Duration) -> UserOnly {
        UserOnly {
            inner,
            uid: rustix::process::getuid().as_raw(),
            idle,
            owners: Owners::default(),
        }
    }
}

/// The owners of the connections to the hub, as last read from the kernel's table. One read covers every
/// connection established by then, so a burst of connections waiting to be accepted costs one read, not
/// one each (a flood of thousands would otherwise cost a read of a table of thousands, thousands of times).
/// An entry is taken when its connection is accepted: a later connection with the same addresses is only
/// ever judged by a newer read.
#[derive(Default)]
struct Owners {
    by_peer: std::collections::HashMap<(SocketAddrV4, SocketAddrV4), u32>,
}

impl Owners {
    fn owner(&mut self, peer: SocketAddrV4, local: SocketAddrV4) -> Option<u32> {
        if let Some(uid) = self.by_peer.remove(&(peer, local)) {
            return Some(uid);
        }
        let table = std::fs::read_to_string("/proc/net/tcp").ok()?;
        self.by_peer = connections_to(&table, local);
        self.by_peer.remove(&(peer, local))
    }
}

impl axum::serve::Listener for UserOnly {
    type Io = Idle<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let (stream, peer) = match self.inner.accept().await {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of descriptors, most likely: wait a moment rather than spin.
                    tracing::warn!(error = %e, "cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let owner = match (peer, stream.local_addr()) {
                (SocketAddr::V4(peer), Ok(SocketAddr::V4(local))) if peer.ip().is_loopback() => {
                    self.owners.owner(peer, local)
                }
                _ => None,
            };
            match owner {
                Some(uid) if uid != self.uid => {
                    tracing::debug!(uid, "closed a connection from another user");
                    continue;
                }
                // This user's, or a remote peer's (`--allow-remote`: the token decides).
                Some(_) | None => {
                    let _ = stream.set_nodelay(true);
                    return (Idle::new(stream, self.idle), peer);
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

/// The owners of the sockets connected to `local` (the hub's port), by their own address and `local`, from
/// the kernel's IPv4 socket table (`/proc/net/tcp`: addresses in hex, the uid in the eighth column).
fn connections_to(
    table: &str,
    local: SocketAddrV4,
) -> std::collections::HashMap<(SocketAddrV4, SocketAddrV4), u32> {
    let parse = |field: &str| -> Option<SocketAddrV4> {
        let (ip, port) = field.split_once(':')?;
        let ip = u32::from_str_radix(ip, 16).ok()?;
        let port = u16::from_str_radix(port, 16).ok()?;
        Some(SocketAddrV4::new(Ipv4Addr::from(ip.to_le_bytes()), port))
    };
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let own = parse(fields.get(1)?)?;
            let remote = parse(fields.get(2)?)?;
            let uid = fields.get(7)?.parse().ok()?;
            (remote == local).then_some(((own, remote), uid))
        })
        .collect()
}

/// A stream that fails with `TimedOut` once nothing has been read from it for its idle time.
pub struct Idle<S> {
    inner: S,
    idle: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl<S> Idle<S> {
    fn new(inner: S, idle: Duration) -> Idle<S> {
        Idle {
            inner,
            idle,
            deadline: Box::pin(tokio::time::sleep(idle)),
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Idle<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        match Pin::new(&mut self.inner).poll_read(cx, buf) {
            Poll::Ready(result) => {
                if buf.filled().len() > before {
                    let next = Instant::now() + self.idle;
                    self.deadline.as_mut().reset(next);
                }
                Poll::Ready(result)
            }
            Poll::Pending => match self.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the connection was idle too long",
                ))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Idle<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_owner_is_read_from_the_peers_own_row() {
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
   0: 0100007F:0D84 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1 1\n\
   1: 0100007F:0D84 0100007F:A1B2 01 00000000:00000000 00:00000000 00000000  1000        0 2 1\n\
   2: 0100007F:A1B2 0100007F:0D84 01 00000000:00000000 00:00000000 00000000  1001        0 3 1\n";
        let hub = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0x0D84);
        let peer = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0xA1B2);
        let owners = connections_to(table, hub);
        assert_eq!(
            owners.len(),
            1,
            "only the sockets connected to the hub: {owners:?}"
        );
        assert_eq!(owners.get(&(peer, hub)), Some(&1001));
    }
}
