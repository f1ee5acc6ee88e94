//! The web UI (`ui/`), served to browsers by the hub itself.
//!
//! The files are embedded in the binary (read from disk in debug builds, so editing the UI needs no
//! rebuild). They hold no secret, so they are served without the token (the `Host` check still applies);
//! the page takes the token from the URL's fragment (`/#token=...`), which browsers never send to a server,
//! and every API call and WebSocket it makes carries it. `ui/vendor/` holds the markdown libraries, copied
//! there from npm by `scripts/setup`: shipped with the app, never fetched from a CDN.

use axum::extract::Path;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use clawmux_core::wire::Code;

use crate::error::HubError;

#[derive(rust_embed::Embed)]
#[folder = "../../ui/"]
struct Files;

/// `GET /`: to the page, whose relative paths then resolve under `/ui/` (as they resolve under `/` in the
/// desktop app). The browser keeps the `#token=` fragment across the redirect.
pub(super) async fn index() -> Response {
    axum::response::Redirect::to("/ui/index.html").into_response()
}

/// `GET /ui/{*path}`: scripts, styles, vendored libraries.
pub(super) async fn asset(Path(path): Path<String>) -> Response {
    file(&path)
}

fn file(path: &str) -> Response {
    // Debug builds read the files from disk: never let a path leave the folder.
    let escapes = path.starts_with('/') || path.split(['/', '\\']).any(|part| part == "..");
    match Files::get(path).filter(|_| !escapes) {
        Some(f) => (
            [
                (header::CONTENT_TYPE, f.metadata.mimetype().to_owned()),
                // Scripts are ES modules loaded by the page only; nothing here may be framed by another site.
                (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_owned()),
                (header::X_FRAME_OPTIONS, "DENY".to_owned()),
                (header::CACHE_CONTROL, "no-cache".to_owned()),
            ],
            f.data,
        )
            .into_response(),
        None => HubError::new(Code::NotFound, format!("no UI file `{path}`")).into_response(),
    }
}
