//! Links in agents' messages open in the user's browser, never in the window: the window shows the UI and
//! nothing else, whatever a message links to or a page tries (a link without the UI's click handler, a
//! form, a script's navigation). The UI hands a clicked link to `open_link`; anything that still tries to
//! take the window elsewhere is stopped by the navigation guard, and a web link is opened outside instead.

use tauri::{Runtime, Url};

/// Whether `url` is the UI itself: the window's own origin (tauri://localhost on Linux and macOS,
/// http://tauri.localhost on Windows).
fn is_own(url: &Url) -> bool {
    matches!(
        (url.scheme(), url.host_str()),
        ("tauri", Some("localhost")) | ("http" | "https", Some("tauri.localhost"))
    )
}

/// Opens a web or mail link with the desktop's own handler (`xdg-open`: the user's browser or mail
/// program). Other schemes (`file:`, `javascript:`, custom handlers) are refused: a message must not make
/// the desktop run a program of its choosing.
fn open_outside(url: &Url) -> Result<(), String> {
    if !matches!(url.scheme(), "http" | "https" | "mailto") {
        return Err(format!(
            "{url} was not opened: only web and mail links are opened"
        ));
    }
    let mut child = std::process::Command::new("xdg-open")
        .arg(url.as_str())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("{url} was not opened: xdg-open cannot run ({e})"))?;
    // Reaped when it ends; the browser it starts lives on by itself.
    std::thread::spawn(move || {
        let _ = child.wait();
    });
    Ok(())
}

/// Opens a link of a message in the user's browser.
#[tauri::command]
pub fn open_link(url: String) -> Result<(), String> {
    let url = Url::parse(&url).map_err(|e| format!("not a link: {e}"))?;
    open_outside(&url)
}

/// Keeps the window on the UI: any navigation elsewhere is cancelled, and a web link opened outside.
pub fn guard<R: Runtime>() -> tauri::plugin::TauriPlugin<R> {
    tauri::plugin::Builder::new("links")
        .on_navigation(|_webview, url| {
            if is_own(url) {
                return true;
            }
            if let Err(why) = open_outside(url) {
                tracing::warn!("{why}");
            }
            false
        })
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_ui_stays_in_the_window_and_only_web_links_leave_it() {
        let url = |s: &str| Url::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"));
        assert!(is_own(&url("tauri://localhost/index.html")));
        assert!(is_own(&url("http://tauri.localhost/js/main.js")));
        for foreign in [
            "https://example.com/",
            "http://127.0.0.1:3460/ui/index.html",
            "tauri://elsewhere/",
            "file:///etc/passwd",
        ] {
            assert!(!is_own(&url(foreign)), "{foreign}");
        }
        for refused in ["file:///etc/passwd", "javascript:alert(1)", "ssh://host/"] {
            assert!(open_outside(&url(refused)).is_err(), "{refused}");
        }
    }
}
