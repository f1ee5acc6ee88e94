//! The hub's listener for phones beyond loopback: where the user named an address of theirs for phones
//! (their Tailscale or WireGuard address, `phone/address.rs`), the hub serves phones there itself, over
//! TLS only (`phone/tls.rs`), while phones are on. What is served there is the phones' part of the API
//! alone: the desktop's token is refused at that address ([`super::phones_router`]).
//!
//! It follows what the phones want (`Phone::wanted`): a new address, another certificate, phones turned
//! off or on, and the listener is closed and, if still wanted, opened again; each outcome reported back
//! (`Phone::report`), a failure with why (the address not this machine's, the port taken, a key not
//! readable). Each TLS handshake runs in a task of its own, bounded in time, so a client that stalls
//! in it holds nobody else up.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

use super::idle::{Activity, Carried, Idle};
use super::peers::{accept_failed, Budget};
use crate::hub::Hub;
use crate::phone::{Listening, PhoneAddress};

/// How long a client may take over its TLS handshake.
const HANDSHAKE: Duration = Duration::from_secs(10);

/// Serves phones at the address they want, as it changes, until `stopping` says so. Connections share
/// the hub's `budget` and close after `idle`.
pub async fn serve(hub: Hub, budget: Budget, idle: Duration, mut stopping: watch::Receiver<bool>) {
    let phone = hub.phone().clone();
    let mut wanted = phone.wanted();
    loop {
        let want = wanted.borrow_and_update().clone();
        let serving = match &want.address {
            None => {
                phone.report(want.generation, Listening::No);
                None
            }
            Some(address) => match start(&hub, address, budget.clone(), idle).await {
                Ok((tasks, url, made_here)) => {
                    phone.report(want.generation, Listening::At { url, made_here });
                    Some(tasks)
                }
                Err(reason) => {
                    phone.report(want.generation, Listening::Failed { reason });
                    None
                }
            },
        };
        let stop = tokio::select! {
            changed = wanted.changed() => changed.is_err(),
            _ = stopping.wait_for(|stop| *stop) => true,
        };
        // Closed, and its listener dropped, before the next one binds (perhaps the same port) and before
        // the change is reported done.
        for task in serving.into_iter().flatten() {
            task.abort();
            let _ = task.await;
        }
        if stop {
            return;
        }
    }
}

/// The tasks serving an address: the server, and the one accepting its connections.
type Serving = [tokio::task::JoinHandle<()>; 2];

/// Opens the listener at `address`: the tasks serving it, the address phones open, and the fingerprint
/// of a certificate the app made. Why not, otherwise.
async fn start(
    hub: &Hub,
    address: &PhoneAddress,
    budget: Budget,
    idle: Duration,
) -> Result<(Serving, String, Option<String>), String> {
    let (for_tls, data_dir) = (address.clone(), hub.data_dir().to_owned());
    let certified =
        tokio::task::spawn_blocking(move || crate::phone::tls::certify(&for_tls, &data_dir))
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.message)?;
    let listener = TcpListener::bind(address.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", address.listen))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let url = address.url(port);
    let host = url.trim_start_matches("https://").to_owned();
    let app = super::phones_router(hub.clone(), host)
        .into_make_service_with_connect_info::<super::idle::Carried>();
    let (tls, accepting) =
        TlsListener::new(listener, TlsAcceptor::from(certified.config), idle, budget)
            .map_err(|e| e.to_string())?;
    let server = tokio::spawn(async move {
        if let Err(e) = axum::serve(tls, app).await {
            tracing::warn!(error = %e, "the phones' listener stopped");
        }
    });
    Ok(([server, accepting], url, certified.made_here))
}

/// A TCP listener whose connections are handed on once their TLS handshake is done.
pub struct TlsListener {
    handshaken: mpsc::Receiver<(Idle<TlsStream<TcpStream>>, SocketAddr)>,
    local: SocketAddr,
    accepting: tokio::task::AbortHandle,
}

impl TlsListener {
    /// Starts accepting on `listener`, each connection's handshake with `acceptor` in a task of its own:
    /// the listener, and the task accepting (which holds the TCP listener: it is closed once that task
    /// is aborted and awaited; dropping the listener aborts it too).
    pub fn new(
        listener: TcpListener,
        acceptor: TlsAcceptor,
        idle: Duration,
        budget: Budget,
    ) -> io::Result<(TlsListener, tokio::task::JoinHandle<()>)> {
        let local = listener.local_addr()?;
        let (done, handshaken) = mpsc::channel(16);
        let accepting = tokio::spawn(async move {
            loop {
                let Some(held) = budget.take().await else {
                    return;
                };
                let (stream, peer) = match listener.accept().await {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        accept_failed(e).await;
                        continue;
                    }
                };
                let (acceptor, done) = (acceptor.clone(), done.clone());
                tokio::spawn(async move {
                    let _ = stream.set_nodelay(true);
                    match tokio::time::timeout(HANDSHAKE, acceptor.accept(stream)).await {
                        Ok(Ok(tls)) => {
                            let _ = done
                                .send((Idle::new(tls, idle, Some(held), Activity::new()), peer))
                                .await;
                        }
                        Ok(Err(e)) => tracing::debug!(%peer, error = %e, "a TLS handshake failed"),
                        Err(_) => tracing::debug!(%peer, "a TLS handshake took too long"),
                    }
                });
            }
        });
        let listener = TlsListener {
            handshaken,
            local,
            accepting: accepting.abort_handle(),
        };
        Ok((listener, accepting))
    }
}

impl Drop for TlsListener {
    fn drop(&mut self) {
        self.accepting.abort();
    }
}

impl axum::extract::connect_info::Connected<axum::serve::IncomingStream<'_, TlsListener>>
    for Carried
{
    fn connect_info(stream: axum::serve::IncomingStream<'_, TlsListener>) -> Self {
        Carried::of(stream.io())
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = Idle<TlsStream<TcpStream>>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.handshaken.recv().await {
            Some(accepted) => accepted,
            // The accepting task is gone (aborted with this listener): nothing more comes.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        Ok(self.local)
    }
}
