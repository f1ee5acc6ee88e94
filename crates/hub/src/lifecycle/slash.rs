//! Claude Code's slash commands from the window: the ones an agent knows (Claude Code's own that make
//! sense without its screen, and the user's custom commands, found where Claude Code finds them), and one
//! of them typed into the agent's prompt.
//!
//! Why an interrupt first: an idle agent is inside its `clawmux wait`, a tool call, so whatever is typed
//! would wait behind that call. Escape ends the wait (no message is lost: the hub hands messages over
//! only to a wait that confirms them), the command is typed at Claude Code's prompt, and the agent is
//! reminded to run `clawmux wait` once it is quiet again, as after any interrupt. A custom command is a
//! prompt: the agent's turn ends in its wait as every turn does.
//!
//! Nothing is typed while the agent works, starts, or shows a dialog: the command is refused with the
//! reason, so no keystroke ever lands in a tool's input or answers a dialog by accident.

use std::path::Path;

use clawmux_core::wire::Code;
use clawmux_core::State;

use super::Lifecycle;
use crate::error::HubError;
pub use clawmux_api::lifecycle::{SlashCommand, SlashSource};

/// Claude Code's own commands offered: what each does, said as the palette says it.
const BUILT_IN: [(&str, &str); 4] = [
    (
        "compact",
        "Summarise the conversation so far, to free its context (optional: what to keep)",
    ),
    (
        "clear",
        "Start the conversation over, its history gone from the context",
    ),
    ("model", "Switch the model (a name: opus, sonnet, haiku)"),
    ("context", "Show what fills the context, in its terminal"),
];

/// The most of a command's text (its name and arguments).
const MAX_TEXT: usize = 2000;
/// The most custom commands listed from one folder.
const MAX_FOUND: usize = 200;

/// The commands an agent working in `work_dir` knows, Claude Code's first, then the project's, then the
/// user's (a project's command of the same name is the one Claude Code runs).
pub fn known(claude_dir: &Path, work_dir: &Path) -> Vec<SlashCommand> {
    let mut all: Vec<SlashCommand> = BUILT_IN
        .iter()
        .map(|(name, description)| SlashCommand {
            name: (*name).to_owned(),
            description: (*description).to_owned(),
            source: SlashSource::BuiltIn,
        })
        .collect();
    for (dir, source) in [
        (work_dir.join(".claude/commands"), SlashSource::Project),
        (claude_dir.join("commands"), SlashSource::User),
    ] {
        for found in custom(&dir, source) {
            if !all.iter().any(|c| c.name == found.name) {
                all.push(found);
            }
        }
    }
    all
}

