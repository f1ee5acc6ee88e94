//! What passes between two agents, as the user follows it: each message's delivery, the pair's thread and
//! whether it is closed, and the one rule that keeps two polite agents from thanking each other forever.
//!
//! Claude Code's own cross-session messages say "sent" while the other model never saw them. Here a message
//! between agents moves through states the hub can prove, each from its own record:
//! queued (stored), handed over (a `clawmux wait`, a hook or an ask took it: a `handovers` row), seen (its id
//! is in the recipient's transcript: the model received the words), answered (a message names it with
//! `--re`). An acknowledgement that only thanks for an answer is kept in the thread but is never a turn.

use serde::{Deserialize, Serialize};

use crate::wire::{Message, MsgId};
use crate::Millis;

/// Where a message between agents is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Delivery {
    /// Stored for the recipient, not taken yet.
    Queued,
    /// A wait, a hook or an ask took it for the recipient's model.
    HandedOver,
    /// The recipient's transcript has it: its model received the words.
    Seen,
    /// The recipient answered it (`--re`).
    Answered,
    /// An acknowledgement kept in the thread and never handed over as a turn.
    NotATurn,
}

impl Delivery {
    /// Every state, in the order a message moves through them.
    pub const ALL: [Delivery; 5] = [
        Delivery::Queued,
        Delivery::HandedOver,
        Delivery::Seen,
        Delivery::Answered,
        Delivery::NotATurn,
    ];

    /// The state a message's records prove, the furthest first: an answer proves the words were read even
    /// when the transcript line was not watched.
    pub fn of(turn: bool, handed: bool, seen: bool, answered: bool) -> Delivery {
        match (turn, answered, seen, handed) {
            (false, _, _, _) => Delivery::NotATurn,
            (true, true, _, _) => Delivery::Answered,
            (true, false, true, _) => Delivery::Seen,
            (true, false, false, true) => Delivery::HandedOver,
            (true, false, false, false) => Delivery::Queued,
        }
    }
}

/// Two agents' thread: their names in order, so the pair is one whatever the direction.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Pair {
    /// The name first in order.
    pub a: String,
    /// The other.
    pub b: String,
}

/// An agent cannot have a thread with itself.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("an agent has no thread with itself")]
pub struct SamePair;

impl Pair {
    /// The pair of `x` and `y`, in either order.
    pub fn new(x: &str, y: &str) -> Result<Pair, SamePair> {
        match x.cmp(y) {
            std::cmp::Ordering::Less => Ok(Pair {
                a: x.to_owned(),
                b: y.to_owned(),
            }),
            std::cmp::Ordering::Greater => Ok(Pair {
                a: y.to_owned(),
                b: x.to_owned(),
            }),
            std::cmp::Ordering::Equal => Err(SamePair),
        }
    }

    /// Whether `name` is one of the two.
    pub fn has(&self, name: &str) -> bool {
        self.a == name || self.b == name
    }
}

/// Who closed a thread, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Closed {
    /// One of the pair, or `user`.
    pub by: String,
    /// When.
    pub at: Millis,
}

/// One message of a thread, with the records its delivery is read from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Passed {
    /// The message as stored (in the recipient's conversation).
    pub message: Message,
    /// Where it is.
    pub delivery: Delivery,
    /// When a wait, a hook or an ask took it.
    pub handed_at: Option<Millis>,
    /// When the recipient's transcript showed it.
    pub seen_at: Option<Millis>,
    /// The first message that answers it.
    pub answered_by: Option<MsgId>,
}

/// A thread as the list of threads shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadSummary {
    /// The two agents.
    pub pair: Pair,
    /// How many messages passed (acknowledgements included).
    pub messages: i64,
    /// How many are not handed over yet.
    pub queued: i64,
    /// When the last one was stored.
    pub last_at: Millis,
    /// Closed, by whom and when.
    pub closed: Option<Closed>,
}

/// The words that only thank or acknowledge ("thanks", "got it", "great!"): lower case, without the
/// punctuation and emoji around them.
const THANKS: &[&str] = &[
    "thanks",
    "thank you",
    "thank you very much",
    "thanks a lot",
    "many thanks",
    "thx",
    "ty",
    "cheers",
    "got it",
    "got it thanks",
    "ok thanks",
    "okay thanks",
    "great",
    "great thanks",
    "perfect",
    "perfect thanks",
    "awesome",
    "nice",
    "noted",
    "ack",
    "acknowledged",
    "understood",
    "will do",
    "sounds good",
    "you're welcome",
    "youre welcome",
    "no problem",
    "np",
    "ok",
    "okay",
];

