//! The UI reads the wire's names from `ui/js/names.js`; each list there must be exactly its Rust enum, the
//! UI's other files must take those names from it instead of spelling them, and the form's choices in
//! `index.html` must be the enums' values.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use clawmux_core::between::Delivery;
use clawmux_core::board::{Move, TaskState};
use clawmux_core::changes::{FileStatus, MergeMode, Shown};
use clawmux_core::usage::Window;
use clawmux_core::wire::{
    AttachmentKind, Code, Kind, ListenedType, TerminalInputType, TerminalNoticeType,
    MAX_ATTACHMENT, MAX_ATTACHMENTS,
};
use clawmux_core::{Need, State};
use clawmux_hub::asks::Verdict;
use clawmux_hub::commands::CommandName;
use clawmux_hub::lifecycle::flags::{Effort, PermissionMode};
use clawmux_hub::lifecycle::slash::SlashSource;
use clawmux_hub::phone::ListeningState;
use clawmux_hub::search::Who;
use clawmux_hub::ui_event::{EndReason, LaunchKind, UiEventType};
use clawmux_hub::voice::device::DownloadState;
use clawmux_voice::local::LocalModel;
use clawmux_voice::piper::LocalVoice;
use clawmux_voice::{SpeechToText, TextToSpeech};
use serde::Serialize;
use strum::IntoEnumIterator;

fn ui() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui")
}

/// The values of `export const NAME = Object.freeze({ KEY: 'value', ... })` in names.js.
fn js_list(name: &str) -> BTreeSet<String> {
    let js = std::fs::read_to_string(ui().join("js/names.js")).unwrap();
    let start = js
        .find(&format!("export const {name} = Object.freeze({{"))
        .unwrap_or_else(|| panic!("names.js has no list {name}"));
    let body = &js[start..];
    let body = &body[..body.find("});").unwrap()];
    body.lines()
        .filter_map(|l| l.split_once(": '"))
        .map(|(_, v)| v.trim_end_matches("',").to_owned())
        .collect()
}

