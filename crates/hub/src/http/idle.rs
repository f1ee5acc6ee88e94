//! How long a TCP connection may stay silent, and which one makes room when a listener is full.
//!
//! A connection that sends nothing for its idle time is closed: only a dead, stalled or hostile client is
//! silent that long (the hub pings its WebSockets). Three refinements make that rule fit a door whose
//! answers may take a day, as a permission's does:
//! - While the connection carries a request being answered ([`Activity::answering`]), the client's
//!   silence is expected, and nothing closes it: Claude Code's PermissionRequest hook waits, silent, for
//!   as long as the user takes (its own timeout is a day), through the agent's relay.
//! - A new connection must send its first bytes within [`FIRST_BYTES`]: one that never does is closed
//!   long before the idle time.
//! - A listener that is full makes room by closing one connection that answers nothing, the never-spoken
//!   first, then the oldest ([`Connections::make_room`]): a hook never waits behind silent connections.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use clawmux_core::sync::Locked;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// How long a new connection may take to send its first bytes.
pub const FIRST_BYTES: Duration = Duration::from_secs(5);

/// What one connection is doing, shared by its stream, its listener and the requests it carries.
#[derive(Default)]
pub struct Activity {
    /// Requests being answered on it now.
    answering: AtomicUsize,
    /// Whether its client has sent anything yet.
    spoke: AtomicBool,
    /// Asked to close, to make room.
    closing: AtomicBool,
    /// The task reading it, woken to close it.
    reader: Mutex<Option<Waker>>,
}

impl Activity {
    /// A connection's activity, nothing carried yet.
    pub fn new() -> Arc<Activity> {
        Arc::new(Activity::default())
    }

    /// Marks a request being answered until the guard is dropped: meanwhile the connection is neither
    /// closed for its client's silence nor to make room.
    pub fn answering(self: &Arc<Self>) -> Answering {
        self.answering.fetch_add(1, Ordering::SeqCst);
        Answering(Arc::clone(self))
    }

    fn is_answering(&self) -> bool {
        self.answering.load(Ordering::SeqCst) > 0
    }

    /// Asks the connection to close at its next read, unless it is answering by then.
    fn close(&self) {
        self.closing.store(true, Ordering::SeqCst);
        let reader = self.reader.locked().take();
        if let Some(reader) = reader {
            reader.wake();
        }
    }

    fn remember_reader(&self, waker: &Waker) {
        let mut reader = self.reader.locked();
        if !reader.as_ref().is_some_and(|w| w.will_wake(waker)) {
            *reader = Some(waker.clone());
        }
    }
}

/// A request being answered on a connection ([`Activity::answering`]).
pub struct Answering(Arc<Activity>);