/// Whether `text` only thanks or acknowledges: such a message, sent in answer to an answer, is kept in the
/// thread but not handed over as a new turn (two idle agents would otherwise thank each other forever).
pub fn only_thanks(text: &str) -> bool {
    if text.contains('?') {
        return false;
    }
    let words: Vec<String> = text
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() {
        // Punctuation or emoji alone ("👍", "!!"): nothing asked.
        return !text.trim().is_empty();
    }
    THANKS.contains(&words.join(" ").as_str())
}

/// The ids of the hub's message lines (`[MSG id:..`, `[VOICE id:..`) in one raw transcript line: the
/// messages the model received in it. Only a line's start counts (the hub's lines always start one, and a
/// message's own text never can): in the JSON that is just after a string's opening quote or a `\n`.
pub fn handed_ids(raw_line: &str) -> Vec<MsgId> {
    let mut ids = Vec::new();
    for marker in ["[MSG id:", "[VOICE id:"] {
        for (at, _) in raw_line.match_indices(marker) {
            let before = &raw_line[..at];
            if !(before.ends_with('"') || before.ends_with("\\n")) {
                continue;
            }
            let rest = &raw_line[at + marker.len()..];
            if let Some(id) = rest.get(..12).and_then(|id| MsgId::parse(id).ok()) {
                ids.push(id);
            }
        }
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delivery_is_the_furthest_state_proved() {
        assert_eq!(Delivery::of(true, false, false, false), Delivery::Queued);
        assert_eq!(Delivery::of(true, true, false, false), Delivery::HandedOver);
        assert_eq!(Delivery::of(true, true, true, false), Delivery::Seen);
        assert_eq!(Delivery::of(true, true, true, true), Delivery::Answered);
        // An answer without a watched transcript line still proves the words were read.
        assert_eq!(Delivery::of(true, true, false, true), Delivery::Answered);
        assert_eq!(Delivery::of(false, false, false, false), Delivery::NotATurn);
    }

    #[test]
    fn a_pair_is_one_whatever_the_direction_and_never_an_agent_with_itself() {
        assert_eq!(Pair::new("sun", "moon"), Pair::new("moon", "sun"));
        let p = Pair::new("sun", "moon").unwrap();
        assert_eq!((p.a.as_str(), p.b.as_str()), ("moon", "sun"));
        assert!(p.has("sun") && p.has("moon") && !p.has("rain"));
        assert_eq!(Pair::new("sun", "sun"), Err(SamePair));
    }

    #[test]
    fn the_ids_a_transcript_line_handed_to_the_model_are_those_starting_a_line() {
        let line = r#"{"type":"user","message":{"content":[{"type":"tool_result","content":"[MSG id:msg-0000000a from:sky] hi\n[VOICE id:msg-0000000b from:user] go\nsee [MSG id:msg-0000000c from:x] fake"}]}}"#;
        assert_eq!(
            handed_ids(line),
            vec![
                MsgId::parse("msg-0000000a").unwrap(),
                MsgId::parse("msg-0000000b").unwrap()
            ]
        );
        let context = r#"{"type":"attachment","content":"You have 1 new message(s):\n[MSG id:msg-0000000d from:moon] x"}"#;
        assert_eq!(
            handed_ids(context),
            vec![MsgId::parse("msg-0000000d").unwrap()]
        );
        assert!(handed_ids(r#"{"x":"[MSG id:msg-zz from:a]"}"#).is_empty());
    }

    #[test]
    fn thanks_alone_is_an_acknowledgement_and_anything_more_is_not() {
        for t in [
            "thanks",
            "Thanks!",
            "got it",
            "Got it, thanks.",
            "great",
            "👍",
            "OK.",
            "thank you!!",
        ] {
            assert!(only_thanks(t), "{t:?}");
        }
        for t in [
            "thanks, but the test still fails",
            "got it: what about the migration?",
            "great, now run the tests",
            "ok?",
            "",
            "   ",
        ] {
            assert!(!only_thanks(t), "{t:?}");
        }
    }
}
