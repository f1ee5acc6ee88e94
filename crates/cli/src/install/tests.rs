//! Tests of `install.rs`.

use super::*;

#[test]
fn install_keeps_everything_of_the_user_and_uninstall_removes_exactly_ours() {
    let user = r#"{"model":"opus","hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"/usr/bin/audit"}]}],"Notification":[{"hooks":[{"type":"command","command":"notify-send hi"}]}]},"permissions":{"allow":["Bash(ls)"]}}"#;
    let original: Map<String, Value> = serde_json::from_str(user).unwrap();
    let mut doc = original.clone();
    let p = Path::new("/x/settings.json");
    let cmd = hook_command(Path::new("/opt/clawmux"), Some(Path::new("/d")));
    assert!(install_into(&mut doc, &cmd, p).unwrap());
    assert!(
        !install_into(&mut doc, &cmd, p).unwrap(),
        "installing twice adds nothing"
    );
    assert_eq!(
        doc.keys().collect::<Vec<_>>(),
        ["model", "hooks", "permissions"],
        "the file's keys keep their order"
    );
    let pre = doc["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 2);
    assert_eq!(pre[0]["hooks"][0]["command"], "/usr/bin/audit");
    assert_eq!(pre[1]["matcher"], "*");
    assert_eq!(doc["hooks"]["Stop"][0].get("matcher"), None);
    // Every event with a rule for observed sessions is subscribed, and no event without one.
    let ours = |event: &str| {
        doc["hooks"]
            .get(event)
            .and_then(Value::as_array)
            .is_some_and(|gs| {
                gs.iter()
                    .any(|g| g["hooks"].as_array().unwrap().iter().any(is_ours))
            })
    };
    // What an observed session reports, and nothing a supported Claude Code would not know.
    for event in HookEvent::ALL {
        let known = event.observed() && event.since().is_none();
        assert_eq!(ours(event.name()), known, "{event}");
    }
    assert!(!ours("PreSkillShellCommand"));
    assert_eq!(
        uninstall_from(&mut doc, p).unwrap(),
        observed_events().count()
    );
    assert_eq!(doc, original);
    assert_eq!(uninstall_from(&mut doc, p).unwrap(), 0);
}

#[test]
fn the_status_line_chains_the_users_and_uninstall_puts_it_back_exactly() {
    let clawmux = Path::new("/usr/bin/clawmux");
    for user in [
        r#"{"model":"opus","statusLine":{"type":"command","command":"bash -c 'echo \"$(pwd)\"'","padding":2}}"#,
        r#"{"model":"opus"}"#,
        "{}",
    ] {
        let original: Map<String, Value> = serde_json::from_str(user).unwrap();
        let mut doc = original.clone();
        assert!(install_status_line(
            &mut doc,
            clawmux,
            Some(Path::new("/d"))
        ));
        assert!(
            !install_status_line(&mut doc, clawmux, None),
            "twice adds nothing"
        );
        let cmd = doc["statusLine"]["command"].as_str().unwrap();
        assert!(
            cmd.starts_with("'/usr/bin/clawmux' statusline --observe --data-dir '/d'"),
            "{cmd}"
        );
        assert_eq!(
            observed_chain(cmd).unwrap(),
            original
                .get("statusLine")
                .map(|l| l["command"].as_str().unwrap().to_owned())
        );
        assert!(uninstall_status_line(&mut doc));
        assert_eq!(doc, original, "{user}");
        assert!(!uninstall_status_line(&mut doc));
    }
    // A status line that is not a command is the user's business.
    let mut other: Map<String, Value> =
        serde_json::from_str(r#"{"statusLine":{"type":"static","text":"hi"}}"#).unwrap();
    let before = other.clone();
    assert!(!install_status_line(&mut other, clawmux, None));
    assert_eq!(other, before);
}

#[test]
fn uninstall_gives_back_the_users_file_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    let data = dir.path().join("data");
    // Hand-edited: four spaces, an escape, no final newline.
    let user = "{\n    \"model\": \"opus\",\n    \"note\": \"gr\\u00fcn\"\n}";
    std::fs::write(&path, user).unwrap();
    let clawmux = Path::new("/usr/bin/clawmux");
    install_with(&path, clawmux, Some(&data)).unwrap();
    let installed = std::fs::read_to_string(&path).unwrap();
    assert!(installed.contains("hook observe"), "{installed}");
    assert!(
        installed.contains("\n    \"model\""),
        "written in the user's indent: {installed}"
    );
    uninstall(Some(&path)).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), user);
    assert!(!original_copy(&path).exists(), "the copy goes with ClawMux");

    // Changed meanwhile: the user's change stays, in the user's indent and ending.
    install_with(&path, clawmux, Some(&data)).unwrap();
    let mut doc = read(&path).unwrap();
    doc.insert("theme".into(), json!("dark"));
    write(&path, &doc).unwrap();
    uninstall(Some(&path)).unwrap();
    let after = std::fs::read_to_string(&path).unwrap();
    assert!(after.contains("\n    \"theme\": \"dark\""), "{after}");
    assert!(
        !after.contains("hook observe") && !after.ends_with('\n'),
        "{after}"
    );
}

#[test]
fn refuses_what_it_cannot_edit() {
    let p = Path::new("/x/settings.json");
    let mut bad: Map<String, Value> = serde_json::from_str(r#"{"hooks":[1]}"#).unwrap();
    assert!(install_into(&mut bad, "c", p).is_err());
    let mut bad: Map<String, Value> = serde_json::from_str(r#"{"hooks":{"Stop":3}}"#).unwrap();
    assert!(install_into(&mut bad, "c", p).is_err());
    assert_eq!(quote("it's"), r"'it'\''s'");
}
