//! What the phones' settings show and hand out: the phones paired, whether phones are on and where the
//! hub listens for them, a pairing offered, a phone just paired.

use clawmux_core::wire::Code;
use clawmux_core::Millis;
use clawmux_store::PhoneRow;
use serde::{Deserialize, Serialize};

use super::{Listening, PhoneAddress};
use crate::error::HubError;

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

impl From<PhoneRow> for PhoneInfo {
    fn from(r: PhoneRow) -> PhoneInfo {
        PhoneInfo {
            id: r.id,
            name: r.name,
            paired_at: r.paired_at,
            used_at: r.used_at,
            revoked_at: r.revoked_at,
        }
    }
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
    pub push_contact: Option<super::push::contact::Contact>,
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

/// A phone let in: who is asking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhoneId(pub String);

/// `link` as a QR code, an SVG image.
pub(super) fn qr_svg(link: &str) -> Result<String, HubError> {
    let code = qrcode::QrCode::new(link.as_bytes())
        .map_err(|e| HubError::new(Code::Internal, format!("no QR code for the link: {e}")))?;
    Ok(code
        .render::<qrcode::render::svg::Color>()
        .min_dimensions(240, 240)
        .quiet_zone(true)
        .build())
}
