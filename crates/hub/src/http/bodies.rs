//! How much a request may carry, by route, and a body refused for its size read to its end and thrown
//! away (within bounds), so the client hears the refusal rather than a reset.

use super::{MAX_BODY, MAX_COMMAND, MAX_FILE_BODY};

/// The largest body a path takes: recordings up to the transcription limit, anything else [`MAX_BODY`].
pub(super) fn limit(path: &str) -> usize {
    if (path.starts_with("/api/sessions/") && path.ends_with("/voice")) || path == "/api/voice/hear"
    {
        crate::voice::MAX_AUDIO
    } else if path == "/api/command" {
        MAX_COMMAND
    } else if path.starts_with("/api/sessions/") && path.ends_with("/attachments") {
        MAX_FILE_BODY
    } else {
        MAX_BODY
    }
}

/// The most of a refused body read and thrown away, and how long the client may pause while sending it,
/// before the connection is closed anyway.
const DRAIN_MAX: usize = 64 * 1024 * 1024;
const DRAIN_PAUSE: std::time::Duration = std::time::Duration::from_secs(2);

/// Reads a refused body to its end, within bounds, and throws it away.
pub(super) async fn drain(body: axum::body::Body) {
    use futures_util::StreamExt;
    let mut stream = body.into_data_stream();
    let mut read = 0;
    while read <= DRAIN_MAX {
        match tokio::time::timeout(DRAIN_PAUSE, stream.next()).await {
            Ok(Some(Ok(chunk))) => read += chunk.len(),
            Ok(Some(Err(_)) | None) | Err(_) => return,
        }
    }
}
