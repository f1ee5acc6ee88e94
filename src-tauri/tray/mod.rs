//! The tray icon, a StatusNotifierItem (Tauri's tray, through libayatana-appindicator): the app's icon,
//! badged with the number of agents that need the user, and a menu that lists them (a click opens the
//! agent), turns hands-free on or off, brings the window back and quits. With it the window can be closed
//! and the agents and notifications go on (`main_window.rs`).
//!
//! What it shows is `menu::TrayState`, kept from the hub's events (`events.rs`) and the window's listening
//! (`listening.rs`); the menu is rebuilt whenever that changes. A desktop with no tray (no
//! StatusNotifierWatcher with a host on the session bus) still gets the icon made, harmlessly: the window
//! then stays the way in (`shown` says which).

mod badge;
mod menu;

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use clawmux_core::Attention;
use tauri::image::Image;
use tauri::menu::{CheckMenuItem, Menu, MenuEvent, MenuItem, PredefinedMenuItem};
use tauri::tray::{TrayIcon, TrayIconBuilder};
use tauri::{AppHandle, Emitter, Manager};

use clawmux_core::sync::Locked;
pub use menu::TrayState;
use menu::{Row, TrayItem};

/// The Tauri event that asks the window to turn hands-free on (`true`) or off: the window listens.
pub const HANDS_FREE_EVENT: &str = "hands-free";

/// How long the session bus is given to say whether a tray host runs.
const BUS_TIMEOUT: Duration = Duration::from_millis(500);

/// The tray icon and what it shows.
pub struct Tray {
    app: AppHandle,
    icon: Option<TrayIcon>,
    plain: Option<Image<'static>>,
    badged: Option<Image<'static>>,
    state: Mutex<TrayState>,
}

impl Tray {
    /// Makes the icon, its image files written in `files` (a folder of the user's own: the default is
    /// a shared `/tmp/tray-icon` when there is no runtime folder). Never fails: without an icon the
    /// window is the way in.
    pub fn new(app: &AppHandle, files: &Path) -> Tray {
        let plain = app.default_window_icon().map(|i| i.clone().to_owned());
        let badged = plain.as_ref().map(|i| {
            Image::new_owned(
                badge::badged(i.rgba(), i.width(), i.height()),
                i.width(),
                i.height(),
            )
        });
        let state = TrayState::default();
        let icon = build(app, files, plain.clone(), &state)
            .inspect_err(|e| tracing::warn!(error = %e, "no tray icon: the window is the way in"))
            .ok();
        Tray {
            app: app.clone(),
            icon,
            plain,
            badged,
            state: Mutex::new(state),
        }
    }

    /// An agent's status changed (`name@machine` for another machine's agent).
    pub fn on_status(&self, agent: &str, needs: Option<&Attention>) {
        self.change(|state| state.on_status(agent, needs));
    }

    /// Hands-free went on or off in the window.
    pub fn set_hands_free(&self, on: bool) {
        self.change(|state| state.set_hands_free(on));
    }

    /// Whether a tray on this desktop shows the icon: then closing the window hides it.
    pub fn shown(&self) -> bool {
        self.icon.is_some() && tray_host()
    }

    fn change(&self, what: impl FnOnce(&mut TrayState) -> bool) {
        let mut state = self.state.locked();
        if what(&mut state) {
            self.draw(&state);
        }
    }

    /// Draws what is the case again (a check item ticks itself when clicked, whatever happens next).
    fn redraw(&self) {
        let state = self.state.locked();
        self.draw(&state);
    }

    fn draw(&self, state: &TrayState) {
        let Some(icon) = &self.icon else { return };
        let image = if state.count() > 0 {
            &self.badged
        } else {
            &self.plain
        };
        let drawn = menu_of(&self.app, &state.rows())
            .and_then(|menu| icon.set_menu(Some(menu)))
            .and_then(|()| icon.set_icon(image.clone()))
            .and_then(|()| icon.set_title(state.title()));
        if let Err(e) = drawn {
            tracing::warn!(error = %e, "the tray icon could not be redrawn");
        }
    }
}

fn build(
    app: &AppHandle,
    files: &Path,
    image: Option<Image<'static>>,
    state: &TrayState,
) -> tauri::Result<TrayIcon> {
    std::fs::create_dir_all(files)?;
    let mut builder = TrayIconBuilder::with_id("clawmux")
        .tooltip("ClawMux")
        .temp_dir_path(files)
        .menu(&menu_of(app, &state.rows())?)
        .show_menu_on_left_click(true)
        .on_menu_event(clicked);
    if let Some(image) = image {
        builder = builder.icon(image);
    }
    builder.build(app)
}

/// The menu for `rows`. (`&` is muda's mnemonic mark: doubled, it is shown as itself.)
fn menu_of(app: &AppHandle, rows: &[Row]) -> tauri::Result<Menu<tauri::Wry>> {
    let menu = Menu::new(app)?;
    for row in rows {
        match row {
            Row::Item(item, label) => menu.append(&MenuItem::with_id(
                app,
                item.id(),
                label.replace('&', "&&"),
                true,
                None::<&str>,
            )?)?,
            Row::Note(label) => menu.append(&MenuItem::new(app, label, false, None::<&str>)?)?,
            Row::Check(item, label, on) => menu.append(&CheckMenuItem::with_id(
                app,
                item.id(),
                label,
                true,
                *on,
                None::<&str>,
            )?)?,
            Row::Separator => menu.append(&PredefinedMenuItem::separator(app)?)?,
        }
    }
    Ok(menu)
}

/// A click on the menu.
fn clicked(app: &AppHandle, event: MenuEvent) {
    match TrayItem::parse(event.id().as_ref()) {
        Some(TrayItem::Agent(agent)) => crate::main_window::open_agent(app, &agent),
        Some(TrayItem::HandsFree) => {
            let on = app
                .state::<Tray>()
                .state
                .lock()
                .is_ok_and(|s| s.hands_free());
            // The window starts or stops listening, and says so (`listening.rs`), which ticks the item;
            // until then the tick stays as it was, so it never claims what is not the case.
            if let Err(e) = app.emit(HANDS_FREE_EVENT, !on) {
                tracing::warn!(error = %e, "could not pass hands-free to the window");
            }
            app.state::<Tray>().redraw();
        }
        Some(TrayItem::Open) => crate::main_window::raise(app),
        Some(TrayItem::Quit) => app.exit(0),
        None => {}
    }
}

/// Whether a StatusNotifierWatcher runs on the session bus with a host that shows its items.
fn tray_host() -> bool {
    use dbus::blocking::stdintf::org_freedesktop_dbus::Properties;
    let Ok(bus) = dbus::blocking::Connection::new_session() else {
        return false;
    };
    bus.with_proxy(
        "org.kde.StatusNotifierWatcher",
        "/StatusNotifierWatcher",
        BUS_TIMEOUT,
    )
    .get::<bool>(
        "org.kde.StatusNotifierWatcher",
        "IsStatusNotifierHostRegistered",
    )
    .unwrap_or(false)
}
