//! The UI reads the wire's names from `ui/js/names.js`; each list there must be exactly its Rust enum.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::collections::BTreeSet;

use clawmux_core::wire::{Code, Kind};
use clawmux_core::State;
use clawmux_hub::ui_event::{EndReason, LaunchKind};
use clawmux_hub::voice::device::DownloadState;
use serde::Serialize;

/// The values of `export const NAME = Object.freeze({ KEY: 'value', ... })` in names.js.
fn js_list(name: &str) -> BTreeSet<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../ui/js/names.js");
    let js = std::fs::read_to_string(path).unwrap();
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

#[test]
fn every_list_in_names_js_is_its_enum() {
    assert_eq!(js_list("State"), rust_list(State::ALL));
    assert_eq!(js_list("Launch"), rust_list(LaunchKind::ALL));
    assert_eq!(js_list("EndReason"), rust_list(EndReason::ALL));
    assert_eq!(js_list("DownloadState"), rust_list(DownloadState::ALL));
    assert_eq!(js_list("Kind"), rust_list(Kind::ALL));
    assert_eq!(js_list("Code"), rust_list(Code::ALL.iter().copied()));
}
