//! The HTTP/WebSocket transport of the hub's command surface (axum).
//!
//! Every route goes through [`guard`]: the hub listens on loopback only, and the API can make agents run
//! commands, so a request must name a loopback `Host` (a DNS-rebinding page cannot), carry no foreign
//! `Origin` (a web page in the user's browser cannot), and present the install's token: in the
//! `Authorization` header; where a browser cannot send a header (its WebSockets), in the query of the feed
//! (`/ws`) or, for the terminal, as a WebSocket protocol name (`clawmux.token.<token>`), in no URL. The
//! only web origins trusted are the ones the hub itself serves (`http://127.0.0.1:PORT`, the window's).
//! The hub holds `[::1]:PORT` beside `127.0.0.1:PORT` (`peers::Loopback`), so a `localhost` that resolves to
//! either reaches the hub and no other user's server.

pub(crate) mod aliases;
mod api;
mod between;
mod board;
mod bodies;
pub mod browser;
pub mod idle;
pub mod local;
pub mod peers;
mod phone;
pub mod phones;
mod status;
mod terminal;
mod ui;
mod voice;
mod wait;

use clawmux_core::http1::constant_time_eq;
use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use clawmux_core::wire::Code;

use crate::error::HubError;
use crate::hub::Hub;
use crate::phone::access::{self, Caller};

use clawmux_api::transport::MAX_BODY;

/// The largest raw file posted (`/api/sessions/{id}/attachments`): the attachment limit, and one byte
/// more, so that a file over it reaches the hub's own refusal, which says both sizes.
pub const MAX_FILE_BODY: usize = clawmux_core::wire::MAX_ATTACHMENT as usize + 1;

/// The largest command: `attach` carries a file of up to the attachment limit in base64 (4 bytes for 3),
/// and its JSON around it.
pub const MAX_COMMAND: usize =
    (clawmux_core::wire::MAX_ATTACHMENT as usize / 3 + 1) * 4 + 64 * 1024;

/// The one route that takes the token in its query: the browser's WebSocket.
const TOKEN_IN_QUERY: &str = "/ws";

/// The routes that take the token as a WebSocket protocol: the terminal's.
const TOKEN_IN_PROTOCOL: &str = "/ws/terminal/";

#[derive(Clone)]
struct Guard {
    token: Arc<str>,
    port: u16,
    /// The address the hub listens on, when it is not loopback (`clawmux serve --bind ... --allow-remote`):
    /// a `Host` naming it is accepted too.
    exposed: Option<std::net::IpAddr>,
    /// The private socket: no browser can reach it, so no `Host` or `Origin` to check.
    local: bool,
    /// The user's phones (`None` on the private socket, which no phone reaches).
    phone: Option<crate::phone::Phone>,
    /// On the phones' own address (`phones.rs`): the `host:port` phones name it by. Only phones come in
    /// there: the desktop's token is refused.
    phones_at: Option<Arc<str>>,
}

impl Guard {
    fn host_ok(&self, host: Option<&str>) -> bool {
        let Some(host) = host else { return false };
        if let Some(at) = &self.phones_at {
            return at.eq_ignore_ascii_case(host);
        }
        let port = self.port;
        let exposed = self
            .exposed
            .map(|ip| std::net::SocketAddr::new(ip, port).to_string());
        [
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
        ]
        .iter()
        .chain(exposed.as_ref())
        .any(|h| h.eq_ignore_ascii_case(host))
    }

    fn origin_ok(&self, origin: &str) -> bool {
        let port = self.port;
        [
            format!("http://127.0.0.1:{port}"),
            // The desktop window's own origins (Tauri on Linux/macOS, and on Windows).
            "tauri://localhost".to_owned(),
            "http://tauri.localhost".to_owned(),
        ]
        .iter()
        .any(|o| o.eq_ignore_ascii_case(origin))
    }

    /// With phones on, a tunnel's end: a loopback name at any port (an `ssh -L` on the phone listens on a
    /// port of its own). A DNS-rebinding page cannot name one; a request so addressed still needs a token.
    fn tunnel_host(&self, host: Option<&str>) -> bool {
        let on =
            self.phones_at.is_none() && self.phone.as_ref().is_some_and(crate::phone::Phone::is_on);
        let loopback = |host: &str| {
            let name = host.rsplit_once(':').map_or("", |(name, port)| {
                if port.parse::<u16>().is_ok() {
                    name
                } else {
                    ""
                }
            });
            ["127.0.0.1", "localhost", "[::1]"]
                .iter()
                .any(|n| n.eq_ignore_ascii_case(name))
        };
        on && host.is_some_and(loopback)
    }

