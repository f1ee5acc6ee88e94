//! The ClawMux hub: the one process that owns the database and every agent's state.
//!
//! Agents reach it through the `clawmux` command and Claude Code hooks; browsers and the desktop window
//! through its API. It is a library so the desktop app can run it in-process, and `clawmux serve` runs it
//! headless. [`serve`] takes an already bound listener, so tests bind port 0 and the app can pick a free
//! port, and stops when the `shutdown` future completes.

pub mod commands;
pub mod config;
pub mod diagnose;
pub mod error;
pub mod http;
pub mod hub;
pub mod import;
pub mod inbox;
pub mod lifecycle;
pub mod metrics;
pub mod observe;
pub mod transcript;
pub mod ui_event;
pub mod voice;

use std::future::Future;

pub use commands::Command;
pub use error::ApiError;
pub use hub::Hub;
pub use inbox::{StopVerdict, Waiter};

/// Serves the hub on `listener` until `shutdown` completes.
pub async fn serve(
    listener: tokio::net::TcpListener,
    hub: Hub,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let addr = listener.local_addr()?;
    let port = addr.port();
    if !addr.ip().is_loopback() {
        tracing::warn!(%addr, "the hub listens beyond this machine");
    }
    hub.set_port(port);
    let adopting = hub.clone();
    tokio::spawn(async move {
        if let Err(e) = adopting.adopt().await {
            tracing::warn!(error = %e, "could not take over the agents' tmux sessions");
        }
    });
    let settle = hub.clone();
    tokio::spawn(async move {
        if let Err(e) = settle.settle_waits_after_start().await {
            tracing::warn!(error = %e, "could not check the agents' waits after start");
        }
    });
    let app = http::router(hub, addr);
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
}
