//! Who may hold a connection to the hub's TCP port, and for how long.
//!
//! Every local user can connect to a loopback port, and the hub has a limited number of descriptors: 2,000
//! idle connections of another user's once kept it from answering anyone. On loopback the kernel knows
//! whose socket the other end is (socket diagnostics over netlink, as `ss` asks), so a connection from
//! another user's process is closed at once: nobody but the user has any business with the hub (a browser
//! runs as the user). And a connection that sends nothing for [`IDLE_MS`] is closed, whoever holds it: the
//! hub pings its WebSockets at least four times per idle time and every client answers by itself, so only
//! a dead or stalled client is ever idle that long.

use std::future::Future;
use std::io;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::{Instant, Sleep};

/// How long a connection may stay silent, in milliseconds (`Options::idle_timeout`'s default).
pub const IDLE_MS: u64 = 60_000;

/// The hub's TCP listener: only this user's processes (on loopback), idle connections closed.
pub struct UserOnly {
    inner: TcpListener,
    uid: u32,
    idle: Duration,
}

impl UserOnly {
    /// Wraps a bound listener; connections that stay silent for `idle` are closed.
    pub fn new(inner: TcpListener, idle: Duration) -> UserOnly {
        UserOnly {
            inner,
            uid: rustix::process::getuid().as_raw(),
            idle,
        }
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
                    super::accept_failed(e).await;
                    continue;
                }
            };
            let owner = match (peer, stream.local_addr()) {
                (SocketAddr::V4(peer), Ok(SocketAddr::V4(local))) if peer.ip().is_loopback() => {
                    socket_owner(peer, local)
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

/// The user owning the TCP socket whose own address is `own` and whose remote address is `remote`, asked
/// of the kernel by netlink (`NETLINK_SOCK_DIAG`, an exact lookup: what `ss` reads, in tens of
/// microseconds; `/proc/net/tcp` lists every socket of the machine and takes milliseconds). `None` if the
/// kernel does not know it (it closed meanwhile) or cannot be asked.
fn socket_owner(own: SocketAddrV4, remote: SocketAddrV4) -> Option<u32> {
    use rustix::net::{netlink, AddressFamily, RecvFlags, SendFlags, SocketType};
    let fd = rustix::net::socket(
        AddressFamily::NETLINK,
        SocketType::RAW,
        Some(netlink::SOCK_DIAG),
    )
    .ok()?;
    let request = diag_request(own, remote);
    rustix::net::sendto(
        &fd,
        &request,
        SendFlags::empty(),
        &netlink::SocketAddrNetlink::new(0, 0),
    )
    .ok()?;
    let mut answer = [0u8; 512];
    let (_, len) = rustix::net::recv(&fd, &mut answer[..], RecvFlags::empty()).ok()?;
    diag_owner(answer.get(..len)?)
}

/// The netlink message type of a socket-diagnostics request (`SOCK_DIAG_BY_FAMILY`).
const SOCK_DIAG_BY_FAMILY: u16 = 20;

/// A request for one IPv4 TCP socket by its addresses: a netlink header and an `inet_diag_req_v2`.
fn diag_request(own: SocketAddrV4, remote: SocketAddrV4) -> Vec<u8> {
    let mut m = Vec::with_capacity(72);
    m.extend_from_slice(&72u32.to_ne_bytes()); // nlmsg_len
    m.extend_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes()); // nlmsg_type
    m.extend_from_slice(&1u16.to_ne_bytes()); // nlmsg_flags: NLM_F_REQUEST
    m.extend_from_slice(&1u32.to_ne_bytes()); // nlmsg_seq
    m.extend_from_slice(&0u32.to_ne_bytes()); // nlmsg_pid
    m.extend_from_slice(&[2, 6, 0, 0]); // AF_INET, IPPROTO_TCP, no extensions, padding
    m.extend_from_slice(&u32::MAX.to_ne_bytes()); // every state
    m.extend_from_slice(&own.port().to_be_bytes()); // idiag_sport
    m.extend_from_slice(&remote.port().to_be_bytes()); // idiag_dport
    let mut address = |ip: Ipv4Addr| {
        m.extend_from_slice(&ip.octets());
        m.extend_from_slice(&[0; 12]);
    };
    address(*own.ip()); // idiag_src
    address(*remote.ip()); // idiag_dst
    m.extend_from_slice(&0u32.to_ne_bytes()); // idiag_if
    m.extend_from_slice(&[0xff; 8]); // idiag_cookie: INET_DIAG_NOCOOKIE
    m
}

/// The `idiag_uid` of an `inet_diag_msg` answer; `None` for another answer (an error: no such socket) or a
/// short one.
fn diag_owner(answer: &[u8]) -> Option<u32> {
    let kind = u16::from_ne_bytes(answer.get(4..6)?.try_into().ok()?);
    if kind != SOCK_DIAG_BY_FAMILY {
        return None;
    }
    // After the 16-byte header: family, state, timer, retrans (4), the socket id (48), expires, rqueue
    // and wqueue (12), then the uid.
    Some(u32::from_ne_bytes(answer.get(80..84)?.try_into().ok()?))
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

    #[tokio::test]
    async fn the_owner_of_a_loopback_connection_is_asked_of_the_kernel() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (SocketAddr::V4(own), SocketAddr::V4(remote)) =
            (client.local_addr().unwrap(), client.peer_addr().unwrap())
        else {
            panic!("IPv4 loopback");
        };
        let me = rustix::process::getuid().as_raw();
        assert_eq!(socket_owner(own, remote), Some(me));
        let nobody = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 1);
        assert_eq!(socket_owner(nobody, remote), None);
        assert_eq!(diag_request(own, remote).len(), 72);
    }
}
