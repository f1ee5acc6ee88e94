//! What the desktop gives the app: a sound server for the voice, the tray and the notifications on the
//! session bus, and a WebKitGTK renderer that draws on this graphics driver.

use super::{check, output, Check, Status};

pub(super) fn sound_server() -> Check {
    if output("pactl", &["--version"]).is_none() {
        return check(
            "sound server",
            Status::Skip,
            "`pactl` is not installed, so the sound server was not asked",
        )
        .fix("sudo apt install pulseaudio-utils");
    }
    let Some(info) = output("pactl", &["info"]) else {
        return check(
            "sound server",
            Status::Warn,
            "no sound server answers: the voice can neither hear nor speak (typing works)",
        )
        .fix("start PipeWire (systemctl --user start pipewire-pulse) or PulseAudio");
    };
    let line = |key: &str| {
        info.lines()
            .find_map(|l| l.strip_prefix(key))
            .map(str::trim)
            .unwrap_or("")
            .to_owned()
    };
    let (server, source) = (line("Server Name:"), line("Default Source:"));
    if source.is_empty() || source == "@DEFAULT_SOURCE@" {
        return check(
            "sound server",
            Status::Warn,
            format!("{server}, with no microphone"),
        )
        .fix("plug in or select a microphone: typing works, speaking does not");
    }
    check(
        "sound server",
        Status::Ok,
        format!("{server}, microphone {source}"),
    )
}

/// Whether `name` has an owner on the session bus: the tray host, the notification daemon.
pub(super) fn on_session_bus(what: &'static str, name: &str, missing: &str) -> Check {
    let bus = std::env::var_os("DBUS_SESSION_BUS_ADDRESS").filter(|a| !a.is_empty());
    if bus.is_none() {
        return check(
            what,
            Status::Skip,
            "no session bus (DBUS_SESSION_BUS_ADDRESS is not set)",
        );
    }
    let asked = output(
        "dbus-send",
        &[
            "--session",
            "--print-reply",
            "--dest=org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.NameHasOwner",
            &format!("string:{name}"),
        ],
    );
    match asked {
        Some(reply) if reply.contains("boolean true") => {
            check(what, Status::Ok, format!("{name} is there"))
        }
        Some(_) => check(what, Status::Warn, missing.to_owned()),
        None => check(
            what,
            Status::Skip,
            "the session bus could not be asked (dbus-send)",
        )
        .fix("sudo apt install dbus-bin"),
    }
}

/// WebKitGTK's DMABUF renderer draws a blank window with NVIDIA's driver on many setups.
pub(super) fn nvidia_dmabuf() -> Check {
    if !std::path::Path::new("/proc/driver/nvidia/version").exists() {
        return check(
            "graphics",
            Status::Ok,
            "no NVIDIA driver: WebKitGTK's default renderer",
        );
    }
    if std::env::var("WEBKIT_DISABLE_DMABUF_RENDERER").as_deref() == Ok("1") {
        return check(
            "graphics",
            Status::Ok,
            "NVIDIA driver, with WebKitGTK's DMABUF renderer off",
        );
    }
    check(
        "graphics",
        Status::Warn,
        "NVIDIA driver with WebKitGTK's DMABUF renderer: the window may stay blank",
    )
    .fix("start the app with WEBKIT_DISABLE_DMABUF_RENDERER=1")
}
