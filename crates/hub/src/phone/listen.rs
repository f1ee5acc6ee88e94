//! Where the hub listens for phones beyond loopback, as `Phone` keeps it: the address the user set (kept
//! in the store, typed in `address.rs`), what the transport should serve now (the address while phones are
//! on, each change numbered), and the transport's report of how it went, which a change waits for a moment
//! so that the user hears at once whether the address could be listened on.

use std::time::Duration;

use super::{failed, Listening, Phone, PhoneAddress, PhoneStatus};
use crate::error::HubError;
use clawmux_core::sync::Locked;

/// Where the hub should listen for phones beyond loopback: the address, while phones are on; each
/// change numbered, so that whoever changed it can wait for the transport's report on it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Wanted {
    /// The address to serve, or none.
    pub address: Option<PhoneAddress>,
    /// This change's number.
    pub generation: u64,
}

/// How long a change of address waits for the transport to say how it went.
const LISTEN_REPORT: Duration = Duration::from_secs(5);

impl Phone {
    pub(super) fn address(&self) -> std::sync::MutexGuard<'_, Option<PhoneAddress>> {
        self.address.locked()
    }

    /// Sets (or with `None` clears) where the hub listens for phones itself, and, while phones are on,
    /// waits a moment for the transport to say how it went (the status says it). An address that is
    /// not one is refused and changes nothing.
    pub async fn set_address(
        &self,
        address: Option<PhoneAddress>,
    ) -> Result<PhoneStatus, HubError> {
        if let Some(address) = &address {
            address.check()?;
        }
        let json = address.as_ref().map(PhoneAddress::to_json);
        self.store
            .set_phone_address(json.as_deref())
            .await
            .map_err(failed)?;
        *self.address() = address;
        self.rewant().await;
        self.status().await
    }

    /// Tells the transport what to serve now, and waits (a moment at most) for its report.
    pub(super) async fn rewant(&self) {
        let address = self.address().clone().filter(|_| self.is_on());
        let mut generation = 0;
        self.wanted.send_modify(|w| {
            w.generation += 1;
            w.address = address;
            generation = w.generation;
        });
        if self.wanted.receiver_count() == 0 {
            return; // nothing serves it (a hub without listeners, in tests)
        }
        let mut reports = self.listening.subscribe();
        let reported = reports.wait_for(|(g, _)| *g >= generation);
        let _ = tokio::time::timeout(LISTEN_REPORT, reported).await;
    }

    /// What the transport should serve, as it changes.
    pub fn wanted(&self) -> tokio::sync::watch::Receiver<Wanted> {
        self.wanted.subscribe()
    }

    /// The transport's report on change `generation`.
    pub fn report(&self, generation: u64, listening: Listening) {
        match &listening {
            Listening::At { url, .. } => tracing::info!(%url, "listening for phones"),
            Listening::Failed { reason } => tracing::warn!(%reason, "cannot listen for phones"),
            Listening::No => {}
        }
        self.listening.send_replace((generation, listening));
    }
}
