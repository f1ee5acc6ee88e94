//! Who runs the hub, as push services ask of every sender (VAPID's `sub`, RFC 8292 §2.1): a `mailto:` or
//! `https:` address the push service's operator could write to about this hub's pushes. Nothing is sent
//! there by the hub. Apple's push service refuses a token without a usable one, so the user may set theirs
//! (`clawmux phone contact`); until then the hub names a placeholder on the reserved `.invalid` domain.
//! What the user sets is checked here, once: one printable line, a real scheme, bounded.

use clawmux_core::wire::Code;
use serde::{Deserialize, Serialize};

use crate::error::Error;

/// The placeholder named while the user has set no contact.
pub const PLACEHOLDER: &str = "mailto:push@clawmux.invalid";

/// The longest contact taken.
const MAX: usize = 256;

/// A contact for push services, checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Contact(String);

impl Contact {
    /// `text` as a contact: `mailto:` an address (one `@`, something on each side) or an `https://` URL
    /// with a host; printable ASCII, no spaces, at most 256 bytes. Refused with why.
    pub fn parse(text: &str) -> Result<Contact, Error> {
        let refuse = || {
            Error::new(
                Code::BadPushContact,
                "a contact for push services is `mailto:you@example.com` or an `https://` address \
                 (printable, no spaces, at most 256 characters)",
            )
        };
        if text.len() > MAX || !text.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(refuse());
        }
        let ok = if let Some(address) = text.strip_prefix("mailto:") {
            matches!(address.split_once('@'), Some((user, host))
                if !user.is_empty() && !host.is_empty() && !host.contains('@'))
        } else if let Some(rest) = text.strip_prefix("https://") {
            rest.split(['/', '?', '#'])
                .next()
                .is_some_and(|host| !host.is_empty())
        } else {
            false
        };
        if ok {
            Ok(Contact(text.to_owned()))
        } else {
            Err(refuse())
        }
    }

    /// The contact as push services read it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for Contact {
    type Error = String;
    fn try_from(text: String) -> Result<Contact, String> {
        Contact::parse(&text).map_err(|e| e.message)
    }
}

impl From<Contact> for String {
    fn from(contact: Contact) -> String {
        contact.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_contact_is_a_mail_address_or_an_https_address_and_nothing_else() {
        for good in [
            "mailto:me@example.com",
            "https://example.com",
            "https://example.com/push",
        ] {
            assert_eq!(Contact::parse(good).unwrap().as_str(), good);
        }
        for bad in [
            "",
            "me@example.com",
            "mailto:",
            "mailto:@example.com",
            "mailto:me@",
            "mailto:a@b@c",
            "http://example.com",
            "https://",
            "https:///path",
            "mailto:me@exa mple.com",
            "mailto:me@example.com\n",
            "javascript:alert(1)",
        ] {
            assert_eq!(
                Contact::parse(bad).unwrap_err().code,
                Code::BadPushContact,
                "{bad:?}"
            );
        }
        assert!(Contact::parse(&format!("mailto:{}@example.com", "a".repeat(300))).is_err());
        assert!(serde_json::from_str::<Contact>("\"ftp://x\"").is_err());
    }
}
