//! Updates: the window says a newer ClawMux is out and what changed, and installs it on the user's word,
//! then starts again into it. The agents run in tmux, not in the app, so they go on through it; the new
//! version's hub opens the same store (upgraded, copied aside first) and adopts them.
//!
//! Tauri's updater (its official plugin) fetches a manifest and the package it names, and checks the
//! package against ClawMux's release key (minisign; its public half is in `tauri.conf.json`, the private
//! half is the maintainers' and never in the repository). Installed from the .deb, the update is the next
//! .deb, installed with `dpkg -i` through `pkexec` (the desktop's password prompt); an AppImage replaces
//! itself. A package that does not match the key and a version older than this one are refused with the
//! reason; a server that stops answering is out of reach, asked again later; either way this version goes
//! on running.
//!
//! Where updates come from: the address a release build was made with (`scripts/package`), or
//! `CLAWMUX_UPDATES` (a mirror, or a test's server on loopback). A build from source has none and says so;
//! it never contacts anyone.

use std::sync::Mutex;
use std::time::Duration;

use clawmux_core::sync::Locked;
use serde::Serialize;
use tauri::{AppHandle, State};
use tauri_plugin_updater::{Update, UpdaterExt};

/// The variable that names the update manifest's address instead of the build's.
pub const UPDATES_ENV: &str = "CLAWMUX_UPDATES";

/// How long the server may go without sending anything, asked for the manifest or the package.
const SILENCE: Duration = Duration::from_secs(15);

/// The most of a release's notes the window shows (the rest is on the release's page).
const NOTES_AT_MOST: usize = 4000;

/// What a check found, for the window.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Found {
    /// This build has no update address (built from source).
    NotSetUp {
        /// This version.
        version: String,
    },
    /// Nothing newer.
    UpToDate {
        /// This version.
        version: String,
    },
    /// A newer version, which `update_install` installs.
    Available {
        /// This version.
        version: String,
        /// The newer one.
        offered: String,
        /// What changed, as the release says (plain text).
        notes: String,
    },
    /// The update server could not be asked, or its answer not read (offline, a server that stops
    /// answering): asked again at the next check.
    Unreachable {
        /// This version.
        version: String,
        /// What went wrong, in a sentence.
        reason: String,
    },
    /// The server's answer is not taken: why.
    Refused {
        /// This version.
        version: String,
        /// Why, in a sentence.
        reason: String,
    },
}

/// The update last found, until it is installed or a check finds another.
#[derive(Default)]
pub struct Pending(Mutex<Option<Update>>);

impl Pending {
    fn set(&self, update: Option<Update>) {
        *self.0.locked() = update;
    }

    fn take(&self) -> Option<Update> {
        self.0.locked().take()
    }
}

/// The plugin, with ClawMux's key from the app's configuration.
pub fn plugin() -> tauri::plugin::TauriPlugin<tauri::Wry, tauri_plugin_updater::Config> {
    tauri_plugin_updater::Builder::new().build()
}

/// Asks the update server whether a newer version is out.
#[tauri::command]
pub async fn update_check(app: AppHandle, pending: State<'_, Pending>) -> Result<Found, String> {
    let version = app.package_info().version.clone();
    let shown = version.to_string();
    let mut builder = app
        .updater_builder()
        // Every version the server offers is looked at here, so that an older one is refused with the
        // reason rather than passed over in silence.
        .version_comparator(|_, _| true)
        .configure_client(|client| client.read_timeout(SILENCE).connect_timeout(SILENCE));
    if let Some(address) = std::env::var(UPDATES_ENV).ok().filter(|a| !a.is_empty()) {
        let url = address
            .parse()
            .map_err(|e| format!("{UPDATES_ENV} is not an address: {e}"))?;
        builder = builder.endpoints(vec![url]).map_err(|e| e.to_string())?;
    }
    let updater = match builder.build() {
        Ok(updater) => updater,
        Err(tauri_plugin_updater::Error::EmptyEndpoints) => {
            return Ok(Found::NotSetUp { version: shown })
        }
        Err(e) => return Err(e.to_string()),
    };
    let (found, offered) = match updater.check().await {
        Err(e) => (
            Found::Unreachable {
                version: shown,
                reason: said(&e),
            },
            None,
        ),
        Ok(None) => (Found::UpToDate { version: shown }, None),
        Ok(Some(update)) => judge(&version, update),
    };
    // Only an update offered to the user may be installed: anything else the check found clears it.
    pending.set(offered);
    Ok(found)
}

