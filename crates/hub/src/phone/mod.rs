//! The user's phones: reaching the agents away from the desk, through a tunnel the user already trusts
//! (an SSH port forward, their Tailscale or WireGuard address), never a server of ours.
//!
//! Off until the user turns it on (`set_on`). Then the window shows a pairing link (and its QR code)
//! holding a one-time code that expires in [`PAIRING_TTL`]; the phone that opens it redeems the code for
//! a token of its own, which it keeps (the hub keeps only its SHA-256). A phone is let in by that token,
//! while phones are on and until it is revoked; what it may do is narrower than the window (`access.rs`):
//! read, send, answer, interrupt, never settings, machines, pairing or a terminal. The desktop's own
//! token never leaves the desktop.
//!
//! A revocation, or phones turned off, takes effect at once: each request checks, and every open feed is
//! told to check again (`changes`).
//!
//! Where the user names an address of theirs for phones (`address.rs`), the hub also listens there, over
//! TLS (`tls.rs`): this type says where it is wanted (`wanted`), and the transport that serves it
//! (`http/phones.rs`, which sees the whole hub) reports back how it went (`report`).

use clawmux_core::sync::Locked;

pub mod access;
pub use clawmux_api::phone::address;
mod listen;
pub mod push;
mod status;
#[cfg(test)]
mod tests;
pub mod tls;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU16, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clawmux_core::http1::constant_time_eq;
use clawmux_core::wire::Code;
use clawmux_core::Millis;
use clawmux_store::Store;
use sha2::{Digest, Sha256};

use crate::error::HubError;
pub use clawmux_api::phone::{Listening, ListeningState, PhoneAddress};
pub use listen::Wanted;
pub use status::{Paired, Pairing, PhoneId, PhoneInfo, PhoneStatus};

/// How long a pairing code may be redeemed.
pub const PAIRING_TTL: Duration = Duration::from_secs(5 * 60);

/// How often a phone's last use is written down (each request would be a write).
const USE_NOTED_EVERY: Duration = Duration::from_secs(60);

/// The longest name a phone may give itself.
const NAME_CHARS: usize = 40;

/// The user's phones. Made once when the hub opens, with the store.
#[derive(Debug, Clone)]
pub struct Phone {
    store: Store,
    /// The hub's port, for the pairing link.
    port: Arc<AtomicU16>,
    on: Arc<AtomicBool>,
    /// Pairing codes not yet redeemed, and when each expires.
    codes: Arc<Mutex<HashMap<String, Millis>>>,
    /// When each phone's use was last written down.
    noted: Arc<Mutex<HashMap<String, Millis>>>,
    /// Bumped whenever a phone may have lost its access (revoked, phones turned off).
    changes: Arc<tokio::sync::watch::Sender<u64>>,
    /// Pushes to the phones.
    push: push::Push,
    /// Where the user wants the hub to listen for phones (off or not).
    address: Arc<Mutex<Option<PhoneAddress>>>,
    /// What the transport should serve now.
    wanted: Arc<tokio::sync::watch::Sender<Wanted>>,
    /// What it reported, for which change.
    listening: Arc<tokio::sync::watch::Sender<(u64, Listening)>>,
}

fn failed(e: clawmux_store::StoreError) -> HubError {
    HubError::new(Code::Internal, e.to_string())
}

/// `n` random bytes as lowercase hex.
fn random_hex(n: usize) -> Result<String, HubError> {
    crate::config::random_hex(n).map_err(|e| HubError::new(Code::Internal, e.to_string()))
}

fn hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

