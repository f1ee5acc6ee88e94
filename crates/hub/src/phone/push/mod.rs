//! Web Push to the user's phones: when an agent starts to need the user, hits the usage limit or finishes,
//! a push goes to each paired phone's own push service (the one its browser chose when it subscribed),
//! encrypted for the phone (`encrypt.rs`, RFC 8291) and signed as this hub's (`vapid.rs`, RFC 8292). No
//! server of ours is involved, and the push service reads nothing of it.
//!
//! What a push carries is as little as it can be: the agent, the kind, the tool and the request's id
//! (`PushMessage`), never a command or a message's text. Nothing is sent while a desktop window has the
//! user's attention (the windows say so, `set_present`), and nothing while nobody needs the user. When a
//! request a push announced is answered anywhere, one more push says so, and the phone withdraws its
//! notification (`Answered`).

pub use clawmux_api::phone::contact;
mod encrypt;
mod endpoint;
mod rule;
mod vapid;

use std::path::Path;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use clawmux_core::wire::Code;
use clawmux_core::{Millis, Need};
use clawmux_store::{PushRow, Store};
use serde::{Deserialize, Serialize};

pub use endpoint::Endpoint;
pub use rule::PushRule;

use super::PhoneId;
use crate::error::HubError;
use clawmux_core::sync::Locked;

/// How long a window's "the user is here" lasts unless said again.
pub const PRESENT_FOR: Duration = Duration::from_secs(90);

/// How long a push service keeps a push for a phone that is off (seconds): a need an hour old is news
/// still; a day old, the phone's app shows it anyway.
const TTL_SECONDS: u32 = 3600;

/// How long a push service is given to take a push.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);

/// What a push is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PushKind {
    /// The agent needs the user (a permission, an answer, a plan, a failed turn).
    NeedsYou,
    /// The agent stopped at the account's usage limit.
    RateLimited,
    /// The agent finished and waits for the user.
    Finished,
    /// What an earlier push announced was answered (anywhere): its notification goes.
    Answered,
}

/// A push's content, as the phone's service worker reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushMessage {
    /// The agent (`name@machine` for another machine's).
    pub agent: String,
    /// What about.
    pub kind: PushKind,
    /// What the agent needs, for `needs_you`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub need: Option<Need>,
    /// The tool that waits, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The open request a permission's Allow and Deny answer (its id), or the one answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
}

/// A subscription as the phone's browser gives it (`PushSubscription.toJSON()`).
#[derive(Debug, Clone, Deserialize)]
pub struct Subscription {
    /// Where its push service takes pushes.
    pub endpoint: String,
    /// Its keys.
    pub keys: SubscriptionKeys,
}

/// A subscription's keys, base64url.
#[derive(Debug, Clone, Deserialize)]
pub struct SubscriptionKeys {
    /// The phone's public key.
    pub p256dh: String,
    /// Its authentication secret.
    pub auth: String,
}

/// Pushes to the user's phones. Part of [`super::Phone`].
#[derive(Debug, Clone)]
pub struct Push {
    store: Store,
    vapid: vapid::Vapid,
    client: ureq::Agent,
    /// Until when a window says the user is at the desk.
    present_until: Arc<AtomicI64>,
    /// Pushes sent since the hub started (for the figures).
    sent: Arc<AtomicU64>,
    /// Who runs the hub, as push services ask (none set: the placeholder).
    contact: Arc<std::sync::Mutex<Option<contact::Contact>>>,
    /// Whether push services on this machine are taken (a test's).
    on_loopback: bool,
}

fn bad(message: String) -> HubError {
    HubError::new(Code::BadSubscription, message)
}

impl Push {
    /// Pushes of the hub whose data folder is `data_dir` (its VAPID key there, made the first time),
    /// naming `contact` to push services; to a push service on this machine only if `on_loopback`.
    pub fn open(
        store: Store,
        data_dir: &Path,
        contact: Option<contact::Contact>,
        on_loopback: bool,
    ) -> Result<Push, HubError> {
        let vapid = vapid::Vapid::load_or_create(data_dir).map_err(|e| {
            HubError::new(
                Code::CannotSave,
                format!("the push key could not be kept: {e}"),
            )
        })?;
        let client = ureq::Agent::config_builder()
            .timeout_global(Some(SEND_TIMEOUT))
            .http_status_as_error(false)
            .build()
            .into();
        Ok(Push {
            store,
            vapid,
            client,
            present_until: Arc::new(AtomicI64::new(0)),
            sent: Arc::new(AtomicU64::new(0)),
            contact: Arc::new(std::sync::Mutex::new(contact)),
            on_loopback,
        })
    }

    /// Who runs the hub, as pushes name it (none set: the placeholder is named).
    pub fn contact(&self) -> Option<contact::Contact> {
        self.contact.locked().clone()
    }

