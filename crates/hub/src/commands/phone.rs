//! The commands of phones: whether they may reach the hub, where it listens for them, the push contact,
//! pairing and revoking one, and whether the user is at a desktop window.

use clawmux_api::commands::phone::{
    Phone, PhonePair, PhoneRevoke, Present, SetPhone, SetPhoneAddress, SetPushContact,
};

use super::{Done, Handle};
use crate::error::HubError;
use crate::hub::Hub;
use crate::phone::{Pairing, PhoneStatus};

impl Handle for Phone {
    async fn handle(self, hub: &Hub) -> Result<PhoneStatus, HubError> {
        hub.phone().status().await
    }
}

impl Handle for SetPhone {
    async fn handle(self, hub: &Hub) -> Result<PhoneStatus, HubError> {
        hub.phone().set_on(self.on).await
    }
}

impl Handle for SetPhoneAddress {
    async fn handle(self, hub: &Hub) -> Result<PhoneStatus, HubError> {
        hub.phone().set_address(self.address).await
    }
}

impl Handle for SetPushContact {
    async fn handle(self, hub: &Hub) -> Result<PhoneStatus, HubError> {
        hub.phone().set_push_contact(self.contact.as_deref()).await
    }
}

impl Handle for PhonePair {
    async fn handle(self, hub: &Hub) -> Result<Pairing, HubError> {
        hub.phone().pair(crate::clock::now())
    }
}

impl Handle for PhoneRevoke {
    async fn handle(self, hub: &Hub) -> Result<PhoneStatus, HubError> {
        hub.phone().revoke(&self.phone, crate::clock::now()).await
    }
}

impl Handle for Present {
    async fn handle(self, hub: &Hub) -> Result<Done, HubError> {
        hub.phone()
            .push()
            .set_present(self.present, crate::clock::now());
        Ok(Done {})
    }
}