impl Phone {
    /// The phones of `store`, on or off as the user left them, for the hub serving on `port` from
    /// `data_dir` (its push key there); their push services on this machine only if `push_on_loopback`.
    pub async fn open(
        store: Store,
        port: Arc<AtomicU16>,
        data_dir: &std::path::Path,
        push_on_loopback: bool,
    ) -> Result<Phone, HubError> {
        let on = store.phones_on().await.map_err(failed)?;
        let address = store
            .phone_address()
            .await
            .map_err(failed)?
            .and_then(|json| PhoneAddress::from_json(&json));
        let contact = store
            .push_contact()
            .await
            .map_err(failed)?
            .and_then(|kept| {
                push::contact::Contact::parse(&kept)
                    .inspect_err(|_| tracing::warn!("the push contact kept is not one; not named"))
                    .ok()
            });
        let wanted = Wanted {
            address: address.clone().filter(|_| on),
            generation: 0,
        };
        Ok(Phone {
            address: Arc::new(Mutex::new(address)),
            wanted: Arc::new(tokio::sync::watch::channel(wanted).0),
            listening: Arc::new(tokio::sync::watch::channel((0, Listening::No)).0),
            push: push::Push::open(store.clone(), data_dir, contact, push_on_loopback)?,
            store,
            port,
            on: Arc::new(AtomicBool::new(on)),
            codes: Arc::default(),
            noted: Arc::default(),
            changes: Arc::new(tokio::sync::watch::channel(0).0),
        })
    }

    /// Whether phones may reach the hub.
    pub fn is_on(&self) -> bool {
        self.on.load(Ordering::SeqCst)
    }

    /// Whether phones are on, and the phones paired.
    pub async fn status(&self) -> Result<PhoneStatus, HubError> {
        let phones = self.store.phones().await.map_err(failed)?;
        Ok(PhoneStatus {
            on: self.is_on(),
            address: self.address().clone(),
            listening: self.listening.borrow().1.clone(),
            push_contact: self.push.contact(),
            phones: phones.into_iter().map(status::info).collect(),
        })
    }

    /// Sets (or with `None` clears) who runs the hub, as pushes name it to push services. A contact that
    /// is not one is refused and changes nothing.
    pub async fn set_push_contact(&self, contact: Option<&str>) -> Result<PhoneStatus, HubError> {
        let contact = contact.map(push::contact::Contact::parse).transpose()?;
        self.push.set_contact(contact).await?;
        self.status().await
    }

    /// Turns phones on or off. Off, no code can be redeemed and every phone is shut out at once (paired
    /// phones stay paired, for when phones are on again).
    pub async fn set_on(&self, on: bool) -> Result<PhoneStatus, HubError> {
        self.store.set_phones_on(on).await.map_err(failed)?;
        self.on.store(on, Ordering::SeqCst);
        if !on {
            self.codes().clear();
            self.changed();
        }
        self.rewant().await;
        self.status().await
    }