/// A version the server offers: newer is offered to the user (and kept, to install); the same is up to
/// date; older is refused.
fn judge(version: &semver::Version, update: Update) -> (Found, Option<Update>) {
    let shown = version.to_string();
    match compare(version, &update.version) {
        Err(reason) => (
            Found::Refused {
                version: shown,
                reason,
            },
            None,
        ),
        Ok(Standing::Same) => (Found::UpToDate { version: shown }, None),
        Ok(Standing::Newer) => {
            let notes: String =
                clawmux_core::printable::printable(update.body.as_deref().unwrap_or(""))
                    .chars()
                    .take(NOTES_AT_MOST)
                    .collect();
            let found = Found::Available {
                version: shown,
                offered: update.version.clone(),
                notes,
            };
            (found, Some(update))
        }
    }
}

/// A version offered that may be taken.
#[derive(Debug, PartialEq, Eq)]
enum Standing {
    /// Newer than this one: offered to the user.
    Newer,
    /// This one.
    Same,
}

/// How the version offered stands to this one, or why it is refused (older, or not a version at all).
fn compare(version: &semver::Version, offered: &str) -> Result<Standing, String> {
    let offered = semver::Version::parse(offered)
        .map_err(|e| format!("the server offers a version that is not one ({e})"))?;
    match offered.cmp(version) {
        std::cmp::Ordering::Less => Err(format!(
            "the server offers {offered}, older than this {version}: a downgrade is not installed"
        )),
        std::cmp::Ordering::Equal => Ok(Standing::Same),
        std::cmp::Ordering::Greater => Ok(Standing::Newer),
    }
}

/// Downloads the update found, checks it against the release key, installs it and starts the app again
/// into it. On any failure this version goes on, and the window hears why.
#[tauri::command]
pub async fn update_install(app: AppHandle, pending: State<'_, Pending>) -> Result<(), String> {
    let update = pending
        .take()
        .ok_or("no update to install: check for updates first")?;
    let offered = update.version.clone();
    tracing::info!(version = %offered, "downloading the update");
    let bytes = update
        .download(|_, _| {}, || {})
        .await
        .map_err(|e| format!("{offered} was not installed: {}", said(&e)))?;
    tracing::info!(version = %offered, "installing the update");
    tauri::async_runtime::spawn_blocking(move || update.install(bytes))
        .await
        .map_err(|e| format!("{offered} was not installed: {e}"))?
        .map_err(|e| format!("{offered} was not installed: {}", said(&e)))?;
    tracing::info!(version = %offered, "installed; starting again into it");
    app.restart()
}

/// The updater's error as a user reads it: the signature's named for what it means, any other with what
/// caused it (a connection's "operation timed out" is the cause of "error sending request").
fn said(e: &tauri_plugin_updater::Error) -> String {
    use tauri_plugin_updater::Error;
    if matches!(
        e,
        Error::Minisign(_) | Error::SignatureUtf8(_) | Error::Base64(_)
    ) {
        return "the package is not signed with ClawMux's release key (or was changed after it was signed)"
            .to_owned();
    }
    let mut words = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        words = format!("{words}: {c}");
        cause = c.source();
    }
    clawmux_core::printable::one_line(&words, 300)
}

#[cfg(test)]
mod tests {
    use super::{compare, Found, Standing};

    #[test]
    fn the_window_says_every_state_a_check_can_find() {
        let page = include_str!("../ui/js/updates.js");
        let v = || "0.1.0".to_owned();
        for found in [
            Found::NotSetUp { version: v() },
            Found::UpToDate { version: v() },
            Found::Available {
                version: v(),
                offered: v(),
                notes: v(),
            },
            Found::Unreachable {
                version: v(),
                reason: v(),
            },
            Found::Refused {
                version: v(),
                reason: v(),
            },
        ] {
            let state = serde_json::to_value(&found).unwrap()["state"]
                .as_str()
                .unwrap()
                .to_owned();
            assert!(
                page.contains(&format!("    {state}: `")),
                "updates.js does not say {state}"
            );
        }
    }

    #[test]
    fn newer_is_offered_the_same_is_up_to_date_and_older_or_no_version_is_refused() {
        let this = semver::Version::new(0, 2, 3);
        assert_eq!(compare(&this, "0.2.4"), Ok(Standing::Newer));
        assert_eq!(compare(&this, "1.0.0-rc.1"), Ok(Standing::Newer));
        assert_eq!(compare(&this, "0.2.3"), Ok(Standing::Same));
        let older = compare(&this, "0.2.2").unwrap_err();
        assert!(older.contains("older than this 0.2.3"), "{older}");
        assert!(
            compare(&this, "0.2.3-beta").is_err(),
            "a pre-release of this version is older"
        );
        assert!(compare(&this, "latest").unwrap_err().contains("not one"));
    }
}
