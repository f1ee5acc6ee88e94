//! A phone's own routes. `POST /api/phone/pair`: it redeems the one-time code of the link it opened for a
//! token of its own (the only route a phone takes without a token: the code is its proof, good once, for
//! minutes). `GET /api/phone/push-key` and `POST /api/phone/push`: it subscribes to pushes with the
//! hub's key and gives the hub its subscription.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::Json;
use serde::Deserialize;

use super::api::body_json;
use crate::error::HubError;
use crate::hub::Hub;
use crate::phone::access::Caller;
use crate::phone::push::Subscription;
use crate::phone::Paired;
use clawmux_core::wire::Code;

/// The pairing route.
pub const PAIR: &str = "/api/phone/pair";

/// The hub's push key.
pub const PUSH_KEY: &str = "/api/phone/push-key";

/// A phone's push subscription.
pub const PUSH: &str = "/api/phone/push";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PairRequest {
    /// The code from the link.
    code: String,
    /// What the phone calls itself (its browser's guess, or the user's).
    #[serde(default)]
    name: String,
}

pub(super) async fn pair(
    State(hub): State<Hub>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Paired>, HubError> {
    let request: PairRequest = body_json(body)?;
    Ok(Json(
        hub.phone()
            .redeem(&request.code, &request.name, crate::clock::now())
            .await?,
    ))
}

#[derive(serde::Serialize)]
pub(super) struct PushKey {
    /// The hub's public key, base64url: the phone's `applicationServerKey`.
    key: String,
}

pub(super) async fn push_key(State(hub): State<Hub>) -> Json<PushKey> {
    Json(PushKey {
        key: hub.phone().push().public_key(),
    })
}

pub(super) async fn push(
    State(hub): State<Hub>,
    caller: Option<axum::Extension<Caller>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<serde_json::Value>, HubError> {
    let Some(axum::Extension(Caller::Phone(phone))) = caller else {
        return Err(HubError::new(
            Code::BadSubscription,
            "only a paired phone subscribes to pushes",
        ));
    };
    let subscription: Subscription = body_json(body)?;
    hub.phone().push().subscribe(&phone, &subscription).await?;
    Ok(Json(serde_json::json!({})))
}
