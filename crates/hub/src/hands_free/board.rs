//! The shared board by voice: "what is open?" said from the board's items, "give the docs task to rain"
//! found on the board and carried out by the router as the window's give (`Board::act`).
//!
//! An item named by words is the one item not done whose title has them all; two or more are asked about
//! by number, none is said so. Titles are said as printable text, cut short.

use clawmux_core::board::{Task, TaskState};
use clawmux_core::printable::one_line;
use clawmux_core::spoken::TaskRef;
use clawmux_store::TaskFilter;

use super::{Act, Done, HandsFree};
use crate::error::HubError;

/// How many items a spoken list names before "and N more".
const SAID: usize = 5;

impl HandsFree {
    /// What is on the board, in a few sentences: the open items, then who has the others.
    pub(super) async fn board_said(&self) -> Result<String, HubError> {
        let mut items = self.board.list(filter(None)).await?;
        items.retain(|t| t.state != TaskState::Done);
        items.reverse();
        if items.is_empty() {
            return Ok("The board has nothing open.".to_owned());
        }
        let open: Vec<&Task> = items
            .iter()
            .filter(|t| t.state == TaskState::Open)
            .collect();
        let mut said = match open.len() {
            0 => "Nothing is open.".to_owned(),
            n => format!("{n} open: {}.", listed(&open)),
        };
        let held: Vec<String> = items
            .iter()
            .filter(|t| t.state != TaskState::Open)
            .take(SAID)
            .map(|t| {
                let owner = t.owner.as_deref().unwrap_or("nobody");
                let review = if t.state == TaskState::InReview {
                    ", for review"
                } else {
                    ""
                };
                format!("{owner} has {}{review}", item(t))
            })
            .collect();
        if !held.is_empty() {
            said.push_str(&format!(" {}.", held.join("; ")));
        }
        Ok(said)
    }

    /// "give <item> to <agent>": the item found on the board, or what to say instead.
    pub(super) async fn give(
        &self,
        task: TaskRef,
        agent: String,
    ) -> Result<(String, Done, Act), HubError> {
        let said = |say: String| (say, Done::Said, Act::None);
        let task = match task {
            TaskRef::Number(id) => match self.board.show(id).await {
                Ok(t) => t,
                Err(_) => return Ok(said(format!("There is no task {id} on the board."))),
            },
            TaskRef::Words(words) => {
                let mut found = self.board.list(filter(Some(words.join(" ")))).await?;
                found.retain(|t| t.state != TaskState::Done && has_all(&t.title, &words));
                match found.len() {
                    1 => found.remove(0),
                    0 => {
                        return Ok(said(format!(
                            "No task on the board is called \"{}\".",
                            words.join(" ")
                        )))
                    }
                    _ => {
                        found.reverse();
                        return Ok(said(format!(
                            "Which one: {}? Say its number.",
                            listed(&found.iter().collect::<Vec<_>>())
                        )));
                    }
                }
            }
        };
        if task.state == TaskState::Done {
            return Ok(said(format!("Task {} is done already.", task.id)));
        }
        Ok((
            format!("Task {}, {}, to {agent}.", task.id, title(&task)),
            Done::Said,
            Act::Give { id: task.id, agent },
        ))
    }
}

/// The board's items, with `text` in them if given.
fn filter(text: Option<String>) -> TaskFilter {
    TaskFilter {
        state: None,
        owner: None,
        text,
        limit: 200,
    }
}

/// Whether `title` has every one of `words`, as words.
fn has_all(title: &str, words: &[String]) -> bool {
    let title = clawmux_core::spoken::words(title);
    words.iter().all(|w| title.contains(w))
}

/// Items as a list said aloud: the first few, and how many more.
fn listed(items: &[&Task]) -> String {
    let mut said: Vec<String> = items.iter().take(SAID).map(|t| item(t)).collect();
    if items.len() > SAID {
        said.push(format!("and {} more", items.len() - SAID));
    }
    said.join(", ")
}

/// "task 4, write the docs".
fn item(t: &Task) -> String {
    format!("task {}, {}", t.id, title(t))
}

/// A title to say: printable, one line, at most 60 characters.
fn title(t: &Task) -> String {
    one_line(&t.title, 60)
}
