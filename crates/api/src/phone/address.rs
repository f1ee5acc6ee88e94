//! Where the hub listens for phones itself, beyond loopback: an address of this machine the phone can
//! reach without a tunnel (the desktop's Tailscale or WireGuard address), always over TLS, never plain
//! HTTP. The certificate is the user's (`tailscale cert` makes one every phone trusts), or, with none
//! given, one the app makes for that address and name, whose fingerprint the window shows for the user to
//! compare with what the phone's browser shows before accepting it (`tls.rs`).
//!
//! What the user sets is typed and checked here, once, at the boundary: the store keeps it as JSON and a
//! value that no longer parses is reported and ignored rather than served.

use std::net::SocketAddr;
use std::path::PathBuf;

use clawmux_core::wire::Code;
use serde::{Deserialize, Serialize};

use crate::error::Error;

/// The longest host name (RFC 1035).
const NAME_MAX: usize = 253;

/// Where the hub listens for phones, as the user set it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhoneAddress {
    /// The address and port to listen on: one address of this machine (port 0: any free port).
    pub listen: SocketAddr,
    /// The name phones use for it (`desktop.tail1234.ts.net`), when not the address itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The user's certificate (its chain, PEM) and key (PEM, readable by the user alone); none: the
    /// app makes one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub certificate: Option<CertificateFiles>,
}

/// A certificate of the user's, as PEM files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CertificateFiles {
    /// The certificate chain, the hub's first.
    pub cert: PathBuf,
    /// Its private key.
    pub key: PathBuf,
}

/// Whether the hub listens for phones, as it is now.
#[derive(
    Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default, strum::EnumDiscriminants,
)]
#[serde(tag = "state", rename_all = "snake_case")]
#[strum_discriminants(
    name(ListeningState),
    doc = "The `state` of a [`Listening`], as the window matches it.",
    derive(Serialize, strum::EnumIter),
    serde(rename_all = "snake_case")
)]
pub enum Listening {
    /// Not beyond loopback: phones come through a tunnel.
    #[default]
    No,
    /// Listening: phones open `url`.
    At {
        /// The address phones open (`https://name:port`).
        url: String,
        /// The SHA-256 fingerprint of a certificate the app made (none for the user's own), to compare
        /// with what the phone's browser shows.
        made_here: Option<String>,
    },
    /// Asked to listen, and cannot: why.
    Failed {
        /// What went wrong, for the user.
        reason: String,
    },
}

impl PhoneAddress {
    /// Checks what the user set: one address (not every interface), a host name that is one, absolute
    /// paths. Refused with why; nothing is kept.
    pub fn check(&self) -> Result<(), Error> {
        if self.listen.ip().is_unspecified() {
            return Err(bad(
                "name one address of this machine (its Tailscale or WireGuard address), not every \
                 interface",
            ));
        }
        if let Some(name) = &self.name {
            if !host_name(name) {
                return Err(bad(format!(
                    "`{}` is not a host name",
                    clawmux_core::printable::printable(name)
                )));
            }
        }
        if let Some(files) = &self.certificate {
            if !files.cert.is_absolute() || !files.key.is_absolute() {
                return Err(bad(
                    "the certificate and key must be given as absolute paths",
                ));
            }
        }
        Ok(())
    }

    /// The host phones name: the name, or the address.
    pub fn host(&self) -> String {
        match &self.name {
            Some(name) => name.to_ascii_lowercase(),
            None => self.listen.ip().to_string(),
        }
    }

    /// The address phones open, once listening on `port`.
    pub fn url(&self, port: u16) -> String {
        match (&self.name, self.listen) {
            (Some(name), _) => format!("https://{}:{port}", name.to_ascii_lowercase()),
            (None, SocketAddr::V4(a)) => format!("https://{}:{port}", a.ip()),
            (None, SocketAddr::V6(a)) => format!("https://[{}]:{port}", a.ip()),
        }
    }

    /// As the store keeps it.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// As the store kept it; `None`, reported, when it no longer parses or passes.
    pub fn from_json(json: &str) -> Option<PhoneAddress> {
        match serde_json::from_str::<PhoneAddress>(json) {
            Ok(address) if address.check().is_ok() => Some(address),
            Ok(_) | Err(_) => {
                tracing::warn!("the phones' address kept is not one; phones come through a tunnel");
                None
            }
        }
    }
}

/// A phone address refused, with why.
pub fn bad(why: impl Into<String>) -> Error {
    Error::new(Code::BadPhoneAddress, why)
}

/// Whether `name` is a DNS host name: dot-separated labels of letters, digits and inner hyphens.
fn host_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= NAME_MAX
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(listen: &str) -> PhoneAddress {
        PhoneAddress {
            listen: listen.parse().unwrap(),
            name: None,
            certificate: None,
        }
    }

    #[test]
    fn an_address_is_one_interface_a_name_is_a_host_and_paths_are_absolute() {
        assert!(at("100.64.0.7:3461").check().is_ok());
        assert_eq!(
            at("0.0.0.0:3461").check().unwrap_err().code,
            Code::BadPhoneAddress
        );
        assert!(at("[::]:3461").check().is_err());
        let named = |name: &str| PhoneAddress {
            name: Some(name.into()),
            ..at("100.64.0.7:3461")
        };
        assert!(named("desk.tail1234.ts.net").check().is_ok());
        for bad in ["", "a..b", "-a.b", "a b", "évil.net", "a/b", "x\u{1b}[2J"] {
            assert!(named(bad).check().is_err(), "{bad:?}");
        }
        let relative = PhoneAddress {
            certificate: Some(CertificateFiles {
                cert: "cert.pem".into(),
                key: "/k.pem".into(),
            }),
            ..at("100.64.0.7:3461")
        };
        assert!(relative.check().is_err());
    }

    #[test]
    fn the_url_names_the_host_phones_use() {
        assert_eq!(at("100.64.0.7:0").url(3461), "https://100.64.0.7:3461");
        assert_eq!(at("[fd7a::1]:0").url(9), "https://[fd7a::1]:9");
        let named = PhoneAddress {
            name: Some("Desk.TS.net".into()),
            ..at("100.64.0.7:0")
        };
        assert_eq!(named.url(3461), "https://desk.ts.net:3461");
        assert_eq!(named.host(), "desk.ts.net");
    }

    #[test]
    fn what_the_store_keeps_is_checked_again_when_read() {
        let a = at("100.64.0.7:3461");
        assert_eq!(PhoneAddress::from_json(&a.to_json()), Some(a));
        assert_eq!(PhoneAddress::from_json("{\"listen\":\"0.0.0.0:1\"}"), None);
        assert_eq!(PhoneAddress::from_json("nonsense"), None);
    }
}
