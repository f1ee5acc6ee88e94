//! Who may hold a connection to the hub's TCP port, and for how long.
//!
//! Every local user can connect to a loopback port, and the hub has a limited number of descriptors: 2,000
//! idle connections of another user's once kept it from answering anyone. On loopback the kernel knows
//! whose socket the other end is (socket diagnostics over netlink, as `ss` asks), so a connection from
//! another user's process is closed at once: nobody but the user has any business with the hub (a browser
//! runs as the user). How long a connection may stay silent, and which one makes room when the budget is
//! spent, is `idle.rs`'s.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};

use super::idle::{Carried, Connections, Held, Idle};

/// After a failed accept (out of descriptors, most likely): say so and wait a moment rather than spin.
pub(super) async fn accept_failed(e: io::Error) {
    tracing::warn!(error = %e, "cannot accept a connection");
    tokio::time::sleep(Duration::from_millis(50)).await;
}

/// The hub's TCP listeners: `127.0.0.1:PORT`, and `[::1]:PORT` held beside it.
///
/// A browser may resolve `localhost` to either address. Were the hub on one alone, another local user could
/// listen on the other at the same port and be reached by a page the user opened at `localhost:PORT`, as
/// if it were the hub. So the hub holds both (where the machine has IPv6 loopback at all; where it has
/// none, nobody can listen there either).
pub struct Loopback {
    /// The IPv4 listener (or the one address of `--bind ... --allow-remote`).
    pub v4: TcpListener,
    /// `[::1]` at the same port, where the machine has it.
    pub v6: Option<TcpListener>,
}

