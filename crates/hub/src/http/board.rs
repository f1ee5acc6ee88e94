//! The agent protocol's routes of the shared board, as the agent its `ClawMux-Session` header names:
//! `POST /api/task` (`clawmux task ...`), answered with the items the call concerns, and `POST
//! /api/handover` (`clawmux handover`), the agent's own work handed to another; and `POST /api/lead`
//! (`clawmux allow|deny`), a lead's answer to a member's request.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::Json;
use clawmux_api::agent::{HandOverCall, LeadAnswer, TaskCall};
use clawmux_api::commands::{Done, HandedOver, BOARD_PAGE};
use clawmux_core::board::{Actor, Move, Task};
use clawmux_store::TaskFilter;

use super::api::{body_json, required_session};
use crate::error::HubError;
use crate::hub::Hub;

/// `POST /api/task`: an agent's call on the board.
pub(super) async fn task(
    State(hub): State<Hub>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Vec<Task>>, HubError> {
    let agent = required_session(&headers)?;
    hub.live(&agent)?;
    let call: TaskCall = body_json(body)?;
    let board = hub.board();
    let by = Actor::Agent(&agent);
    let one = match call {
        TaskCall::List { state, owner, text } => {
            return Ok(Json(
                board
                    .list(TaskFilter {
                        state,
                        owner,
                        text,
                        limit: BOARD_PAGE,
                    })
                    .await?,
            ))
        }
        TaskCall::Add { title, body } => board.add(&agent, &title, &body).await?,
        TaskCall::Show { id } => board.show(id).await?,
        TaskCall::Take { id } => board.act(id, by, &Move::Take).await?,
        TaskCall::Review { id } => board.act(id, by, &Move::Review).await?,
        TaskCall::Done { id } => board.act(id, by, &Move::Done).await?,
        TaskCall::Drop { id } => board.act(id, by, &Move::Drop).await?,
        TaskCall::Watch { id } => board.watch(id, &agent).await?,
    };
    Ok(Json(vec![one]))
}

/// `POST /api/handover`: the agent hands its own work to another.
pub(super) async fn handover(
    State(hub): State<Hub>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<HandedOver>, HubError> {
    let agent = required_session(&headers)?;
    let call: HandOverCall = body_json(body)?;
    Ok(Json(
        hub.board()
            .hand_over(&agent, &call.to, Actor::Agent(&agent))
            .await?,
    ))
}

/// `POST /api/lead`: a lead answers a member's permission request.
pub(super) async fn lead(
    State(hub): State<Hub>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Done>, HubError> {
    let lead = required_session(&headers)?;
    let call: LeadAnswer = body_json(body)?;
    hub.leads()
        .answer(
            &lead,
            &call.agent,
            &call.request_id,
            call.allow,
            call.why.as_deref(),
        )
        .await?;
    Ok(Json(Done {}))
}