/// The `*.md` commands of a folder, one level of subfolders as `sub:name`, sorted.
fn custom(dir: &Path, source: SlashSource) -> Vec<SlashCommand> {
    let mut found = Vec::new();
    let visit = |dir: &Path, prefix: &str, found: &mut Vec<SlashCommand>| {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut subs = Vec::new();
        for entry in entries.flatten().take(MAX_FOUND) {
            let path = entry.path();
            let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            if !plain(stem) {
                continue;
            }
            if path.is_dir() {
                subs.push((path.clone(), stem.to_owned()));
            } else if path.extension().is_some_and(|e| e == "md") {
                found.push(SlashCommand {
                    name: format!("{prefix}{stem}"),
                    description: description(&path),
                    source,
                });
            }
        }
        subs
    };
    for (sub, name) in visit(dir, "", &mut found) {
        visit(&sub, &format!("{name}:"), &mut found);
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    found
}

/// A name part Claude Code's palette shows: letters, digits, `-` and `_`.
fn plain(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// A command file's `description:` (its front matter), else its first line of text, made printable.
fn description(path: &Path) -> String {
    let text = std::fs::read(path)
        .map(|b| String::from_utf8_lossy(&b[..b.len().min(4096)]).into_owned())
        .unwrap_or_default();
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("description:"))
        .map(str::trim)
        .or_else(|| {
            text.lines()
                .map(str::trim)
                .find(|l| !l.is_empty() && *l != "---" && !l.contains(':'))
        })
        .unwrap_or("");
    clawmux_core::printable::printable(line)
        .replace('\n', " ")
        .chars()
        .take(160)
        .collect()
}

/// `text` as a command the agent knows: `/name` and, after a space, its arguments on one line. What is
/// refused says why.
pub fn parse<'a>(text: &'a str, known: &[SlashCommand]) -> Result<&'a str, HubError> {
    let bad = |message: String| HubError::new(Code::BadSlashCommand, message);
    let text = text.trim();
    let Some(rest) = text.strip_prefix('/') else {
        return Err(bad("a slash command starts with `/`".to_owned()));
    };
    if text.len() > MAX_TEXT || text.chars().any(char::is_control) {
        return Err(bad(format!(
            "a slash command is one line of at most {MAX_TEXT} characters"
        )));
    }
    let name = rest.split(' ').next().unwrap_or_default();
    if !known.iter().any(|c| c.name == name) {
        return Err(bad(format!(
            "the agent knows no command `/{name}` (Claude Code's {}, or a command file in \
             .claude/commands)",
            BUILT_IN
                .iter()
                .map(|(n, _)| format!("/{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(text)
}

/// The model `/model NAME` switches to (`Some(None)`: `/model default`, Claude Code's own); `None` when
/// `text` is not such a command, or names no model.
fn switched_model(text: &str) -> Option<Option<&str>> {
    let mut words = text.split_whitespace();
    if words.next() != Some("/model") {
        return None;
    }
    let model = words.next()?;
    if words.next().is_some() {
        return None;
    }
    Some((model != "default").then_some(model))
}

impl Lifecycle {
    /// The slash commands agent `name` knows.
    pub async fn slash_commands(&self, name: &str) -> Result<Vec<SlashCommand>, HubError> {
        let live = self.states.live(name)?;
        let work_dir = live.work_dir.clone();
        let claude_dir = crate::usage::bridge::claude_dir();
        tokio::task::spawn_blocking(move || known(&claude_dir, &work_dir))
            .await
            .map_err(|e| HubError::new(Code::Internal, e.to_string()))
    }

    /// Types slash command `text` at agent `name`'s prompt: its wait interrupted first if it waits.
    /// Refused while it works, starts or shows a dialog, and for a command it does not know.
    pub async fn slash(&self, name: &str, text: &str) -> Result<(), HubError> {
        let (row, launch) = self.launch_of(name).await?;
        if launch.demo {
            return Err(HubError::new(
                Code::BadSlashCommand,
                format!("`{name}` is the demo agent: it takes no slash commands"),
            ));
        }
        let known = self.slash_commands(name).await?;
        let text = parse(text, &known)?;
        let model = switched_model(text);
        if let Some(Some(model)) = model {
            super::flags::check_model(model)?;
        }
        let (live, _) = self.running(name).await?;
        if row.snapshot.attention.is_some() {
            return Err(HubError::new(
                Code::AgentBusy,
                format!("`{name}` needs you: answer what it asks first"),
            ));
        }
        if row.snapshot.state != State::Idle {
            return Err(HubError::new(
                Code::AgentBusy,
                format!(
                    "`{name}` is {}: send it once it waits for you",
                    row.snapshot.state
                ),
            ));
        }
        let _lifecycle = live.run.lifecycle.lock().await;
        // Out of its wait: the prompt takes what is typed next. The interrupt it is, so the agent is
        // reminded to wait again once the command is done.
        self.interrupt(name).await?;
        tokio::time::sleep(super::ended::PROMPT_READY).await;
        self.type_prompt(name, text).await?;
        // `/model NAME` switches the live session: its next start takes the same model, as a switch
        // from the header does (`/model` alone opens Claude Code's own picker, which says nothing here).
        if let Some(model) = model {
            self.keep_model(name, model).await?;
        }
        self.note(name, &format!("You ran `{text}` in `{name}`."))
            .await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_named_at_the_prompt_is_the_one_the_agent_starts_on_next() {
        assert_eq!(switched_model("/model haiku"), Some(Some("haiku")));
        assert_eq!(
            switched_model("/model  claude-opus-4-5 "),
            Some(Some("claude-opus-4-5"))
        );
        assert_eq!(switched_model("/model default"), Some(None));
        assert_eq!(switched_model("/model"), None);
        assert_eq!(switched_model("/model a b"), None);
        assert_eq!(switched_model("/compact"), None);
        assert_eq!(switched_model("/models haiku"), None);
    }

    #[test]
    fn commands_are_found_where_claude_code_finds_them() {
        let home = tempfile::tempdir().unwrap();
        let work = tempfile::tempdir().unwrap();
        let user = home.path().join("commands");
        std::fs::create_dir_all(user.join("git")).unwrap();
        std::fs::write(
            user.join("review.md"),
            "---\ndescription: Review the diff\n---\nReview $ARGUMENTS",
        )
        .unwrap();
        std::fs::write(user.join("git/sync.md"), "Pull and rebase\n").unwrap();
        std::fs::write(user.join("bad name.md"), "x").unwrap();
        std::fs::write(user.join("notes.txt"), "x").unwrap();
        let project = work.path().join(".claude/commands");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(
            project.join("review.md"),
            "The project's own review\u{1b}[2J",
        )
        .unwrap();
        let found = known(home.path(), work.path());
        let names: Vec<(&str, SlashSource)> =
            found.iter().map(|c| (c.name.as_str(), c.source)).collect();
        assert_eq!(
            names,
            [
                ("compact", SlashSource::BuiltIn),
                ("clear", SlashSource::BuiltIn),
                ("model", SlashSource::BuiltIn),
                ("context", SlashSource::BuiltIn),
                ("review", SlashSource::Project),
                ("git:sync", SlashSource::User),
            ]
        );
        assert_eq!(found[4].description, "The project's own review[2J");
        assert_eq!(found[5].description, "Pull and rebase");
    }

    #[test]
    fn only_a_known_command_on_one_line_is_typed() {
        let known = known(Path::new("/nonexistent"), Path::new("/nonexistent"));
        assert_eq!(
            parse(" /compact keep the API notes ", &known).unwrap(),
            "/compact keep the API notes"
        );
        assert_eq!(parse("/clear", &known).unwrap(), "/clear");
        for bad in [
            "compact",
            "/nosuch",
            "/compact\n/clear",
            "/compact \u{1b}[A",
            "/",
        ] {
            let e = parse(bad, &known).unwrap_err();
            assert_eq!(e.code, Code::BadSlashCommand, "{bad:?}");
        }
        assert!(parse("/nosuch", &known)
            .unwrap_err()
            .message
            .contains("/compact, /clear"));
    }
}
