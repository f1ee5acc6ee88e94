//! `clawmux serve`: the hub, headless, on 127.0.0.1 until SIGINT or SIGTERM.
//!
//! It binds loopback only. Another address (`--bind`) is refused unless `--allow-remote` says the user means
//! it, and then a warning says what it exposes: anyone who can reach the address and has the token can make
//! the agents run commands.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

use tracing_subscriber::EnvFilter;

/// Long: the refusals and warnings of a hub listening beyond loopback, then the listeners, in order.
pub fn run(
    port: u16,
    data_dir: Option<PathBuf>,
    bind: IpAddr,
    allow_remote: bool,
) -> Result<(), String> {
    if !bind.is_loopback() && !allow_remote {
        return Err(format!(
            "refusing to listen on {bind}: the hub can make agents run commands, so it listens on loopback \
             only. Add --allow-remote if you really mean to expose it to {bind}'s network"
        ));
    }
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let data_dir = data_dir.unwrap_or_else(clawmux_core::layout::default_data_dir);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    runtime.block_on(async move {
        let hub = clawmux_hub::Hub::open(&data_dir)
            .await
            .map_err(|e| e.to_string())?;
        let addr = SocketAddr::new(bind, port);
        if !bind.is_loopback() {
            eprintln!(
                "WARNING: the hub listens on {addr}, beyond this machine: anyone who reaches it with the \
                 token in {} can read every conversation and make the agents run commands. \
                 Traffic is not encrypted.",
                data_dir.join(clawmux_core::layout::TOKEN_FILE).display()
            );
        }
        let listeners = listen(bind, port).await?;
        let bound = listeners.v4.local_addr().map_err(|e| e.to_string())?;
        // The first line of stdout, which scripts and tests read to learn the port.
        println!(
            "clawmux hub listening on http://{bound} (data: {})",
            data_dir.display()
        );
        clawmux_hub::serve(listeners, hub, shutdown_signal())
            .await
            .map_err(|e| format!("the hub stopped: {e}"))
    })
}

/// The hub's listeners: both loopback addresses at one port, or the one address asked for.
async fn listen(bind: IpAddr, port: u16) -> Result<clawmux_hub::http::peers::Loopback, String> {
    let addr = SocketAddr::new(bind, port);
    let in_use = |e: std::io::Error| {
        if e.kind() == std::io::ErrorKind::AddrInUse && port != 0 {
            format!("port {port} is already in use ({e}); choose another with --port")
        } else {
            format!("cannot listen on {addr}: {e}")
        }
    };
    Ok(if bind.is_loopback() {
        clawmux_hub::http::peers::Loopback::bind(port)
            .await
            .map_err(in_use)?
    } else {
        clawmux_hub::http::peers::Loopback::single(
            tokio::net::TcpListener::bind(addr).await.map_err(in_use)?,
        )
    })
}

async fn shutdown_signal() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = term => {}
    }
}
