//! A hand-over: one agent's work given to another as one message the new owner reads, written by the hub
//! from what it holds (no model asked): the branch and what it changed, the open items given with it, and
//! the last words the user and the first agent said.

use crate::board::Task;
use crate::changes::Changes;
use crate::printable::one_line;
use crate::wire::{Kind, Message};

/// How many of the first agent's last messages the summary quotes.
pub const LAST_MESSAGES: u32 = 8;

/// The longest a quoted message is, in characters.
const QUOTE: usize = 300;

/// What a hand-over carries.
#[derive(Debug, Clone, Copy)]
pub struct Handed<'a> {
    /// The agent whose work it is.
    pub from: &'a str,
    /// Its branch and what it changed, when it works in a worktree.
    pub changes: Option<&'a Changes>,
    /// The items it held, now the new owner's.
    pub items: &'a [Task],
    /// Its conversation's last messages, oldest first.
    pub last: &'a [Message],
}

/// The message the new owner receives.
pub fn summary(h: &Handed<'_>) -> String {
    let mut out = format!(
        "You take over {from}'s work. {from} was told to stop; ask it with `clawmux ask {from}` if something \
         is unclear.\n",
        from = h.from
    );
    if let Some(c) = h.changes {
        out.push_str(&changes_part(c));
    }
    if !h.items.is_empty() {
        out.push_str("\nThe board's items it held, now yours:\n");
        for t in h.items {
            out.push_str(&format!(
                "- #{} {} ({})\n",
                t.id,
                one_line(&t.title, 200),
                t.state.as_str()
            ));
        }
    }
    out.push_str(&words_part(h.from, h.last));
    out
}

/// The branch, its files (30 at most) and its latest commits.
fn changes_part(c: &Changes) -> String {
    let mut out = format!(
        "\nIts branch: `{}` (from `{}`), {} commit(s){}; files changed:\n",
        c.branch,
        c.base,
        c.commits.len(),
        if c.uncommitted {
            ", and changes not committed yet"
        } else {
            ""
        }
    );
    for f in c.files.iter().take(30) {
        let counts = match (f.added, f.removed) {
            (Some(a), Some(r)) => format!(" (+{a} -{r})"),
            (Some(_), None) | (None, Some(_)) | (None, None) => " (binary)".to_owned(),
        };
        out.push_str(&format!("- {}{counts}\n", one_line(&f.path, 200)));
    }
    if c.files.len() > 30 {
        out.push_str(&format!("- and {} more\n", c.files.len() - 30));
    }
    for commit in c.commits.iter().take(5) {
        out.push_str(&format!(
            "  commit {}: {}\n",
            commit.id.get(..8).unwrap_or(&commit.id),
            one_line(&commit.summary, 120)
        ));
    }
    out
}

/// What the user and the agents said last in `from`'s conversation (its tool rows are no words).
fn words_part(from: &str, last: &[Message]) -> String {
    let said: Vec<String> = last
        .iter()
        .filter(|m| matches!(m.kind, Kind::User | Kind::Assistant | Kind::Agent))
        .map(|m| {
            let who = match m.kind {
                Kind::User => "the user",
                Kind::Assistant => from,
                Kind::Agent | Kind::Ack | Kind::Activity | Kind::System => m.sender.as_str(),
            };
            format!("- {who}: {}", one_line(&m.text, QUOTE))
        })
        .collect();
    if said.is_empty() {
        return String::new();
    }
    format!(
        "\nThe last words in its conversation:\n{}\n",
        said.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::TaskState;
    use crate::changes::{FileChange, FileStatus, Shown};
    use crate::wire::MsgId;
    use crate::Millis;

    fn message(kind: Kind, sender: &str, text: &str) -> Message {
        Message {
            seq: 1,
            id: MsgId::from_u32(1),
            agent: "sky".into(),
            kind,
            sender: sender.into(),
            recipient: None,
            text: text.into(),
            parent: None,
            voice: false,
            aloud: false,
            attachments: Vec::new(),
            at: Millis(1),
        }
    }

    #[test]
    fn the_summary_names_the_branch_the_files_the_items_and_the_last_words_made_printable() {
        let changes = Changes {
            branch: "clawmux/sky".into(),
            base: "main".into(),
            fork_point: "abc".into(),
            commits: Vec::new(),
            files: vec![FileChange {
                path: "src/\u{1b}[2Japi.rs".into(),
                old_path: None,
                status: FileStatus::Modified,
                added: Some(12),
                removed: Some(3),
                shown: Shown::Diff,
            }],
            uncommitted: true,
        };
        let items = [Task {
            id: 4,
            title: "write the docs".into(),
            body: String::new(),
            state: TaskState::Taken,
            owner: Some("rain".into()),
            branch: None,
            creator: "user".into(),
            created_at: Millis(1),
            updated_at: Millis(1),
        }];
        let last = [
            message(Kind::User, "user", "make the API versioned"),
            message(Kind::Activity, "sky", "Read src/api.rs"),
            message(Kind::Assistant, "sky", "half done:\nthe routes moved"),
        ];
        let text = summary(&Handed {
            from: "sky",
            changes: Some(&changes),
            items: &items,
            last: &last,
        });
        assert!(text.starts_with("You take over sky's work."), "{text}");
        assert!(text
            .contains("`clawmux/sky` (from `main`), 0 commit(s), and changes not committed yet"));
        assert!(text.contains("- src/[2Japi.rs (+12 -3)"), "{text}");
        assert!(text.contains("- #4 write the docs (taken)"));
        assert!(
            text.contains("- the user: make the API versioned\n- sky: half done: the routes moved")
        );
        assert!(
            !text.contains("Read src/api.rs"),
            "activity rows are not words"
        );
        assert!(!text.contains('\u{1b}'));
    }
}