    fn codes(&self) -> std::sync::MutexGuard<'_, HashMap<String, Millis>> {
        self.codes.locked()
    }

    fn changed(&self) {
        self.changes.send_modify(|n| *n += 1);
    }

    /// Offers a pairing at `now`: a new one-time code in a link to the hub, refused while phones are off.
    pub fn pair(&self, now: Millis) -> Result<Pairing, HubError> {
        if !self.is_on() {
            return Err(off());
        }
        let code = random_hex(16)?;
        let mut codes = self.codes();
        codes.retain(|_, expires| *expires > now);
        codes.insert(code.clone(), now.after(PAIRING_TTL));
        drop(codes);
        let port = self.port.load(Ordering::SeqCst);
        let (base, made_here) = match self.listening.borrow().1.clone() {
            Listening::At { url, made_here } => (url, made_here),
            Listening::No | Listening::Failed { .. } => (format!("http://127.0.0.1:{port}"), None),
        };
        let link = format!("{base}/#pair={code}");
        Ok(Pairing {
            qr_svg: status::qr_svg(&link)?,
            link,
            code,
            expires_in: PAIRING_TTL.as_secs(),
            made_here,
        })
    }

    /// Redeems a pairing code for a phone named `name`: its token. A code works once, within its time,
    /// while phones are on; anything else is refused and changes nothing.
    pub async fn redeem(&self, code: &str, name: &str, at: Millis) -> Result<Paired, HubError> {
        if !self.is_on() {
            return Err(off());
        }
        let found = {
            let mut codes = self.codes();
            let key = codes
                .keys()
                .find(|k| constant_time_eq(k.as_bytes(), code.as_bytes()))
                .cloned();
            key.and_then(|k| codes.remove(&k))
                .filter(|expires| *expires > at)
        };
        if found.is_none() {
            return Err(HubError::new(
                Code::BadPairingCode,
                "this pairing code is wrong, expired or used: show a new one on the desktop",
            ));
        }
        let token = random_hex(32)?;
        let id = format!("phone-{}", random_hex(4)?);
        let row = self
            .store
            .add_phone(&id, &clean_name(name), &hash(&token), at)
            .await
            .map_err(failed)?;
        tracing::info!(phone = id, "a phone was paired");
        Ok(Paired {
            phone: status::info(row),
            token,
        })
    }

    /// The phone `token` belongs to, if it may come in now (phones on, the phone not revoked); its use
    /// is noted, once a minute at most.
    pub async fn admit(&self, token: &str, at: Millis) -> Option<PhoneId> {
        if !self.is_on() {
            return None;
        }
        let row = self.store.phone_by_token(&hash(token)).await.ok()??;
        if row.revoked_at.is_some() {
            return None;
        }
        let note = {
            let mut noted = self.noted.locked();
            let due = noted
                .get(&row.id)
                .is_none_or(|last| at >= last.after(USE_NOTED_EVERY));
            if due {
                noted.insert(row.id.clone(), at);
            }
            due
        };
        if note {
            if let Err(e) = self.store.phone_used(&row.id, at).await {
                tracing::warn!(phone = row.id, error = %e, "could not note a phone's use");
            }
        }
        Some(PhoneId(row.id))
    }

    /// Whether `phone` may still come in (checked again when `changes` says so).
    pub async fn still_admitted(&self, phone: &PhoneId) -> bool {
        if !self.is_on() {
            return false;
        }
        matches!(self.store.phone(&phone.0).await, Ok(Some(p)) if p.revoked_at.is_none())
    }

    /// Revokes a phone: it is shut out at once, its open feeds closed.
    pub async fn revoke(&self, id: &str, at: Millis) -> Result<PhoneStatus, HubError> {
        if !self.store.revoke_phone(id, at).await.map_err(failed)? {
            return Err(HubError::new(
                Code::UnknownPhone,
                format!("no paired phone `{id}`"),
            ));
        }
        tracing::info!(phone = id, "a phone was revoked");
        self.changed();
        self.status().await
    }

    /// Told whenever a phone may have lost its access.
    pub fn changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// Pushes to the phones.
    pub fn push(&self) -> &push::Push {
        &self.push
    }

    /// Pushes what the phones should hear of `events` for as long as the hub runs (while phones are
    /// on), from the agents as they are now (`sessions`).
    pub async fn run(
        &self,
        mut events: tokio::sync::broadcast::Receiver<crate::ui_event::UiEvent>,
        sessions: Vec<crate::ui_event::SessionInfo>,
    ) {
        use tokio::sync::broadcast::error::RecvError;
        let mut rule = push::PushRule::new(&sessions);
        loop {
            let event = match events.recv().await {
                Ok(event) => event,
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return,
            };
            let Some(status) = crate::machines::status_of(&event) else {
                continue;
            };
            let present = self.push.present(crate::clock::now());
            let messages = rule.on_status(&status, present);
            if !self.is_on() {
                continue;
            }
            for message in messages {
                self.push.send(&message).await;
            }
        }
    }
}

fn off() -> HubError {
    HubError::new(
        Code::PhonesOff,
        "phones are off: turn them on in the settings (or `clawmux phone on`) first",
    )
}

/// A phone's name as given: one printable line, not too long; "Phone" when empty.
fn clean_name(name: &str) -> String {
    let line: String = clawmux_core::printable::printable(name)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(NAME_CHARS)
        .collect();
    if line.is_empty() {
        "Phone".to_owned()
    } else {
        line
    }
}
