//! The ClawMux desktop app: the hub runs in-process (so `clawmux wait`, `send` and hooks work while the app
//! is open), and the UI of `ui/` runs in a native window, talking to the hub through IPC.
//!
//! This file only wires things up: the hub is the `clawmux-hub` library, the window's requests go to its
//! one command surface (`commands.rs`), and its live events go to the window and to the notifications
//! (`events.rs`). Nothing here knows agents or messages.

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod autostart;
mod closing;
mod commands;
mod desktop;
mod events;
mod geometry;
mod links;
mod listening;
mod main_window;
mod notices;
mod recorder;
mod recording;
mod start;
mod terminals;
mod tray;
#[cfg(test)]
mod ui_names;
mod updates;

use tauri::Manager;

fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let args = start::Args::parse(std::env::args().skip(1));
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_single_instance::init(|app, _args, _cwd| {
            main_window::raise(app)
        }))
        .plugin(tauri_plugin_window_state::Builder::default().build())
        .plugin(links::guard())
        .plugin(updates::plugin())
        .invoke_handler(ipc())
        .on_window_event(|window, event| {
            if let tauri::WindowEvent::CloseRequested { api, .. } = event {
                api.prevent_close();
                closing::on_close(window);
            }
        })
        .setup(move |app| {
            // The hub starts here, after the single-instance check (a second launch only raises the first
            // window and never opens the database or a port), and before the window can ask anything, so
            // it can say at once whether the hub failed and why.
            let desktop = tauri::async_runtime::block_on(start::start_hub(
                &args.data_dir,
                args.microphone.clone(),
            ));
            // The tray's image files go in the data folder (0700), not a folder other users can write.
            app.manage(tray::Tray::new(app.handle(), &args.data_dir.join("tray")));
            app.manage(desktop);
            app.manage(terminals::Terminals::default());
            app.manage(updates::Pending::default());
            events::forward(app.handle().clone());
            geometry::save_on_change(app.handle());
            Ok(())
        })
        .run(tauri::generate_context!());
    if let Err(e) = result {
        eprintln!("error: the window could not run: {e}");
        std::process::exit(1);
    }
}

/// Every IPC command the window may call (`ui_names.rs` checks the page calls no other).
fn ipc() -> impl Fn(tauri::ipc::Invoke) -> bool + Send + Sync + 'static {
    tauri::generate_handler![
        commands::hub,
        commands::hub_info,
        commands::viewing,
        commands::speech,
        commands::attachment,
        commands::attach_file,
        autostart::autostart,
        autostart::set_autostart,
        links::open_link,
        main_window::quit,
        recording::record_start,
        recording::record_stop,
        recording::record_cancel,
        recording::send_recording,
        listening::listen_start,
        listening::listen_hint,
        listening::listen_stop,
        listening::hear_recording,
        terminals::terminal_open,
        terminals::terminal_input,
        terminals::terminal_resize,
        terminals::terminal_close,
        terminals::terminal_close_all,
        updates::update_check,
        updates::update_install
    ]
}
