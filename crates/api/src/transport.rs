//! What both ends of the hub's local API agree on beside its messages: the header that names the agent a
//! request speaks for, the largest body, how long a silent connection lives, and how long one of an
//! agent's calls (its `clawmux wait`) may run. Named here once, so the hooks, the relay and `clawmux`
//! keep the hub's terms without building the hub.

/// The header that names the agent a hook or `clawmux send` speaks for.
pub const SESSION_HEADER: &str = "clawmux-session";

/// The largest request body (and WebSocket message) the hub accepts; a hook's payload over it is
/// shortened by the sender.
pub const MAX_BODY: usize = 1024 * 1024;

/// How long a connection may stay silent, in milliseconds (the hub's default, and the relay's).
pub const IDLE_MS: u64 = 60_000;

/// How long Claude Code lets one Bash call run by default (its `BASH_DEFAULT_TIMEOUT_MS` and
/// `BASH_MAX_TIMEOUT_MS`): a day. At its timeout, Claude Code moves the call to the background and calls
/// the model again to run a new `clawmux wait`: with its own default, an idle agent would cost model turns
/// every few minutes. A hook's request may take as long (a permission held for the user).
pub const BASH_TIMEOUT_MS: u64 = 24 * 60 * 60 * 1000;
