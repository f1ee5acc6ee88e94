//! The commands of phones: whether they may reach the hub, where it listens for them, the push contact,
//! pairing and revoking one, and whether the user is at a desktop window.

use serde::{Deserialize, Serialize};

use super::{Done, Handle};
use crate::error::HubError;
use crate::hub::Hub;
use crate::phone::{Pairing, PhoneStatus};

/// Whether phones may reach the hub, and the phones paired.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Phone {}

impl Handle for Phone {
    async fn handle(self, hub: &Hub) -> Result<PhoneStatus, HubError> {
        hub.phone().status().await
    }
}

/// Lets phones reach the hub, or shuts every phone out (`clawmux phone on|off`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetPhone {
    /// On or off.
    pub on: bool,
}

impl Handle for SetPhone {
    async fn handle(self, hub: &Hub) -> Result<PhoneStatus, HubError> {
        hub.phone().set_on(self.on).await
    }
}

/// Where the hub listens for phones itself, over TLS (`clawmux phone address`), or, with none, nowhere
/// beyond loopback.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetPhoneAddress {
    /// The address, its name and the user's certificate; none: through a tunnel only.
    pub address: Option<crate::phone::PhoneAddress>,
}

impl Handle for SetPhoneAddress {
    async fn handle(self, hub: &Hub) -> Result<PhoneStatus, HubError> {
        hub.phone().set_address(self.address).await
    }
}

/// Who runs the hub, as pushes name it to push services (`clawmux phone contact`): a `mailto:` or
/// `https:` address; none: a placeholder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetPushContact {
    /// The contact, or none.
    pub contact: Option<String>,
}

impl Handle for SetPushContact {
    async fn handle(self, hub: &Hub) -> Result<PhoneStatus, HubError> {
        hub.phone().set_push_contact(self.contact.as_deref()).await
    }
}

/// A pairing link for a new phone, with a one-time code that expires in minutes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhonePair {}

impl Handle for PhonePair {
    async fn handle(self, hub: &Hub) -> Result<Pairing, HubError> {
        hub.phone().pair(crate::clock::now())
    }
}

/// Revokes a paired phone at once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhoneRevoke {
    /// The phone's id.
    pub phone: String,
}

impl Handle for PhoneRevoke {
    async fn handle(self, hub: &Hub) -> Result<PhoneStatus, HubError> {
        hub.phone().revoke(&self.phone, crate::clock::now()).await
    }
}

/// A desktop window says whether the user is at it (its focus): while they are, nothing is pushed to the
/// phones. Said again every minute while true; it lapses by itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Present {
    /// The window has the user's attention.
    pub present: bool,
}

impl Handle for Present {
    async fn handle(self, hub: &Hub) -> Result<Done, HubError> {
        hub.phone()
            .push()
            .set_present(self.present, crate::clock::now());
        Ok(Done {})
    }
}
