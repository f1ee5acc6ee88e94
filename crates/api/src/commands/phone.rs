//! The commands of phones: whether they may reach the hub, where it listens for them, the push contact,
//! pairing and revoking one, and whether the user is at a desktop window.

use serde::{Deserialize, Serialize};

/// Whether phones may reach the hub, and the phones paired.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Phone {}

/// Lets phones reach the hub, or shuts every phone out (`clawmux phone on|off`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetPhone {
    /// On or off.
    pub on: bool,
}

/// Where the hub listens for phones itself, over TLS (`clawmux phone address`), or, with none, nowhere
/// beyond loopback.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetPhoneAddress {
    /// The address, its name and the user's certificate; none: through a tunnel only.
    pub address: Option<crate::phone::PhoneAddress>,
}

/// Who runs the hub, as pushes name it to push services (`clawmux phone contact`): a `mailto:` or
/// `https:` address; none: a placeholder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetPushContact {
    /// The contact, or none.
    pub contact: Option<String>,
}

/// A pairing link for a new phone, with a one-time code that expires in minutes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhonePair {}

/// Revokes a paired phone at once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhoneRevoke {
    /// The phone's id.
    pub phone: String,
}

/// A desktop window says whether the user is at it (its focus): while they are, nothing is pushed to the
/// phones. Said again every minute while true; it lapses by itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Present {
    /// The window has the user's attention.
    pub present: bool,
}