impl Drop for Answering {
    fn drop(&mut self) {
        self.0.answering.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The connections a listener has handed out, for making room when it is full.
#[derive(Default)]
pub struct Connections {
    open: Vec<Weak<Activity>>,
}

impl Connections {
    /// The activity of a connection just accepted.
    pub fn track(&mut self) -> Arc<Activity> {
        self.open.retain(|c| c.strong_count() > 0);
        let activity = Activity::new();
        self.open.push(Arc::downgrade(&activity));
        activity
    }

    /// Closes one connection that answers nothing, to make room: one whose client never spoke first,
    /// then the oldest. Whether one was found.
    pub fn make_room(&mut self) -> bool {
        self.open.retain(|c| c.strong_count() > 0);
        let open: Vec<Arc<Activity>> = self.open.iter().filter_map(Weak::upgrade).collect();
        let free = |c: &&Arc<Activity>| !c.is_answering() && !c.closing.load(Ordering::SeqCst);
        let chosen = open
            .iter()
            .filter(free)
            .find(|c| !c.spoke.load(Ordering::SeqCst))
            .or_else(|| open.iter().find(free));
        match chosen {
            Some(c) => {
                c.close();
                true
            }
            None => false,
        }
    }
}

/// A stream that fails with `TimedOut` once nothing has been read from it for its idle time (its first
/// bytes within [`FIRST_BYTES`]) while it answers nothing, and with `ConnectionAborted` once its listener
/// closes it to make room.
pub struct Idle<S> {
    inner: S,
    idle: Duration,
    deadline: Pin<Box<Sleep>>,
    activity: Arc<Activity>,
    /// Its place in the listener's budget, given back when it closes.
    _held: Option<Held>,
}

impl<S> Idle<S> {
    /// A connection holding its place in a listener's budget, doing what `activity` says.
    pub(super) fn new(
        inner: S,
        idle: Duration,
        held: Option<Held>,
        activity: Arc<Activity>,
    ) -> Idle<S> {
        Idle {
            inner,
            idle,
            deadline: Box::pin(tokio::time::sleep(idle.min(FIRST_BYTES))),
            activity,
            _held: held,
        }
    }

    /// What the connection is doing.
    pub fn activity(&self) -> &Arc<Activity> {
        &self.activity
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Idle<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.activity.closing.load(Ordering::SeqCst) && !self.activity.is_answering() {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "closed to make room for another connection",
            )));
        }
        let before = buf.filled().len();
        match Pin::new(&mut self.inner).poll_read(cx, buf) {
            Poll::Ready(result) => {
                if buf.filled().len() > before {
                    if !self.activity.spoke.load(Ordering::Relaxed) {
                        self.activity.spoke.store(true, Ordering::Relaxed);
                    }
                    let next = Instant::now() + self.idle;
                    self.deadline.as_mut().reset(next);
                }
                Poll::Ready(result)
            }
            Poll::Pending => {
                self.activity.remember_reader(cx.waker());
                loop {
                    match self.deadline.as_mut().poll(cx) {
                        Poll::Pending => return Poll::Pending,
                        // The client waits for an answer: its silence is no fault.
                        Poll::Ready(()) if self.activity.is_answering() => {
                            let next = Instant::now() + self.idle;
                            self.deadline.as_mut().reset(next);
                        }
                        Poll::Ready(()) => {
                            return Poll::Ready(Err(io::Error::new(
                                io::ErrorKind::TimedOut,
                                "the connection was idle too long",
                            )))
                        }
                    }
                }
            }
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

/// One connection's place in its listener's budget (`peers::Budget`), given back when it closes.
pub struct Held(#[allow(dead_code)] pub(super) tokio::sync::OwnedSemaphorePermit);

/// A connection's [`Activity`] as a request's `ConnectInfo`, for a handler that may answer slowly to hold
/// [`Activity::answering`] (`Router::into_make_service_with_connect_info::<Carried>()`).
#[derive(Clone)]
pub struct Carried(pub Arc<Activity>);

impl Carried {
    /// The activity of the connection `stream` was accepted as (each listener's `Connected` says so).
    pub fn of<S>(stream: &Idle<S>) -> Carried {
        Carried(Arc::clone(stream.activity()))
    }
}

/// Middleware: a request is being answered from the moment it reaches the router until its answer is
/// made, so a slow answer (an utterance heard on a busy machine) never finds its connection closed for
/// the client's silence. A connection served without its [`Carried`] (the private socket, which has no
/// idle time) is left as it is.
pub async fn while_answering(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let answering = req
        .extensions()
        .get::<axum::extract::ConnectInfo<Carried>>()
        .map(|info| info.0 .0.answering());
    let response = next.run(req).await;
    drop(answering);
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test(start_paused = true)]
    async fn a_connection_is_closed_only_after_its_idle_time_of_silence() {
        let idle = Duration::from_secs(60);
        let (mut client, server) = tokio::io::duplex(64);
        let mut server = Idle::new(server, idle, None, Activity::new());
        let t0 = Instant::now();
        // Bytes every 59 s keep it open, whatever the total (the first ones at once).
        for wait in [0, 59, 59, 59] {
            tokio::time::sleep(Duration::from_secs(wait)).await;
            client.write_all(b"x").await.unwrap();
            let mut byte = [0u8; 1];
            server.read_exact(&mut byte).await.unwrap();
        }
        let heard = Instant::now();
        assert_eq!(heard - t0, Duration::from_secs(177));
        // Then silence: the read fails once the idle time has passed since the last byte, not before.
        let mut byte = [0u8; 1];
        let err = server.read(&mut byte).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert_eq!(Instant::now() - heard, idle);
    }

    #[tokio::test(start_paused = true)]
    async fn a_connection_that_never_speaks_is_closed_after_its_first_seconds() {
        let (_client, server) = tokio::io::duplex(64);
        let mut server = Idle::new(server, Duration::from_secs(60), None, Activity::new());
        let t0 = Instant::now();
        let err = server.read(&mut [0u8; 1]).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert_eq!(Instant::now() - t0, FIRST_BYTES);
    }

    #[tokio::test(start_paused = true)]
    async fn a_client_waiting_for_its_answer_is_never_idle_however_long() {
        let idle = Duration::from_secs(60);
        let (mut client, server) = tokio::io::duplex(64);
        let activity = Activity::new();
        let mut server = Idle::new(server, idle, None, Arc::clone(&activity));
        client.write_all(b"request").await.unwrap();
        server.read_exact(&mut [0u8; 7]).await.unwrap();
        let answering = activity.answering();
        // A day of silence while the request is answered: still open.
        let mut byte = [0u8; 1];
        let read = tokio::time::timeout(Duration::from_secs(86_400), server.read(&mut byte));
        assert!(read.await.is_err(), "closed while answering");
        // Answered: the idle time counts again from here.
        drop(answering);
        let answered = Instant::now();
        let err = server.read(&mut [0u8; 1]).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert!(Instant::now() - answered <= idle);
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_listener_closes_the_silent_first_and_never_one_answering() {
        let mut connections = Connections::default();
        let (mut c1, s1) = tokio::io::duplex(64);
        let (_c2, s2) = tokio::io::duplex(64);
        let (mut c3, s3) = tokio::io::duplex(64);
        let idle = Duration::from_secs(60);
        let mut spoke = Idle::new(s1, idle, None, connections.track());
        let mut silent = Idle::new(s2, idle, None, connections.track());
        let mut busy = Idle::new(s3, idle, None, connections.track());
        c1.write_all(b"x").await.unwrap();
        spoke.read_exact(&mut [0u8; 1]).await.unwrap();
        c3.write_all(b"x").await.unwrap();
        busy.read_exact(&mut [0u8; 1]).await.unwrap();
        let _answering = busy.activity().answering();

        // The silent one goes first, woken at once.
        let reading = tokio::spawn(async move { silent.read(&mut [0u8; 1]).await });
        tokio::task::yield_now().await;
        assert!(connections.make_room());
        let err = reading.await.unwrap().unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::ConnectionAborted);
        // Then the one that spoke and answers nothing; never the one answering.
        assert!(connections.make_room());
        let err = spoke.read(&mut [0u8; 1]).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::ConnectionAborted);
        drop(spoke);
        assert!(!connections.make_room(), "only one answering is left");
        c3.write_all(b"y").await.unwrap();
        busy.read_exact(&mut [0u8; 1]).await.unwrap();
    }
}
