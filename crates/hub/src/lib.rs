//! The ClawMux hub: the one process that owns the database and every agent's state.
//!
//! Agents reach it through the `clawmux` command and Claude Code hooks; browsers and the desktop window
//! through its API. It is a library so the desktop app can run it in-process, and `clawmux serve` runs it
//! headless. [`serve`] takes an already bound listener, so tests bind port 0 and the app can pick a free
//! port, and stops when the `shutdown` future completes.

mod agents;
pub mod asks;
pub mod attachments;
pub mod between;
pub mod board;
mod clock;
pub mod commands;
pub mod config;
pub mod diagnose;
pub mod error;
pub mod explain;
pub mod found;
pub mod hands_free;
pub mod hooks;
pub mod http;
pub mod hub;
pub mod import;
pub mod inbox;
pub mod lead;
pub mod lifecycle;
mod live;
pub mod machines;
mod mailbox;
pub mod messages;
pub mod metrics;
pub mod notice;
pub mod observe;
mod opinion;
pub mod phone;
pub mod roster;
pub mod search;
mod states;
pub mod tasks;
pub mod terminal;
pub mod transcript;
pub mod usage;
pub mod voice;
mod work_dir;
pub mod worktree;

use std::future::{Future, IntoFuture};
use std::time::Duration;

pub use clawmux_api::ui_event;
pub use commands::Command;
pub use error::HubError;
pub use hub::Hub;
pub use inbox::Waiter;

/// How long the hub's own tasks may take to end once it stops serving.
const STOP_WITHIN: Duration = Duration::from_secs(5);

/// The hub's work beside its listeners, started when it serves and stopped when it stops: the agents'
/// tmux sessions taken over, the waits checked after a start, Claude Code's own view watched, search's
/// indexing and reading, the messages between agents that do not get through, what the features found
/// recorded, and usage's errands carried out.
fn background(hub: &Hub) {
    let tasks = hub.tasks();
    let adopting = hub.lifecycle().clone();
    tasks.spawn(async move {
        if let Err(e) = adopting.adopt().await {
            tracing::warn!(error = %e, "could not take over the agents' tmux sessions");
        }
    });
    let settle = hub.inbox().clone();
    tasks.spawn(async move {
        if let Err(e) = settle.settle_waits_after_start(hub::WAIT_GRACE).await {
            tracing::warn!(error = %e, "could not check the agents' waits after start");
        }
    });
    // Subscribed now, so no status falls between the start and the agents read.
    let (pushing, events) = (hub.clone(), hub.subscribe());
    tasks.spawn(async move {
        let sessions = pushing.roster().sessions().await.unwrap_or_default();
        pushing.phone().run(events, sessions).await;
    });
    if let Some(found) = hub.take_found() {
        tasks.spawn(hub.states().clone().record_found(found));
    }
    if let Some(errands) = hub.take_errands() {
        tasks.spawn(lifecycle::errands(hub.lifecycle().clone(), errands));
    }
    hub.opinion().start(tasks);
    hub.attachments().start(tasks);
    hub.between().start(tasks);
    hub.search().start();
}

/// Serves the hub on `listeners` (browsers, other clients with the token: 127.0.0.1 and [::1] at one port,
/// [`http::peers::Loopback`]) and on its private socket in the data folder (agents, hooks and the `clawmux`
/// command: [`http::local`]) until `shutdown` completes. Raises the soft limit of open files to the hard
/// one and keeps descriptors back from TCP connections, so a flood of them leaves the window and the
/// agents served.
/// Refuses to start when another hub already serves the same data folder.
/// Long: the listeners are bound, served and stopped together; each step needs the ones before.
pub async fn serve(
    listeners: http::peers::Loopback,
    hub: Hub,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let socket = http::local::PrivateSocket::bind(hub.data_dir()).await?;
    let addr = listeners.v4.local_addr()?;
    let port = addr.port();
    if !addr.ip().is_loopback() {
        tracing::warn!(%addr, "the hub listens beyond this machine");
    }
    hub.set_port(port);
    background(&hub);
    hub.machines().start();
    let (stop, stopping) = tokio::sync::watch::channel(false);
    let closing = hub.clone();
    let closer = tokio::spawn(async move {
        shutdown.await;
        // A held permission request would hold the graceful shutdown for as long as nobody answers it.
        closing.requests().close_all();
        let _ = stop.send(true);
    });
    let until = |mut stopping: tokio::sync::watch::Receiver<bool>| async move {
        let _ = stopping.wait_for(|stop| *stop).await;
    };
    // Each listener is served by a task of its own, so its accepts run on the runtime's workers beside the
    // connections they start, rather than on whichever thread awaits this function (`clawmux serve`'s
    // main thread). The routers become services once: serving a `Router` as it is rebuilds every route
    // for each connection, and each hook is a connection of its own.
    let local = axum::serve(socket, http::local_router(hub.clone()).into_make_service())
        .with_graceful_shutdown(until(stopping.clone()));
    // Each request knows its connection, so a slow answer keeps it open (`http::idle`).
    let app = http::router(hub.clone(), addr)
        .into_make_service_with_connect_info::<http::idle::Carried>();
    // Connections on both loopback addresses share one budget of descriptors.
    let budget = http::peers::Budget::from_limit();
    let idle = hub.options().idle_timeout;
    let tcp = axum::serve(
        http::peers::UserOnly::new(listeners.v4, idle, budget.clone()),
        app.clone(),
    )
    .with_graceful_shutdown(until(stopping.clone()));
    // Phones at an address of the user's own, over TLS, while they want it (`http::phones`).
    let phones = tokio::spawn(http::phones::serve(
        hub.clone(),
        budget.clone(),
        idle,
        stopping.clone(),
    ));
    let v6 = async move {
        match listeners.v6 {
            Some(v6) => {
                axum::serve(http::peers::UserOnly::new(v6, idle, budget), app)
                    .with_graceful_shutdown(until(stopping))
                    .await
            }
            None => Ok(()),
        }
    };
    let tasks = [
        tokio::spawn(tcp.into_future()),
        tokio::spawn(v6),
        tokio::spawn(local.into_future()),
    ];
    let aborts: Vec<_> = tasks.iter().map(|t| t.abort_handle()).collect();
    let [tcp, v6, local] =
        tasks.map(|task| async move { task.await.map_err(std::io::Error::other)? });
    let served = tokio::try_join!(tcp, v6, local).map(drop);
    // One listener failed: the others stop with it, as they did when they were this function's own.
    for task in aborts {
        task.abort();
    }
    phones.abort();
    closer.abort();
    // Every task the hub started ends with it (a hub served in the window's process outlives nothing).
    hub.machines().close();
    if !hub.tasks().stop(STOP_WITHIN).await {
        tracing::warn!(
            running = hub.tasks().running(),
            "some of the hub's tasks did not stop"
        );
    }
    // A socket file left behind would be taken for a hub that is gone; remove it on the way out.
    let _ = std::fs::remove_file(http::local::socket_path(hub.data_dir()));
    served
}
