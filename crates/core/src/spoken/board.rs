//! The shared board by voice: "what is open?" read from the board, and "give the docs task to rain"
//! carried out as the window's give.
//!
//! A give is said whole, begins with "give" (or "assign", "hand"), names an item with the word "task" (or
//! "item", "ticket") or its number, and ends with one agent's name: "give task four to rain", "give the
//! docs task to rain". Anything less is words for an agent, as before: "give the button a border" is not a
//! give. The item is named by number or by words of its title; the hub finds which (`hands_free`).

/// How an item is named aloud.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskRef {
    /// By its number: "task 4", "task four", "number 4".
    Number(i64),
    /// By words of its title: "the docs task".
    Words(Vec<String>),
}

/// The words that name an item, and the ones that carry nothing of it.
const ITEM: [&str; 3] = ["task", "item", "ticket"];
const FILLER: [&str; 5] = ["the", "a", "number", "on", "board"];

/// Numbers said as words, one to twenty.
const NUMBERS: [&str; 20] = [
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
];

/// What is said about the board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum AboutBoard<'a> {
    /// "what is open?"
    Read,
    /// "give <item> to <words>": the words that should be one agent's name.
    Give {
        /// The item.
        task: TaskRef,
        /// The words after the last "to".
        to: &'a [&'a str],
    },
}

/// A question or a give about the board, said whole; `None` when the words are not one. Who a give is
/// for is the caller's to find among the agents (`intent.rs`).
pub(super) fn board<'a>(s: &'a [&'a str]) -> Option<AboutBoard<'a>> {
    match s {
        ["what", "is" | "s", "open"]
        | ["whats", "open"]
        | ["what", "is", "on", "the", "board"]
        | ["whats", "on", "the", "board"]
        | ["read", "the", "board"]
        | ["the", "board"]
        | ["open", "tasks" | "items"]
        | ["what" | "which", "tasks" | "items", "are", "open"] => Some(AboutBoard::Read),
        ["give" | "assign" | "hand", rest @ ..] => {
            let to = rest.iter().rposition(|w| *w == "to")?;
            let task = task_ref(&rest[..to])?;
            let to = &rest[to + 1..];
            (!to.is_empty()).then_some(AboutBoard::Give { task, to })
        }
        _ => None,
    }
}

/// The item named by `words` ("the docs task", "task four", "number 12"), if they name one: a number, or
/// the word "task" with words of a title beside it.
fn task_ref(words: &[&str]) -> Option<TaskRef> {
    let named_item = words.iter().any(|w| ITEM.contains(w));
    let kept: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !ITEM.contains(w) && !FILLER.contains(w))
        .collect();
    if let [one] = kept.as_slice() {
        if let Some(n) = number(one) {
            return (named_item || words.contains(&"number")).then_some(TaskRef::Number(n));
        }
    }
    (named_item && !kept.is_empty())
        .then(|| TaskRef::Words(kept.iter().map(|w| (*w).to_owned()).collect()))
}

/// A number said in digits or as a word, one to twenty.
fn number(word: &str) -> Option<i64> {
    if let Ok(n) = word.parse::<i64>() {
        return (n > 0).then_some(n);
    }
    NUMBERS
        .iter()
        .position(|w| *w == word)
        .and_then(|i| i64::try_from(i + 1).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `text` says of the board, read by `read`.
    fn said<R>(text: &str, read: impl FnOnce(Option<AboutBoard<'_>>) -> R) -> R {
        let words = super::super::words(text);
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        read(board(&words))
    }

    fn words(w: &[&str]) -> TaskRef {
        TaskRef::Words(w.iter().map(|s| (*s).to_owned()).collect())
    }

    #[test]
    fn what_is_open_is_asked_in_the_words_people_use() {
        for text in [
            "What is open?",
            "What's open?",
            "What's on the board?",
            "Read the board.",
            "Which tasks are open?",
            "open tasks",
        ] {
            assert!(said(text, |a| a == Some(AboutBoard::Read)), "{text}");
        }
        assert!(said("what is open in the editor", |a| a.is_none()));
    }

    #[test]
    fn a_give_names_an_item_by_number_or_with_the_word_task() {
        let give = |text: &str| {
            said(text, |a| match a {
                Some(AboutBoard::Give { task, to }) => Some((task, to.join(" "))),
                Some(AboutBoard::Read) | None => None,
            })
        };
        assert_eq!(
            give("Give the docs task to Rain."),
            Some((words(&["docs"]), "rain".into()))
        );
        assert_eq!(
            give("give task four to rain"),
            Some((TaskRef::Number(4), "rain".into()))
        );
        assert_eq!(
            give("hand number 3 to the api server"),
            Some((TaskRef::Number(3), "the api server".into()))
        );
        assert_eq!(
            give("give the login page fix task to sky"),
            Some((words(&["login", "page", "fix"]), "sky".into()))
        );
        // No item named: not a give.
        for text in [
            "give the button a border to match",
            "give it to rain",
            "give the task to rain",
            "give task 4 to",
        ] {
            assert_eq!(give(text), None, "{text}");
        }
    }
}
