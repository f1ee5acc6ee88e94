//! Hands-free's commands: an utterance's words (`hear`) or its recording (`hear_voice`), decided by
//! hands-free and carried out through the paths a typed message and a click take.

use clawmux_api::commands::hands_free::Hear;
use clawmux_core::wire::{Code, Said};

use super::Handle;
use crate::error::HubError;
use crate::hands_free::{HandsFree, Heard};
use crate::hub::Hub;

impl Handle for Hear {
    async fn handle(self, hub: &Hub) -> Result<Heard, HubError> {
        hear(
            hub,
            &self.text,
            self.shown.as_deref(),
            self.client_id.as_deref(),
            self.said.as_deref(),
        )
        .await
    }
}

/// Hands-free speech: a recording of one utterance (sent whole, or kept earlier by the desktop app), heard
/// on the device with the words expected as the recognizer's prompt, then carried out as [`hear`] does.
/// The recording is gone once this returns, whatever happened: nothing of what was said is kept but the
/// message it became, and a failure says why (hands-free offers no retry: the user says it again).
pub async fn hear_voice(
    hub: &Hub,
    recording: &str,
    content_type: &str,
    audio: Option<Vec<u8>>,
    shown: Option<&str>,
    said: Option<&str>,
) -> Result<Heard, HubError> {
    let kept = hub
        .voice()
        .recording(recording, content_type, audio)
        .await?;
    // Nothing of an utterance is kept, whatever happens: not when it is answered, not when it fails,
    // and not when its request goes away unanswered (the guard removes it then).
    let kept = kept.discarded_at_end();
    let heard = async {
        let sessions = hub.roster().sessions().await?;
        let sound = hub.voice().sound(&kept);
        let (text, plain) = heard_twice(hub, &kept, &sessions, shown).await?;
        let (mut heard, mut act) = hub
            .hands_free()
            .decide(
                &text,
                (plain.as_ref().and_then(Option::as_deref), sound),
                shown,
                &sessions,
                said,
            )
            .await?;
        if HandsFree::approves(&act) {
            let plain = match plain {
                Some(plain) => plain,
                None => hub.voice().plain(&kept).await,
            };
            (heard, act) = HandsFree::check(heard, act, &sessions, plain.as_deref(), sound);
        }
        carry_out(hub, &mut heard, act, Some(&kept.client_key())).await?;
        Ok(heard)
    };
    // An utterance is answered within its time (under its connection's idle time), whatever the
    // machine's load: a busy one says so rather than leaving the connection to close with no answer.
    let within = hub.options().hear_within;
    let heard = match tokio::time::timeout(within, heard).await {
        Ok(heard) => heard,
        Err(_) => Err(HubError::new(
            Code::TranscriptionFailed,
            format!(
                "hearing that took longer than {:.0} s (the machine is busy): say it again",
                within.as_secs_f64()
            ),
        )),
    };
    kept.discard().await;
    heard
}

/// An utterance heard with the recognizer's prompt (the names, the answers), and without it where that is
/// needed: who the words are for when the prompted hearing names nobody clearly (the prompt hurts
/// sentences), or heard nothing. The words, and, where it was heard plain, what that heard.
async fn heard_twice(
    hub: &Hub,
    kept: &crate::voice::Recording,
    sessions: &[crate::ui_event::SessionInfo],
    shown: Option<&str>,
) -> Result<(String, Option<Option<String>>), HubError> {
    let expected = HandsFree::expected(sessions, shown);
    let (text, mut plain) = match hub.voice().hear(kept, Some(expected)).await {
        Ok(text) => (text, None),
        // The plain hearing is then the words, with nothing beside them to check against.
        Err(e) if e.code == Code::NothingHeard => match hub.voice().plain(kept).await {
            Some(plain) => (plain, Some(None)),
            None => return Err(e),
        },
        Err(e) => return Err(e),
    };
    if plain.is_none() && HandsFree::names_nobody(&text, sessions) {
        plain = Some(hub.voice().plain(kept).await);
    }
    Ok((text, plain))
}

/// Carries out what hands-free decided for `text`, through the paths a typed message and a click take.
async fn hear(
    hub: &Hub,
    text: &str,
    shown: Option<&str>,
    client_id: Option<&str>,
    said: Option<&str>,
) -> Result<Heard, HubError> {
    if text.len() > clawmux_core::wire::MAX_TEXT {
        return Err(HubError::new(
            Code::MessageTooLarge,
            format!(
                "an utterance may be at most {} bytes",
                clawmux_core::wire::MAX_TEXT
            ),
        ));
    }
    let sessions = hub.roster().sessions().await?;
    let (mut heard, act) = hub
        .hands_free()
        .decide(text, (None, None), shown, &sessions, said)
        .await?;
    carry_out(hub, &mut heard, act, client_id).await?;
    Ok(heard)
}

/// Does what hands-free decided: the words stored as the user's voice message (once per client key), the
/// request answered as a click answers it, or an item of the board given as the window gives it.
async fn carry_out(
    hub: &Hub,
    heard: &mut Heard,
    act: crate::hands_free::Act,
    client_id: Option<&str>,
) -> Result<(), HubError> {
    use crate::hands_free::{Act, Done};
    match act {
        Act::None => {}
        Act::Send { agent, text } => {
            let key = client_id.map(|k| format!("hear:{k}"));
            // The user is listening: the agent is asked for a spoken answer, unless the settings say not.
            let said = if hub.voice().settings().await?.spoken_answers {
                Said::Aloud
            } else {
                Said::Spoken
            };
            let m = hub
                .messages()
                .user_message(&agent, &text, said, &[], key.as_deref())
                .await?;
            heard.done = Done::Sent {
                session_id: agent,
                id: m.id,
            };
        }
        Act::Answer(answer) => hub.requests().answer(answer).await?,
        Act::Give { id, agent } => {
            let to = clawmux_core::board::Move::Assign { to: agent };
            if let Err(e) = hub
                .board()
                .act(id, clawmux_core::board::Actor::User, &to)
                .await
            {
                heard.say = format!("Task {id} was not given: {}", e.message);
            }
        }
    }
    Ok(())
}
