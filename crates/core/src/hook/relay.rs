//! The names an agent's hook relay shares with the settings that point Claude Code at it and with the
//! hub it forwards to: which hooks go over HTTP, at which path of the relay, to which endpoint of the hub,
//! and the key that proves a request comes from the agent's own Claude Code.
//!
//! Claude Code posts a hook to a URL (`type: "http"`, since 2.1.63) with no process started. The URL is a
//! loopback port of the agent's relay, which holds it for as long as the agent lives: a port the hub held
//! would be free while the hub is down or restarting, and whoever bound it then would read every hook and
//! could answer them (approve a permission, feed Claude words of its own).

use std::fmt;

use crate::wire::Code;

/// The header that carries an agent's hook key.
pub const KEY_HEADER: &str = "clawmux-hook-key";

/// A hook Claude Code posts to the relay, and the hub's endpoint it is forwarded to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relayed {
    /// Any event that only reports (the answer may hand the inbox over as additionalContext).
    ToolStatus,
    /// PermissionRequest: held until the user answers from the app.
    Permission,
    /// Stop: whether Claude may stop.
    Stop,
}

impl Relayed {
    /// Every relayed hook.
    pub const ALL: [Relayed; 3] = [Relayed::ToolStatus, Relayed::Permission, Relayed::Stop];

    /// Its path on the relay.
    pub fn path(self) -> &'static str {
        match self {
            Relayed::ToolStatus => "/hook/tool-status",
            Relayed::Permission => "/hook/permission",
            Relayed::Stop => "/hook/stop",
        }
    }

    /// The hub's endpoint (the same one the command-form hook posts to).
    pub fn hub_path(self) -> &'static str {
        match self {
            Relayed::ToolStatus => "/api/hooks/tool-status",
            Relayed::Permission => "/api/hooks/permission",
            Relayed::Stop => "/api/hooks/stop",
        }
    }

    /// The hook a relay path names.
    pub fn from_path(path: &str) -> Option<Relayed> {
        Relayed::ALL.into_iter().find(|r| r.path() == path)
    }
}

/// An agent's hook key: 32 random bytes as 64 lowercase hex digits. It lets its holder report hooks for
/// that one agent, through that agent's relay, and nothing else; it is written only into the agent's
/// 0600 settings and handed to the relay on its stdin, never on a command line or in an environment.
#[derive(Clone, PartialEq, Eq)]
pub struct HookKey(String);

impl HookKey {
    /// A key from 32 bytes of randomness.
    pub fn from_bytes(bytes: [u8; 32]) -> HookKey {
        HookKey(crate::hex::hex(&bytes))
    }

    /// A key as written: exactly 64 lowercase hex digits.
    pub fn parse(text: &str) -> Result<HookKey, Code> {
        let hex = |c: char| c.is_ascii_digit() || ('a'..='f').contains(&c);
        if text.len() == 64 && text.chars().all(hex) {
            Ok(HookKey(text.to_owned()))
        } else {
            Err(Code::Unauthorized)
        }
    }

    /// The key's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `given` is this key, compared in a time that does not tell how much of it was right.
    pub fn matches(&self, given: &[u8]) -> bool {
        crate::http1::constant_time_eq(self.0.as_bytes(), given)
    }
}

/// Never printed: a key in a log would be a key given away.
impl fmt::Debug for HookKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("HookKey(..)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_name_their_hook_and_nothing_else() {
        for hook in Relayed::ALL {
            assert_eq!(Relayed::from_path(hook.path()), Some(hook));
            assert!(hook.hub_path().starts_with("/api/hooks/"));
        }
        assert_eq!(Relayed::from_path("/hook/observe"), None);
        assert_eq!(Relayed::from_path("/api/hooks/stop"), None);
    }

    #[test]
    fn a_key_is_64_hex_digits_and_matches_only_itself() {
        let key = HookKey::from_bytes([0xab; 32]);
        assert_eq!(key.as_str().len(), 64);
        assert_eq!(HookKey::parse(key.as_str()), Ok(key.clone()));
        assert!(key.matches(key.as_str().as_bytes()));
        assert!(!key.matches(HookKey::from_bytes([0xac; 32]).as_str().as_bytes()));
        assert!(!key.matches(&key.as_str().as_bytes()[..63]));
        assert!(!key.matches(b""));
        for bad in [
            "",
            "AB".repeat(32).as_str(),
            &"a".repeat(63),
            &"g".repeat(64),
        ] {
            assert!(HookKey::parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(format!("{key:?}"), "HookKey(..)");
    }
}
