//! `clawmux serve`: the hub, headless, on 127.0.0.1 until SIGINT or SIGTERM.

use std::net::SocketAddr;
use std::path::PathBuf;

use tracing_subscriber::EnvFilter;

pub fn run(port: u16, data_dir: Option<PathBuf>) -> Result<(), String> {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let data_dir = data_dir.unwrap_or_else(clawmux_hub::config::default_data_dir);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    runtime.block_on(async move {
        let hub = clawmux_hub::Hub::open(&data_dir)
            .await
            .map_err(|e| e.to_string())?;
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
            if e.kind() == std::io::ErrorKind::AddrInUse {
                format!("port {port} is already in use (another hub?); choose another with --port")
            } else {
                format!("cannot listen on {addr}: {e}")
            }
        })?;
        let bound = listener.local_addr().map_err(|e| e.to_string())?;
        // The first line of stdout, which scripts and tests read to learn the port.
        println!(
            "clawmux hub listening on http://{bound} (data: {})",
            data_dir.display()
        );
        clawmux_hub::serve(listener, hub, shutdown_signal())
            .await
            .map_err(|e| format!("the hub stopped: {e}"))
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
