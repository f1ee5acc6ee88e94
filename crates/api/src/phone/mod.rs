//! Phones as clients read and set them: where the hub listens for them (`address.rs`), who runs the hub as
//! pushes name it (`contact.rs`), the phones paired, a pairing offered and a phone just paired.

pub mod address;
pub mod contact;

use clawmux_core::Millis;
use serde::{Deserialize, Serialize};

pub use address::{CertificateFiles, Listening, ListeningState, PhoneAddress};
pub use contact::Contact;

/// A paired phone, as the window lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhoneInfo {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// When it was paired.
    pub paired_at: Millis,
    /// When it was last let in (to the minute).
    pub used_at: Option<Millis>,
    /// When it was revoked.
    pub revoked_at: Option<Millis>,
}

/// Whether phones are on, and the phones paired.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhoneStatus {
    /// Phones may reach the hub.
    pub on: bool,
    /// Where the hub listens for phones itself, as the user set it (none: through a tunnel only).
    pub address: Option<PhoneAddress>,
    /// Whether it listens there now.
    pub listening: Listening,
    /// Who runs the hub, as pushes name it to push services (none: a placeholder).
    pub push_contact: Option<Contact>,
    /// Every phone paired, the newest first.
    pub phones: Vec<PhoneInfo>,
}

/// A pairing offered: the code, the link that holds it, and the link as a QR code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pairing {
    /// The one-time code.
    pub code: String,
    /// The link a phone opens (the hub's address as the desktop reaches it; a tunnel to the same port
    /// on the phone gives the phone the same address).
    pub link: String,
    /// The link as a QR code, an SVG image.
    pub qr_svg: String,
    /// Seconds until the code expires.
    pub expires_in: u64,
    /// The fingerprint of the app's own certificate, when the link is to the address the hub listens
    /// on with it: the phone's browser warns, and shows this to compare.
    pub made_here: Option<String>,
}

/// A phone just paired: its id and the token it keeps (shown once, never again).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Paired {
    /// The phone.
    pub phone: PhoneInfo,
    /// Its token.
    pub token: String,
}