fn rust_list<T: Serialize>(all: impl IntoIterator<Item = T>) -> BTreeSet<String> {
    all.into_iter()
        .map(|v| {
            serde_json::to_value(v)
                .unwrap()
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// The `op` of each move of a board's item.
fn task_ops() -> BTreeSet<String> {
    let every = [
        Move::Take,
        Move::Review,
        Move::Done,
        Move::Drop,
        Move::Assign { to: String::new() },
    ];
    every
        .iter()
        .map(|m| {
            serde_json::to_value(m).unwrap()["op"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// Every list names.js holds, by its name there, with its Rust enum's values.
fn lists() -> Vec<(&'static str, BTreeSet<String>)> {
    vec![
        ("State", rust_list(State::ALL)),
        ("Launch", rust_list(LaunchKind::ALL)),
        ("EndReason", rust_list(EndReason::ALL)),
        ("DownloadState", rust_list(DownloadState::ALL)),
        ("Kind", rust_list(Kind::ALL)),
        ("AttachmentKind", rust_list(AttachmentKind::ALL)),
        ("Code", rust_list(Code::ALL.iter().copied())),
        ("UiEvent", rust_list(UiEventType::iter())),
        ("Command", rust_list(CommandName::iter())),
        ("Verdict", rust_list(Verdict::iter())),
        ("PermissionMode", rust_list(PermissionMode::iter())),
        ("Effort", rust_list(Effort::iter())),
        ("SlashSource", rust_list(SlashSource::iter())),
        ("SpeechToText", rust_list(SpeechToText::iter())),
        ("LocalModel", rust_list(LocalModel::ALL)),
        ("TextToSpeech", rust_list(TextToSpeech::iter())),
        ("LocalVoice", rust_list(LocalVoice::ALL)),
        ("TerminalNotice", rust_list(TerminalNoticeType::iter())),
        ("TerminalInput", rust_list(TerminalInputType::iter())),
        ("Listened", rust_list(ListenedType::iter())),
        ("MergeMode", rust_list(MergeMode::iter())),
        ("FileStatus", rust_list(FileStatus::iter())),
        ("Shown", rust_list(Shown::iter())),
        ("Window", rust_list(Window::ALL)),
        ("Need", rust_list(Need::ALL)),
        ("Delivery", rust_list(Delivery::ALL)),
        ("TaskState", rust_list(TaskState::ALL)),
        ("TaskOp", task_ops()),
        ("Who", rust_list(Who::ALL)),
        ("Listening", rust_list(ListeningState::iter())),
        (
            "DoctorStatus",
            rust_list(clawmux_api::doctor::Status::iter()),
        ),
    ]
}

#[test]
fn every_list_in_names_js_is_its_enum() {
    for (name, rust) in lists() {
        assert_eq!(js_list(name), rust, "names.js' {name}");
    }
}

#[test]
fn the_page_says_the_hubs_attachment_limits() {
    let js = std::fs::read_to_string(ui().join("js/names.js")).unwrap();
    let limit = |key: &str| -> u64 {
        let at = js.find("export const AttachmentLimit").unwrap();
        let line = js[at..]
            .lines()
            .find(|l| l.trim_start().starts_with(key))
            .unwrap();
        line.split_once(": ")
            .unwrap()
            .1
            .trim_end_matches(',')
            .parse()
            .unwrap()
    };
    assert_eq!(limit("BYTES:"), MAX_ATTACHMENT);
    assert_eq!(limit("FILES:"), MAX_ATTACHMENTS as u64);
}

#[test]
fn a_command_name_is_what_the_command_deserialises_from() {
    // The names come from the enum's variants by the same rule serde uses; a command with its name and no
    // fields is refused for a missing field or taken, never as an unknown command.
    for name in rust_list(CommandName::iter()) {
        let err =
            serde_json::from_value::<clawmux_hub::Command>(serde_json::json!({ "command": name }))
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
        assert!(!err.contains("unknown variant"), "{name}: {err}");
    }
}

#[test]
fn every_command_refuses_a_field_it_does_not_know() {
    // Each command is a type of its own that says so: a misspelt field is an error, never ignored (a
    // transport may pass nothing on that the hub did not read).
    for name in rust_list(CommandName::iter()) {
        let err = serde_json::from_value::<clawmux_hub::Command>(
            serde_json::json!({ "command": name, "surely_not_a_field": 1 }),
        )
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
        assert!(
            err.contains("unknown field `surely_not_a_field`"),
            "{name}: {err}"
        );
    }
}

/// The single-quoted literals in the places where the UI names an event, a command, a notice, an answer or
/// a choice: `command: 'x'`, `case 'x'`, `type === 'x'`, `type: 'x'`, `send('x'`, `act('x'`, `.value ===
/// 'x'`, `['x', ...]` and `'x': ...` as a key.
fn literals_in_name_places(js: &str) -> Vec<String> {
    const PLACES: [&str; 9] = [
        "command: '",
        "case '",
        "type === '",
        "type !== '",
        "type: '",
        "send('",
        "act('",
        "value === '",
        "['",
    ];
    let mut found = Vec::new();
    for line in js.lines() {
        let trimmed = line.trim_start();
        let mut starts: Vec<usize> = PLACES
            .iter()
            .flat_map(|p| line.match_indices(p).map(move |(i, _)| i + p.len()))
            .collect();
        if trimmed.starts_with('\'') {
            starts.push(line.len() - trimmed.len() + 1);
        }
        for start in starts {
            if let Some(end) = line[start..].find('\'') {
                found.push(line[start..start + end].to_owned());
            }
        }
    }
    found
}

#[test]
fn no_ui_file_spells_a_wire_name_it_can_take_from_names_js() {
    let names: BTreeSet<String> = lists().into_iter().flat_map(|(_, l)| l).collect();
    let mut spelled = Vec::new();
    for entry in std::fs::read_dir(ui().join("js")).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().unwrap() == "names.js" || path.extension().is_none_or(|e| e != "js") {
            continue;
        }
        let js = std::fs::read_to_string(&path).unwrap();
        for literal in literals_in_name_places(&js) {
            if names.contains(&literal) {
                spelled.push(format!("{}: '{literal}'", path.display()));
            }
        }
    }
    assert!(spelled.is_empty(), "take these from names.js: {spelled:#?}");
}

#[test]
fn the_literal_check_finds_what_it_looks_for() {
    let js = "x({ command: 'spawn' });\n  case 'reset':\n  if (e.type === 'ended') {}\n  'tiny.en': 'fast',\n  this.send('allow');\n  [['default', 'ask']]";
    assert_eq!(
        literals_in_name_places(js),
        ["spawn", "reset", "ended", "tiny.en", "allow", "default"]
    );
}

/// The `value`s of the options of `<select id="ID">` in index.html.
fn select_values(html: &str, id: &str) -> BTreeSet<String> {
    let start = html
        .find(&format!("<select id=\"{id}\""))
        .unwrap_or_else(|| panic!("index.html has no select {id}"));
    let body = &html[start..];
    let body = &body[..body.find("</select>").unwrap()];
    body.match_indices("<option value=\"")
        .map(|(i, p)| {
            let rest = &body[i + p.len()..];
            rest[..rest.find('"').unwrap()].to_owned()
        })
        .collect()
}

#[test]
fn the_forms_offer_exactly_the_enums_values() {
    let html = std::fs::read_to_string(ui().join("index.html")).unwrap();
    let mut modes = rust_list(PermissionMode::iter());
    modes.insert(String::new()); // Claude Code's default: no flag
    assert_eq!(select_values(&html, "spawn-mode"), modes);
    let mut levels = rust_list(Effort::iter());
    levels.extend([String::new(), "default".to_owned()]); // the prompt, and Claude Code's default
    assert_eq!(select_values(&html, "act-effort"), levels);
    assert_eq!(
        select_values(&html, "vs-stt"),
        rust_list(SpeechToText::iter())
    );
    assert_eq!(
        select_values(&html, "vs-tts"),
        rust_list(TextToSpeech::iter())
    );
    assert_eq!(
        select_values(&html, "merge-mode"),
        rust_list(MergeMode::iter())
    );
}
