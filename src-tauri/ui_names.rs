//! The names the window's JavaScript shares with this crate: the IPC commands `ui/js/backend.js` invokes
//! are the ones `main.rs` registers, and the events it listens to are the ones this crate emits. A renamed
//! command or event fails here instead of leaving the window deaf.

use std::collections::BTreeSet;

const BACKEND_JS: &str = include_str!("../ui/js/backend.js");
const MAIN_RS: &str = include_str!("main.rs");

/// Every `'name'` that follows `call(` in `js`.
fn called(js: &str, call: &str) -> BTreeSet<String> {
    let open = format!("{call}('");
    js.match_indices(&open)
        .filter_map(|(i, _)| {
            let rest = &js[i + open.len()..];
            rest.find('\'').map(|end| rest[..end].to_owned())
        })
        .collect()
}

/// The functions `generate_handler![...]` registers in main.rs, by name.
fn registered() -> BTreeSet<String> {
    let start = MAIN_RS.find("generate_handler![").unwrap_or(0);
    let list = &MAIN_RS[start..];
    let list = &list["generate_handler![".len()..list.find(']').unwrap_or(0)];
    list.split(',')
        .filter_map(|path| path.trim().rsplit("::").next())
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_window_invokes_exactly_the_registered_commands() {
    let registered = registered();
    assert!(registered.len() > 10, "main.rs registers {registered:?}");
    assert_eq!(called(BACKEND_JS, "invoke"), registered);
}

#[test]
fn the_window_listens_to_the_events_this_crate_emits() {
    let emitted: BTreeSet<String> = [
        crate::events::HUB_EVENT,
        crate::main_window::OPEN_AGENT_EVENT,
        crate::tray::HANDS_FREE_EVENT,
    ]
    .map(str::to_owned)
    .into();
    assert_eq!(called(BACKEND_JS, "listen"), emitted);
}

#[test]
fn the_page_and_the_app_find_speech_alike() {
    use clawmux_capture::detector as app;
    let page = include_str!("../ui/js/hands-free.js");
    let value = |name: &str| -> f32 {
        let at = page
            .find(&format!("const {name} = "))
            .unwrap_or_else(|| panic!("hands-free.js has no {name}"));
        let rest = &page[at + name.len() + 9..];
        rest[..rest.find(';').unwrap_or(0)].trim().parse().unwrap()
    };
    let figures = [
        ("FRAME_S", app::FRAME_SECONDS),
        ("START_FRAMES", app::START_FRAMES as f32),
        ("END_FRAMES", app::END_FRAMES as f32),
        ("PRE_ROLL_S", app::PRE_ROLL_SECONDS),
        ("MIN_S", app::MIN_SECONDS),
        ("MAX_S", app::MAX_SECONDS),
        ("OVER_FLOOR", app::OVER_FLOOR),
        ("AT_LEAST", app::AT_LEAST),
        ("OVER_OWN_SPEECH", app::OVER_OWN_SPEECH),
    ];
    for (name, figure) in figures {
        assert_eq!(value(name), figure, "{name}");
    }
}
