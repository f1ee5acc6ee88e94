//! The window's terminal panels: the same viewers as the browser's (`clawmux_hub::terminal`), over an IPC
//! channel instead of a WebSocket. The terminal's bytes go to the page raw (an `ArrayBuffer`, no JSON);
//! the one notice, `ended`, as JSON. A panel is closed by its id, and all of them when the page (re)loads,
//! so a reload leaves no tmux client behind.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use clawmux_core::wire::Code;
use clawmux_hub::terminal::{self, ViewerControl};
use clawmux_hub::HubError;
use tauri::ipc::{Channel, InvokeResponseBody};
use tauri::State;
use tokio::sync::oneshot;

use crate::desktop::Desktop;

/// The window's open terminal viewers, by id.
#[derive(Default)]
pub struct Terminals {
    next: AtomicU64,
    open: Mutex<HashMap<u64, Open>>,
}

struct Open {
    control: ViewerControl,
    /// Dropped to end the viewer (its forwarding task owns it).
    _close: oneshot::Sender<()>,
}

impl Terminals {
    fn open(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Open>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn control(&self, id: u64) -> Result<ViewerControl, HubError> {
        self.open()
            .get(&id)
            .map(|o| o.control.clone())
            .ok_or_else(|| HubError::new(Code::NoSuchViewer, format!("no open terminal {id}")))
    }
}

/// Opens a viewer of `agent`'s terminal at `cols` x `rows`; its bytes arrive on `output`. Answers the
/// viewer's id, or why there is no terminal (as the browser is told with `unavailable`).
#[tauri::command]
pub async fn terminal_open(
    desktop: State<'_, Desktop>,
    terminals: State<'_, Terminals>,
    agent: String,
    cols: u16,
    rows: u16,
    output: Channel<InvokeResponseBody>,
) -> Result<u64, HubError> {
    let hub = desktop.running()?.clone();
    let mut viewer = hub
        .open_terminal(&agent, terminal::size(cols, rows)?)
        .await?;
    let id = terminals.next.fetch_add(1, Ordering::Relaxed);
    let (close, mut closed) = oneshot::channel();
    terminals.open().insert(
        id,
        Open {
            control: viewer.control(),
            _close: close,
        },
    );
    tauri::async_runtime::spawn(async move {
        loop {
            tokio::select! {
                out = viewer.next() => match out {
                    Some(bytes) => {
                        if output.send(InvokeResponseBody::Raw(bytes)).is_err() {
                            return;
                        }
                    }
                    None => {
                        if let Ok(json) = serde_json::to_string(&hub.terminal_closed(&agent).await) {
                            let _ = output.send(InvokeResponseBody::Json(json));
                        }
                        return;
                    }
                },
                _ = &mut closed => return,
            }
        }
    });
    Ok(id)
}

/// Keys typed into viewer `id`.
#[tauri::command]
pub fn terminal_input(
    terminals: State<'_, Terminals>,
    id: u64,
    data: String,
) -> Result<(), HubError> {
    terminals.control(id)?.input(data.into_bytes());
    Ok(())
}

/// Viewer `id`'s panel has a new size.
#[tauri::command]
pub fn terminal_resize(
    terminals: State<'_, Terminals>,
    id: u64,
    cols: u16,
    rows: u16,
) -> Result<(), HubError> {
    let size = terminal::size(cols, rows)?;
    terminals
        .control(id)?
        .resize(size)
        .map_err(|e| HubError::new(Code::Internal, format!("cannot resize the terminal: {e}")))
}

/// Closes viewer `id` (only that viewer: the agent goes on). Closing one already closed is no error.
#[tauri::command]
pub fn terminal_close(terminals: State<'_, Terminals>, id: u64) {
    terminals.open().remove(&id);
}

/// Closes every viewer of the window: the page is new and holds none of them.
#[tauri::command]
pub fn terminal_close_all(terminals: State<'_, Terminals>) {
    terminals.open().clear();
}