    /// Whether a phone's (or a pairing's) request may come from `origin`: at the phones' own address,
    /// its page alone (`https://<that address>`); elsewhere the hub's or the app's own, or the very
    /// address the request was sent to (the page the phone loaded through its tunnel).
    fn phone_origin_ok(&self, origin: &str, host: Option<&str>) -> bool {
        if let Some(at) = &self.phones_at {
            return origin.eq_ignore_ascii_case(&format!("https://{at}"));
        }
        self.origin_ok(origin)
            || host.is_some_and(|h| {
                origin.eq_ignore_ascii_case(&format!("http://{h}"))
                    || origin.eq_ignore_ascii_case(&format!("https://{h}"))
            })
    }

    /// The token a request presents: in the `Authorization` header; on the browser's feed, in its query
    /// (a browser's WebSocket cannot carry a header; nothing else may put a token in a URL, which logs and
    /// histories keep); on the terminal's WebSocket, as a protocol name (in no URL at all).
    fn presented(req: &Request) -> Option<&str> {
        let from_header = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        let from_query = (req.uri().path() == TOKEN_IN_QUERY)
            .then(|| req.uri().query())
            .flatten()
            .and_then(|q| q.split('&').find_map(|pair| pair.strip_prefix("token=")));
        let from_protocol = req
            .uri()
            .path()
            .starts_with(TOKEN_IN_PROTOCOL)
            .then(|| req.headers().get(header::SEC_WEBSOCKET_PROTOCOL))
            .flatten()
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                v.split(',')
                    .find_map(|p| p.trim().strip_prefix(terminal::TOKEN_PROTOCOL))
            });
        from_header.or(from_query).or(from_protocol)
    }

    /// Who presents `given` (the request's token): the desktop, a phone let in now, or nobody.
    async fn caller(&self, given: Option<&str>) -> Option<Caller> {
        let given = given?;
        if constant_time_eq(given.as_bytes(), self.token.as_bytes()) {
            return Some(Caller::Desktop);
        }
        let phone = self.phone.as_ref()?;
        Some(Caller::Phone(
            phone.admit(given, crate::clock::now()).await?,
        ))
    }
}

/// Long: the checks run in order (address, static files, who asks, from where, what, how much), and each
/// refusal says which one failed.
async fn guard(State(g): State<Guard>, mut req: Request, next: Next) -> Response {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let host = host.as_deref();
    if !g.local && !g.host_ok(host) && !g.tunnel_host(host) {
        return HubError::new(
            Code::BadHost,
            "the Host header must name this hub on loopback",
        )
        .into_response();
    }
    // The UI's own files hold no secret: a browser loads them before it has the token (from the fragment).
    let path = req.uri().path().to_owned();
    if req.method() == axum::http::Method::GET && (path == "/" || path.starts_with("/ui/")) {
        return next.run(req).await;
    }
    let agent = g.local && agent_route(&path);
    let pairing = req.method() == axum::http::Method::POST && path == phone::PAIR;
    // (The token is taken out of the request first: a request cannot be held across the store's await.)
    let given = Guard::presented(&req).map(str::to_owned);
    let caller = g.caller(given.as_deref()).await;
    if g.phones_at.is_some() && caller == Some(Caller::Desktop) {
        return HubError::new(
            Code::Unauthorized,
            "the desktop's token is not taken at the phones' address",
        )
        .into_response();
    }
    if caller.is_none() && !agent && !pairing {
        return HubError::new(
            Code::Unauthorized,
            "missing or wrong token (Authorization: Bearer <token from the hub's data folder>)",
        )
        .into_response();
    }
    if let (false, Some(origin)) = (g.local, req.headers().get(header::ORIGIN)) {
        let origin = origin.to_str().unwrap_or("\0");
        let ok = match caller {
            Some(Caller::Desktop) => g.origin_ok(origin),
            Some(Caller::Phone(_)) | None => g.phone_origin_ok(origin, host),
        };
        if !ok {
            return HubError::new(
                Code::BadOrigin,
                "requests from other web origins are refused",
            )
            .into_response();
        }
    }
    if let Some(caller) = caller {
        // A REST name of a command is the command route under another name: its command is checked.
        if matches!(caller, Caller::Phone(_))
            && !aliases::is_alias(req.method(), &path)
            && !access::may_take(req.method(), &path)
        {
            return HubError::new(
                Code::NotForPhones,
                "a phone may read, send, answer and interrupt; this is for the desktop",
            )
            .into_response();
        }
        req.extensions_mut().insert(caller);
    }
    // A body declared too large is refused before it is read: the client hears it at once (rather than
    // after sending megabytes to be thrown away, into a connection then closed). A body of no declared
    // length is still cut at the limit as it is read (DefaultBodyLimit).
    let limit = bodies::limit(req.uri().path());
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        // Answered now, and the connection closed only once the client has stopped sending (RFC 9112,
        // 9.6): closed at once, with its body still arriving, the client would read a reset instead.
        tokio::spawn(bodies::drain(req.into_body()));
        let mut refused = HubError::new(
            Code::BodyTooLarge,
            format!("the body is over the {limit} bytes this endpoint takes"),
        )
        .into_response();
        refused.headers_mut().insert(
            header::CONNECTION,
            header::HeaderValue::from_static("close"),
        );
        return refused;
    }
    next.run(req).await
}

