//! The agent's terminal, live in the window and the browser: what may be shown, and to whom.
//!
//! Every agent ClawMux starts runs in a tmux pane on the hub's own tmux server ([`crate::lifecycle::tmux`]);
//! a viewer is one more tmux client on it ([`pty`]), so any number of viewers see the same screen, each
//! leaves without ending anything, and a newcomer gets the current screen at once. The transports (the
//! `/ws/terminal/{id}` WebSocket, the window's IPC channel) only move bytes and sizes; what can be shown
//! is decided here, once: agents ClawMux did not start have no pane of ours, and an agent that is not
//! running has none either (its panel keeps the last screen it saw).
//!
//! A terminal can run any command, so it is guarded like starting an agent: only the user's credential
//! opens one (the token on the port, the window's own IPC), never an agent's (the private socket's
//! agent routes do not include it).

pub mod pty;

use clawmux_core::wire::{Code, TermSize, TerminalNotice};

use std::path::Path;

use crate::error::HubError;
use crate::lifecycle::tmux::Tmux;
use crate::ui_event::LaunchKind;
pub use pty::{Viewer, ViewerControl};

/// The most history lines a new viewer is sent (the UI keeps 5,000 lines of scrollback).
const HISTORY_LINES: u32 = 5000;

/// The pane's history as a terminal takes it: rows ended by CR LF, then as many empty rows as the screen
/// has, so all of it is in the scrollback when the tmux client clears the screen to draw its own.
fn prelude(history: &str, size: TermSize) -> Vec<u8> {
    if history.trim().is_empty() {
        return Vec::new();
    }
    let mut out = history.trim_end_matches('\n').replace('\n', "\r\n");
    out.push_str("\x1b[0m");
    out.push_str(&"\r\n".repeat(usize::from(size.rows)));
    out.into_bytes()
}

/// Why an agent of `launch` kind has no terminal here, if it has none.
fn no_terminal(agent: &str, launch: LaunchKind) -> Option<String> {
    match launch {
        LaunchKind::Claude | LaunchKind::Demo => None,
        LaunchKind::Observed => Some(format!(
            "`{agent}` is a Claude Code session of your own, seen through your hooks: it runs in a \
             terminal ClawMux did not start, so there is none to show here."
        )),
        LaunchKind::External => Some(format!(
            "`{agent}` runs on its own (added with `clawmux agent add`): ClawMux did not start it, so \
             it has no terminal here."
        )),
    }
}

/// The agents' terminals as the hub holds them: its tmux server, and the folder a viewer starts in.
pub(crate) struct Terminals<'h> {
    /// The hub's own tmux server, where every agent it starts runs.
    pub(crate) tmux: &'h Tmux,
    /// Where a viewer's tmux client starts (the hub's data folder).
    pub(crate) home: &'h Path,
}

impl Terminals<'_> {
    /// Attaches a new viewer of `agent`'s terminal at `size`; `launch` is how the agent runs. Refuses,
    /// having started nothing, one ClawMux did not start (`no_terminal`, with why) and one not running.
    pub(crate) async fn open(
        &self,
        agent: &str,
        launch: LaunchKind,
        size: TermSize,
    ) -> Result<Viewer, HubError> {
        if let Some(why) = no_terminal(agent, launch) {
            return Err(HubError::new(Code::NoTerminal, why));
        }
        if self.tmux.pane(agent).await?.is_none() {
            return Err(HubError::new(
                Code::NotRunning,
                format!("`{agent}` is not running: its terminal shows here again when it starts."),
            ));
        }
        // A tmux client draws the screen only: what scrolled off it before comes first, so the viewer can
        // scroll back through it.
        let history = self
            .tmux
            .history(agent, HISTORY_LINES)
            .await
            .map(|text| prelude(&text, size))
            .unwrap_or_default();
        let (program, args) = self.tmux.attach_argv(agent);
        let home = self.home.to_owned();
        tokio::task::spawn_blocking(move || Viewer::spawn(&program, &args, size, &home))
            .await
            .map_err(|e| {
                HubError::new(Code::Internal, format!("the terminal's start failed: {e}"))
            })?
            .map(|viewer| viewer.with_prelude(history))
            .map_err(|e| {
                HubError::new(
                    Code::TmuxFailed,
                    format!("cannot open a terminal for `{agent}`: {e}"),
                )
            })
    }

    /// What a viewer is told once its terminal has closed: the agent ended (or its session is gone), with
    /// `screen`, the one its process left, if the hub saw it end.
    pub(crate) async fn closed(&self, agent: &str, screen: Option<String>) -> TerminalNotice {
        let message = match self.tmux.pane(agent).await {
            Ok(Some(_)) => format!("The terminal of `{agent}` closed."),
            Ok(None) | Err(_) => format!(
                "`{agent}` ended: this is its last screen. Its terminal shows here again when it starts."
            ),
        };
        TerminalNotice::Ended { message, screen }
    }
}

/// A size from a client, checked.
pub fn size(cols: u16, rows: u16) -> Result<TermSize, HubError> {
    TermSize::new(cols, rows).ok_or_else(|| {
        HubError::new(
            Code::BadTerminalSize,
            format!(
                "a terminal is 2 to {max} columns and 1 to {max} rows, not {cols}x{rows}",
                max = TermSize::MAX
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_goes_above_the_screen() {
        let size = TermSize::new(80, 3).unwrap();
        assert!(prelude("\n\n", size).is_empty());
        assert_eq!(
            String::from_utf8(prelude("one\n\x1b[31mtwo\n", size)).unwrap(),
            "one\r\n\x1b[31mtwo\x1b[0m\r\n\r\n\r\n"
        );
    }

    #[tokio::test]
    async fn only_a_running_agent_clawmux_started_has_a_terminal() {
        let dir = tempfile::tempdir().unwrap();
        // A tmux server of the test's own, never started: no agent runs on it.
        let tmux = Tmux::new("tmux".into(), dir.path());
        let terminals = Terminals {
            tmux: &tmux,
            home: dir.path(),
        };
        let size = TermSize::new(80, 24).unwrap();
        for launch in [LaunchKind::Observed, LaunchKind::External] {
            let e = terminals.open("sky", launch, size).await.err().unwrap();
            assert_eq!(e.code, Code::NoTerminal, "{launch:?}");
            assert!(e.message.contains("ClawMux did not start"), "{}", e.message);
        }
        let e = terminals
            .open("sky", LaunchKind::Claude, size)
            .await
            .err()
            .unwrap();
        assert_eq!(e.code, Code::NotRunning);
        let TerminalNotice::Ended { message, screen } =
            terminals.closed("sky", Some("last".to_owned())).await
        else {
            panic!("a closed terminal is told it ended");
        };
        assert!(message.contains("this is its last screen"), "{message}");
        assert_eq!(screen.as_deref(), Some("last"));
    }
}