impl Loopback {
    /// Binds `127.0.0.1:port` and `[::1]:port`. With `port` 0, a port free on both (another try when the
    /// IPv6 side was taken meanwhile); with a given port, `[::1]` taken by another program is an error that
    /// says so.
    pub async fn bind(port: u16) -> io::Result<Loopback> {
        let mut last = None;
        for _ in 0..16 {
            let v4 = TcpListener::bind((Ipv4Addr::LOCALHOST, port)).await?;
            let bound = v4.local_addr()?.port();
            match TcpListener::bind((Ipv6Addr::LOCALHOST, bound)).await {
                Ok(v6) => return Ok(Loopback { v4, v6: Some(v6) }),
                Err(e) if no_ipv6_loopback(&e) => return Ok(Loopback { v4, v6: None }),
                Err(e) if e.kind() == io::ErrorKind::AddrInUse && port == 0 => last = Some(e),
                Err(e) if e.kind() == io::ErrorKind::AddrInUse => {
                    return Err(io::Error::new(
                        io::ErrorKind::AddrInUse,
                        format!(
                            "[::1]:{bound} is taken by another program: a browser that resolves localhost to \
                             ::1 would reach it instead of the hub; choose another port"
                        ),
                    ))
                }
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no port free on both loopback addresses")))
    }

    /// A listener bound elsewhere (`clawmux serve --bind ... --allow-remote`): nothing to hold beside it.
    pub fn single(listener: TcpListener) -> Loopback {
        Loopback {
            v4: listener,
            v6: None,
        }
    }
}

/// The machine has no IPv6 loopback (no `::1`, or IPv6 off): nobody can listen there either.
fn no_ipv6_loopback(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::AddrNotAvailable
        || e.raw_os_error() == Some(rustix::io::Errno::AFNOSUPPORT.raw_os_error())
}

/// How many TCP connections the hub holds at once: what the descriptor limit leaves once
/// [`RESERVED_FDS`] are kept for everything else (the database, the private socket and its agents, the
/// agents' terminals and processes, the transcripts).
#[derive(Clone)]
pub struct Budget {
    places: Arc<tokio::sync::Semaphore>,
    most: usize,
}

/// Descriptors never given to TCP connections.
pub const RESERVED_FDS: usize = 256;

impl Budget {
    /// A budget of `most` connections (at least 16).
    pub fn new(most: usize) -> Budget {
        let most = most.clamp(16, tokio::sync::Semaphore::MAX_PERMITS);
        Budget {
            places: Arc::new(tokio::sync::Semaphore::new(most)),
            most,
        }
    }

    /// The budget the process's descriptor limit allows, after raising its soft limit to the hard one.
    pub fn from_limit() -> Budget {
        let limit = raise_descriptor_limit();
        Budget::new(
            usize::try_from(limit)
                .unwrap_or(usize::MAX)
                .saturating_sub(RESERVED_FDS),
        )
    }

    /// A place for one more connection, when one is free.
    pub(super) async fn take(&self) -> Option<Held> {
        self.places.clone().acquire_owned().await.ok().map(Held)
    }

    /// A place for one more connection, if one is free now.
    fn try_take(&self) -> Option<Held> {
        self.places.clone().try_acquire_owned().ok().map(Held)
    }

    /// Connections held now.
    pub fn held(&self) -> usize {
        self.most - self.places.available_permits()
    }
}

/// Raises the soft limit of open descriptors to the hard one (desktops start programs at 1,024, which 2,000
/// idle connections would exhaust); returns the soft limit in force.
pub fn raise_descriptor_limit() -> u64 {
    use rustix::process::{getrlimit, setrlimit, Resource};
    let mut limit = getrlimit(Resource::Nofile);
    if limit.current != limit.maximum {
        let raised = rustix::process::Rlimit {
            current: limit.maximum,
            maximum: limit.maximum,
        };
        match setrlimit(Resource::Nofile, raised) {
            Ok(()) => limit = raised,
            Err(e) => tracing::warn!(error = %e, "cannot raise the limit of open files"),
        }
    }
    limit.current.unwrap_or(u64::MAX)
}

/// The hub's TCP listener: only this user's processes (on loopback), idle connections closed, and no
/// more connections at once than its [`Budget`]: when it is spent, one that answers nothing is closed to
/// make room.
pub struct UserOnly {
    inner: TcpListener,
    uid: u32,
    idle: Duration,
    budget: Budget,
    connections: Connections,
}

impl UserOnly {
    /// Wraps a bound listener; connections that stay silent for `idle` are closed; while `budget` is
    /// spent, a connection that answers nothing is closed for each new one (which waits meanwhile).
    pub fn new(inner: TcpListener, idle: Duration, budget: Budget) -> UserOnly {
        UserOnly {
            inner,
            uid: rustix::process::getuid().as_raw(),
            idle,
            budget,
            connections: Connections::default(),
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
                    accept_failed(e).await;
                    continue;
                }
            };
            // The owner of the other end: the client's socket, whose own address is the peer's.
            let owner = match stream.local_addr() {
                Ok(local) if peer.ip().is_loopback() => socket_owner(peer, local),
                Ok(_) | Err(_) => None,
            };
            match owner {
                Some(uid) if uid != self.uid => {
                    tracing::debug!(uid, "closed a connection from another user");
                    continue;
                }
                // This user's, or a remote peer's (`--allow-remote`: the token decides).
                Some(_) | None => {}
            }
            // The budget spent: a connection that answers nothing makes room (one closing gives its place
            // back), rather than this one waiting behind silent ones.
            let held = match self.budget.try_take() {
                Some(held) => held,
                None => {
                    self.connections.make_room();
                    match self.budget.take().await {
                        Some(held) => held,
                        None => return std::future::pending().await,
                    }
                }
            };
            let _ = stream.set_nodelay(true);
            let activity = self.connections.track();
            return (Idle::new(stream, self.idle, Some(held), activity), peer);
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

impl axum::extract::connect_info::Connected<axum::serve::IncomingStream<'_, UserOnly>> for Carried {
    fn connect_info(stream: axum::serve::IncomingStream<'_, UserOnly>) -> Self {
        Carried::of(stream.io())
    }
}

/// The user owning the TCP socket whose own address is `own` and whose remote address is `remote`, asked
/// of the kernel by netlink (`NETLINK_SOCK_DIAG`, an exact lookup: what `ss` reads, in tens of
/// microseconds; `/proc/net/tcp` lists every socket of the machine and takes milliseconds). `None` if the
/// kernel does not know it (it closed meanwhile) or cannot be asked.
fn socket_owner(own: SocketAddr, remote: SocketAddr) -> Option<u32> {
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

/// A request for one TCP socket (IPv4 or IPv6) by its addresses: a netlink header and an
/// `inet_diag_req_v2`.
fn diag_request(own: SocketAddr, remote: SocketAddr) -> Vec<u8> {
    let family: u8 = if own.is_ipv4() { 2 } else { 10 }; // AF_INET, AF_INET6
    let mut m = Vec::with_capacity(72);
    m.extend_from_slice(&72u32.to_ne_bytes()); // nlmsg_len
    m.extend_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes()); // nlmsg_type
    m.extend_from_slice(&1u16.to_ne_bytes()); // nlmsg_flags: NLM_F_REQUEST
    m.extend_from_slice(&1u32.to_ne_bytes()); // nlmsg_seq
    m.extend_from_slice(&0u32.to_ne_bytes()); // nlmsg_pid
    m.extend_from_slice(&[family, 6, 0, 0]); // family, IPPROTO_TCP, no extensions, padding
    m.extend_from_slice(&u32::MAX.to_ne_bytes()); // every state
    m.extend_from_slice(&own.port().to_be_bytes()); // idiag_sport
    m.extend_from_slice(&remote.port().to_be_bytes()); // idiag_dport
    let mut address = |ip: IpAddr| match ip {
        IpAddr::V4(ip) => {
            m.extend_from_slice(&ip.octets());
            m.extend_from_slice(&[0; 12]);
        }
        IpAddr::V6(ip) => m.extend_from_slice(&ip.octets()),
    };
    address(own.ip()); // idiag_src
    address(remote.ip()); // idiag_dst
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

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_owner_of_a_loopback_connection_is_asked_of_the_kernel() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (own, remote) = (client.local_addr().unwrap(), client.peer_addr().unwrap());
        let me = rustix::process::getuid().as_raw();
        assert_eq!(socket_owner(own, remote), Some(me));
        let nobody = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 1);
        assert_eq!(socket_owner(nobody, remote), None);
        assert_eq!(diag_request(own, remote).len(), 72);
    }

