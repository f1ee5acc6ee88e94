//! What the phones' settings show and hand out: the phones paired, whether phones are on and where the
//! hub listens for them, a pairing offered, a phone just paired.

use clawmux_core::wire::Code;
use clawmux_store::PhoneRow;

use crate::error::HubError;
pub use clawmux_api::phone::{Paired, Pairing, PhoneInfo, PhoneStatus};

/// A paired phone as the window lists it, from its row.
pub(super) fn info(r: PhoneRow) -> PhoneInfo {
    PhoneInfo {
        id: r.id,
        name: r.name,
        paired_at: r.paired_at,
        used_at: r.used_at,
        revoked_at: r.revoked_at,
    }
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
