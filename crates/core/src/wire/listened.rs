//! What the desktop app tells its window while it listens hands-free (the window's webview cannot stream
//! a microphone, so the app listens and cuts the utterances; the page decides what to do with them). A
//! Tauri channel carries these, one per listening.

use serde::{Deserialize, Serialize};

/// One thing the app's listener heard.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, strum::EnumDiscriminants)]
#[serde(tag = "type", rename_all = "snake_case")]
#[strum_discriminants(
    name(ListenedType),
    doc = "The `type` of a [`Listened`], as the window matches it.",
    derive(Serialize, strum::EnumIter),
    serde(rename_all = "snake_case")
)]
pub enum Listened {
    /// Someone started speaking: the app's own speech stops (barge-in).
    Start,
    /// An utterance ended; the hub keeps its recording under this id until it is heard.
    Utterance {
        /// The kept recording.
        recording: String,
        /// How long it is, in milliseconds.
        millis: u64,
    },
    /// Speech too short to be words ended: nothing was kept.
    Dropped,
    /// The microphone failed or went away: listening has ended, and why.
    MicrophoneLost {
        /// Why, for people.
        message: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_reads_a_type_and_its_fields() {
        let u = Listened::Utterance {
            recording: "r1".into(),
            millis: 1200,
        };
        assert_eq!(
            serde_json::to_string(&u).unwrap(),
            r#"{"type":"utterance","recording":"r1","millis":1200}"#
        );
        assert_eq!(
            serde_json::to_string(&Listened::Start).unwrap(),
            r#"{"type":"start"}"#
        );
    }
}