    /// Names `contact` (none: the placeholder) in the pushes from now on.
    pub async fn set_contact(&self, contact: Option<contact::Contact>) -> Result<(), HubError> {
        self.store
            .set_push_contact(contact.as_ref().map(contact::Contact::as_str))
            .await
            .map_err(|e| HubError::new(Code::Internal, e.to_string()))?;
        *self.contact.locked() = contact;
        Ok(())
    }

    /// The hub's public key, the phone's `applicationServerKey`.
    pub fn public_key(&self) -> String {
        self.vapid.public_key()
    }

    /// Keeps `phone`'s subscription, its address and keys checked first (they come from the phone).
    pub async fn subscribe(&self, phone: &PhoneId, sub: &Subscription) -> Result<(), HubError> {
        let endpoint =
            Endpoint::parse(&sub.endpoint, self.on_loopback).map_err(|e| bad(e.to_string()))?;
        let p256dh = B64
            .decode(sub.keys.p256dh.trim_end_matches('='))
            .map_err(|e| bad(format!("the subscription's p256dh is not base64url: {e}")))?;
        let auth = B64
            .decode(sub.keys.auth.trim_end_matches('='))
            .map_err(|e| bad(format!("the subscription's auth is not base64url: {e}")))?;
        // Keys that cannot be encrypted for are refused now, not at the first push.
        let key = encrypt::fresh_key();
        encrypt::encrypt(b"{}", &p256dh, &auth, &key, &[0; 16]).map_err(|e| bad(e.to_string()))?;
        let row = PushRow {
            phone: phone.0.clone(),
            endpoint: endpoint.url().to_owned(),
            p256dh,
            auth,
        };
        self.store
            .set_phone_push(&row)
            .await
            .map_err(|e| HubError::new(Code::Internal, e.to_string()))
    }

    /// A window says whether the user is at the desk (its focus), at `now`.
    pub fn set_present(&self, present: bool, now: Millis) {
        let until = if present { now.after(PRESENT_FOR).0 } else { 0 };
        self.present_until.store(until, Ordering::SeqCst);
    }

    /// Whether a window had the user's attention at `now`.
    pub fn present(&self, now: Millis) -> bool {
        self.present_until.load(Ordering::SeqCst) > now.0
    }

    /// How many pushes were taken by push services since the hub started.
    pub fn sent(&self) -> u64 {
        self.sent.load(Ordering::SeqCst)
    }

    /// Sends `message` to every subscribed phone not revoked; how many push services took it. A service
    /// that refuses (the subscription expired, say) is logged, and the others still get theirs.
    pub async fn send(&self, message: &PushMessage) -> usize {
        let Ok(targets) = self.store.phone_pushes().await else {
            return 0;
        };
        let Ok(plaintext) = serde_json::to_vec(message) else {
            return 0;
        };
        let mut taken = 0;
        for target in targets {
            let (push, plaintext) = (self.clone(), plaintext.clone());
            let phone = target.phone.clone();
            let result = tokio::task::spawn_blocking(move || push.post(&target, &plaintext)).await;
            match result {
                Ok(Ok(())) => taken += 1,
                Ok(Err(why)) => tracing::warn!(phone, why, "a push was not taken"),
                Err(e) => tracing::warn!(phone, error = %e, "a push could not be sent"),
            }
        }
        self.sent.fetch_add(taken as u64, Ordering::SeqCst);
        taken
    }

    /// One push request (blocking).
    fn post(&self, target: &PushRow, plaintext: &[u8]) -> Result<(), String> {
        let endpoint =
            Endpoint::parse(&target.endpoint, self.on_loopback).map_err(|e| e.to_string())?;
        let mut salt = [0u8; 16];
        getrandom::fill(&mut salt).map_err(|e| e.to_string())?;
        let body = encrypt::encrypt(
            plaintext,
            &target.p256dh,
            &target.auth,
            &encrypt::fresh_key(),
            &salt,
        )
        .map_err(|e| e.to_string())?;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let answer = self
            .client
            .post(endpoint.url())
            .header("TTL", TTL_SECONDS.to_string())
            .header("Urgency", "high")
            .header("Content-Encoding", "aes128gcm")
            .header("Content-Type", "application/octet-stream")
            .header(
                "Authorization",
                self.vapid.authorization(
                    endpoint.origin(),
                    now,
                    self.contact()
                        .as_ref()
                        .map_or(contact::PLACEHOLDER, contact::Contact::as_str),
                ),
            )
            .send(&body[..])
            .map_err(|e| format!("the push service did not answer: {e}"))?;
        match answer.status().as_u16() {
            200..=299 => Ok(()),
            status => Err(format!("the push service answered {status}")),
        }
    }
}