/// What an agent does (its hooks, its wait, its sends, an observed session's reports): allowed without the
/// token on the private socket, which only the user's processes can reach, so the token, which can also
/// start programs, need not be in any agent's environment or Claude's reach. On the TCP port everything
/// needs the token.
fn agent_route(path: &str) -> bool {
    matches!(
        path,
        "/api/hooks/tool-status"
            | "/api/hooks/permission"
            | "/api/hooks/stop"
            | "/api/send"
            | "/api/answer"
            | "/api/close"
            | "/api/task"
            | "/api/handover"
            | "/api/lead"
            | "/api/observe"
            | "/api/usage"
            | "/api/status-report"
    ) || path.starts_with("/ws/wait/")
}

/// The hub's routes, guarded, for a hub listening on `addr`.
pub fn router(hub: Hub, addr: std::net::SocketAddr) -> Router {
    let guard_state = Guard {
        token: Arc::from(hub.token()),
        port: addr.port(),
        exposed: (!addr.ip().is_loopback() && !addr.ip().is_unspecified()).then_some(addr.ip()),
        local: false,
        phone: Some(hub.phone().clone()),
        phones_at: None,
    };
    routes(hub, guard_state)
}

/// The hub's routes at the phones' own address ([`phones`]), which phones name by `host` (`name:port`):
/// a phone's token, or a pairing, and nothing of the desktop's.
pub fn phones_router(hub: Hub, host: String) -> Router {
    let guard_state = Guard {
        token: Arc::from(hub.token()),
        port: 0,
        exposed: None,
        local: false,
        phone: Some(hub.phone().clone()),
        phones_at: Some(Arc::from(host)),
    };
    routes(hub, guard_state)
}

/// The hub's routes on its private socket ([`local`]).
pub fn local_router(hub: Hub) -> Router {
    let guard_state = Guard {
        token: Arc::from(hub.token()),
        port: 0,
        exposed: None,
        local: true,
        phone: None,
        phones_at: None,
    };
    routes(hub, guard_state)
}

fn routes(hub: Hub, guard_state: Guard) -> Router {
    aliases::add(Router::new())
        .route("/api/health", get(api::health))
        .route(
            "/api/command",
            post(api::command).layer(DefaultBodyLimit::max(MAX_COMMAND)),
        )
        .route("/api/attachments/{id}", get(api::attachment))
        .route(
            "/api/sessions/{id}/attachments",
            post(api::attach).layer(DefaultBodyLimit::max(MAX_FILE_BODY)),
        )
        .route(phone::PAIR, post(phone::pair))
        .route(phone::PUSH_KEY, get(phone::push_key))
        .route(phone::PUSH, post(phone::push))
        .route("/metrics", get(api::metrics))
        .route("/api/send", post(api::send))
        .route("/api/answer", post(between::answer))
        .route("/api/close", post(between::close))
        .route("/api/task", post(board::task))
        .route("/api/handover", post(board::handover))
        .route("/api/lead", post(board::lead))
        .route("/api/hooks/tool-status", post(api::tool_status))
        .route("/api/hooks/permission", post(api::permission))
        .route("/api/hooks/stop", post(api::stop))
        .route("/api/observe", post(api::observe))
        .route("/api/usage", post(api::usage))
        .route("/api/status-report", post(api::status_report))
        .route(
            "/api/sessions/{id}/voice",
            post(voice::voice).layer(DefaultBodyLimit::max(crate::voice::MAX_AUDIO)),
        )
        .route("/api/speech", post(voice::speech))
        .route(
            "/api/voice/hear",
            post(voice::hear).layer(DefaultBodyLimit::max(crate::voice::MAX_AUDIO)),
        )
        .route("/api/sessions/{id}/log/{stream}", get(api::log))
        .route("/ws/wait/{id}", get(wait::upgrade))
        .route("/ws", get(browser::upgrade))
        .route("/ws/terminal/{id}", get(terminal::upgrade))
        .route("/", get(ui::index))
        .route("/ui/{*path}", get(ui::asset))
        .fallback(|| async { HubError::new(Code::NotFound, "no such endpoint") })
        .layer(axum::middleware::from_fn_with_state(guard_state, guard))
        .layer(axum::middleware::from_fn(idle::while_answering))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(hub)
}

#[cfg(test)]
mod tests;
