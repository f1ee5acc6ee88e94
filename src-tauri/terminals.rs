//! The window's terminal panels: the same viewers as the browser's (`clawmux_hub::terminal`), over an IPC
//! channel instead of a WebSocket. The terminal's bytes go to the page raw (an `ArrayBuffer`, no JSON);
//! the one notice, `ended`, as JSON. A panel is closed by its id, and all of them when the page (re)loads,
//! so a reload leaves no tmux client behind.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use clawmux_core::wire::Code;
use clawmux_hub::machines::terminal::Frame;
use clawmux_hub::terminal::{self, ViewerControl};
use clawmux_hub::HubError;
use tauri::ipc::{Channel, InvokeResponseBody};
use tauri::State;
use tokio::sync::oneshot;

use crate::desktop::Desktop;
use clawmux_core::sync::Locked;

/// The window's open terminal viewers, by id.
#[derive(Default)]
pub struct Terminals {
    next: AtomicU64,
    open: Mutex<HashMap<u64, Open>>,
}

struct Open {
    control: Control,
    /// Dropped to end the viewer (its forwarding task owns it).
    _close: oneshot::Sender<()>,
}

/// Where a viewer's keys and sizes go.
#[derive(Clone)]
enum Control {
    /// A terminal of this machine.
    Local(ViewerControl),
    /// Another machine's agent's: frames for that hub's viewer (`clawmux_hub::machines::terminal`).
    Remote(tokio::sync::mpsc::UnboundedSender<Frame>),
}

impl Control {
    fn input(&self, bytes: Vec<u8>) {
        match self {
            Control::Local(c) => c.input(bytes),
            Control::Remote(to) => {
                let _ = to.send(Frame::Bytes(bytes));
            }
        }
    }

    fn resize(&self, size: clawmux_core::wire::TermSize) -> Result<(), HubError> {
        match self {
            Control::Local(c) => c.resize(size).map_err(|e| {
                HubError::new(Code::Internal, format!("cannot resize the terminal: {e}"))
            }),
            Control::Remote(to) => {
                let resize =
                    serde_json::json!({"type": "resize", "cols": size.cols, "rows": size.rows});
                let _ = to.send(Frame::Json(resize.to_string()));
                Ok(())
            }
        }
    }
}

impl Terminals {
    fn open(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Open>> {
        self.open.locked()
    }

    fn control(&self, id: u64) -> Result<Control, HubError> {
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
    let address = clawmux_core::remote::AgentAddress::parse(&agent);
    if let (name, Some(machine)) = (address.name, address.machine) {
        let remote = hub
            .machines()
            .terminal(machine, name, terminal::size(cols, rows)?)
            .await?;
        return Ok(open_remote(&terminals, remote, output));
    }
    let mut viewer = hub
        .open_terminal(&agent, terminal::size(cols, rows)?)
        .await?;
    let id = terminals.next.fetch_add(1, Ordering::Relaxed);
    let (close, mut closed) = oneshot::channel();
    terminals.open().insert(
        id,
        Open {
            control: Control::Local(viewer.control()),
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

/// A viewer of another machine's agent: that hub's frames to the page (its bytes raw, its notices as
/// JSON, as the page's own hub sends them), the page's keys and sizes to it.
fn open_remote(
    terminals: &Terminals,
    remote: clawmux_hub::machines::terminal::RemoteTerminal,
    output: Channel<InvokeResponseBody>,
) -> u64 {
    let id = terminals.next.fetch_add(1, Ordering::Relaxed);
    let (close, closed) = oneshot::channel();
    let (to, keys) = tokio::sync::mpsc::unbounded_channel();
    terminals.open().insert(
        id,
        Open {
            control: Control::Remote(to),
            _close: close,
        },
    );
    tauri::async_runtime::spawn(remote.pump(
        move |frame| match frame {
            Frame::Bytes(bytes) => output.send(InvokeResponseBody::Raw(bytes)).is_ok(),
            Frame::Json(text) => output.send(InvokeResponseBody::Json(text)).is_ok(),
        },
        keys,
        closed,
    ));
    id
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
    terminals.control(id)?.resize(size)
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