    #[tokio::test]
    async fn both_loopback_addresses_are_held_and_their_owners_known() {
        let held = Loopback::bind(0).await.unwrap();
        let port = held.v4.local_addr().unwrap().port();
        let Some(v6) = &held.v6 else {
            eprintln!("SKIPPED: this machine has no IPv6 loopback (nobody can listen there)");
            return;
        };
        assert_eq!(v6.local_addr().unwrap().port(), port);
        let taken = TcpListener::bind((Ipv6Addr::LOCALHOST, port))
            .await
            .unwrap_err();
        assert_eq!(taken.kind(), io::ErrorKind::AddrInUse);
        // A given port whose IPv6 side another program holds is refused, saying why.
        let other = TcpListener::bind((Ipv6Addr::LOCALHOST, 0)).await.unwrap();
        let busy = other.local_addr().unwrap().port();
        let refused = match Loopback::bind(busy).await {
            Err(e) => e,
            Ok(_) => panic!("bound beside another program's [::1]:{busy}"),
        };
        assert!(
            refused.to_string().contains("resolves localhost"),
            "{refused}"
        );
        // The owner of an IPv6 loopback connection is asked of the kernel too.
        let client = TcpStream::connect((Ipv6Addr::LOCALHOST, port))
            .await
            .unwrap();
        let me = rustix::process::getuid().as_raw();
        assert_eq!(
            socket_owner(client.local_addr().unwrap(), client.peer_addr().unwrap()),
            Some(me)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn the_budget_stops_short_and_is_given_back() {
        let budget = Budget::new(16);
        let mut held = Vec::new();
        for _ in 0..16 {
            held.push(budget.take().await.unwrap());
        }
        assert_eq!(budget.held(), 16);
        let waiting = tokio::time::timeout(Duration::from_secs(3600), budget.take()).await;
        assert!(
            waiting.is_err(),
            "spent: the next waits (an hour, of paused time)"
        );
        held.pop();
        assert!(budget.take().await.is_some(), "a place given back is taken");
        drop(held);
        assert_eq!(budget.held(), 0);
    }
}
