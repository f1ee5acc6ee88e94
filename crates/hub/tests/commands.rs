//! The UI's command surface as any transport uses it: JSON in, `dispatch`, JSON out.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::sync::Mutex;

use clawmux_core::wire::Code;
use clawmux_hub::commands::CommandName;
use clawmux_hub::config::Options;
use clawmux_hub::{Command, Hub};
use serde_json::json;
use strum::IntoEnumIterator;

/// The commands `command` has made, so the test can say which it never ran.
static MADE: Mutex<Vec<CommandName>> = Mutex::new(Vec::new());

/// Runs a command as a transport does: its reply as the JSON it sends.
async fn run(hub: &Hub, command: Command) -> Result<serde_json::Value, clawmux_hub::HubError> {
    hub.dispatch(command)
        .await
        .map(|reply| serde_json::to_value(reply).unwrap())
}

fn command(v: serde_json::Value) -> Command {
    let command: Command = serde_json::from_value(v).unwrap();
    MADE.lock().unwrap().push(CommandName::from(&command));
    // One wire both ways: what a client writes (the CLI sends `Command` values) reads back the same.
    let written = serde_json::to_value(&command).unwrap();
    let read: Command = serde_json::from_value(written.clone())
        .unwrap_or_else(|e| panic!("{written} does not read back: {e}"));
    assert_eq!(read, command);
    command
}

#[test]
fn every_command_runs_through_dispatch() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    rt.block_on(async {
        // Models come from a port where nothing listens: a download starts, and fails without the network.
        // Other machines are reached with an ssh config of the test's own (empty), never the user's.
        let ssh_config = dir.path().join("ssh_config");
        std::fs::write(&ssh_config, "").unwrap();
        let options = Options {
            models_url: Some("http://127.0.0.1:9".to_owned()),
            ssh_config: Some(ssh_config),
            ..Options::from_env()
        };
        let hub = Hub::open_with(dir.path(), options).await.unwrap();
        let mut feed = hub.subscribe();
        let added = run(&hub, command(json!({"command": "add_agent", "name": "sky"}))).await.unwrap();
        assert_eq!(added["session_id"], "sky");
        assert_eq!(added["state"], "starting");

        let sent = run(
            &hub,
            command(json!({"command": "user_message", "session_id": "sky", "text": "hi", "client_id": "c1"})))
            .await
            .unwrap();
        let again = run(
            &hub,
            command(json!({"command": "user_message", "session_id": "sky", "text": "hi", "client_id": "c1"})))
            .await
            .unwrap();
        assert_eq!(sent, again, "a retried command stores nothing new");

        // A pasted screenshot: kept, then sent with no text; the history and the agent's line carry it.
        let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==";
        let kept = run(
            &hub,
            command(json!({"command": "attach", "session_id": "sky", "name": "shot.png", "data": png})))
            .await
            .unwrap();
        assert_eq!((kept["kind"].as_str(), kept["media_type"].as_str()), (Some("image"), Some("image/png")));
        let with_file = run(
            &hub,
            command(json!({"command": "user_message", "session_id": "sky", "text": "",
                "attachments": [{"id": kept["id"], "name": "shot.png"}], "client_id": "c2"})))
            .await
            .unwrap();
        // Its bytes back, for a thumbnail drawn on another machine; a file that is not an image is refused.
        let image = run(&hub, command(json!({"command": "attachment_image", "id": kept["id"]}))).await.unwrap();
        assert_eq!((image["media_type"].as_str(), image["data"].as_str()), (Some("image/png"), Some(png)));
        let text = run(
            &hub,
            command(json!({"command": "attach", "session_id": "sky", "name": "notes.txt", "data": "aGk="})))
            .await
            .unwrap();
        let not_image = run(&hub, command(json!({"command": "attachment_image", "id": text["id"]}))).await.unwrap_err();
        assert_eq!(not_image.code, Code::UnknownAttachment);
        let bad = run(
            &hub,
            command(json!({"command": "attach", "session_id": "sky", "name": "x.txt", "data": "not base64!"})))
            .await
            .unwrap_err();
        assert_eq!(bad.code, Code::BadAttachment);
        let unknown = run(
            &hub,
            command(json!({"command": "user_message", "session_id": "sky", "text": "",
                "attachments": [{"id": "0".repeat(64), "name": "x"}]})))
            .await
            .unwrap_err();
        assert_eq!(unknown.code, Code::UnknownAttachment);

        let page = run(&hub, command(json!({"command": "history", "session_id": "sky"}))).await.unwrap();
        assert_eq!(page["messages"][0]["id"], sent["id"]);
        assert_eq!(page["messages"][1]["id"], with_file["id"]);
        assert_eq!(page["messages"][1]["attachments"][0]["id"], kept["id"]);
        assert_eq!(page["messages"].as_array().unwrap().len(), 2, "nothing stored of the refused sends");
        let err = run(
            &hub,
            command(json!({"command": "history", "session_id": "sky", "after": "msg-00000000"})))
            .await
            .unwrap_err();
        assert_eq!(err.code, Code::UnknownCursor);

        run(&hub, command(json!({"command": "mark_read", "session_id": "sky", "up_to": sent["id"]})))
            .await
            .unwrap();
        let sessions = run(&hub, command(json!({"command": "sessions"}))).await.unwrap();
        assert_eq!(sessions[0]["unread_count"], 0);

        let err = run(
            &hub,
            command(json!({"command": "user_message", "session_id": "ghost", "text": "x"})))
            .await
            .unwrap_err();
        assert_eq!(err.code, Code::UnknownAgent);
        // `sky` was registered, not started: ClawMux runs no process of it to start, end or interrupt.
        let refused = |c: serde_json::Value| {
            let hub = hub.clone();
            async move { run(&hub, command(c)).await.unwrap_err().code }
        };
        assert_eq!(
            refused(json!({"command": "spawn", "name": "sky", "demo": true})).await,
            Code::AgentExists
        );
        for c in ["terminate", "restart", "interrupt"] {
            assert_eq!(
                refused(json!({"command": c, "session_id": "sky"})).await,
                Code::NotManaged,
                "{c}"
            );
        }
        assert_eq!(
            refused(json!({"command": "set_model", "session_id": "sky", "model": "haiku"})).await,
            Code::NotManaged
        );
        assert_eq!(
            refused(json!({"command": "set_model", "session_id": "sky", "model": "-p x"})).await,
            Code::BadModel
        );
        assert_eq!(
            refused(json!({"command": "set_effort", "session_id": "sky", "effort": "max"})).await,
            Code::NotManaged
        );
        let offered = run(&hub, command(json!({"command": "slash_commands", "session_id": "sky"})))
            .await
            .unwrap();
        assert_eq!(offered[0]["name"], "compact");
        assert_eq!(
            refused(json!({"command": "slash", "session_id": "sky", "text": "/compact"})).await,
            Code::NotManaged
        );
        // Only Claude Code's levels are a level: anything else is not a command at all.
        assert!(serde_json::from_value::<Command>(json!({"command": "set_effort", "session_id": "sky", "effort": "ultra"})).is_err());

        // sky has no open request: an answer answers nothing.
        assert_eq!(
            refused(json!({"command": "answer", "session_id": "sky", "decision": "allow"})).await,
            Code::NotPending
        );
        // sky works in a folder of its own, not in a worktree: it has no branch to show changes of.
        assert_eq!(
            refused(json!({"command": "changes", "session_id": "sky"})).await,
            Code::NoWorktree
        );
        assert_eq!(
            refused(json!({"command": "merge", "session_id": "sky", "mode": "squash"})).await,
            Code::NoWorktree
        );
        let plain = tempfile::tempdir().unwrap();
        assert_eq!(
            refused(json!({"command": "repository", "work_dir": plain.path()})).await,
            Code::NotARepository
        );
        assert_eq!(
            refused(json!({"command": "remove_worktree", "session_id": "sky"})).await,
            Code::NoWorktree
        );
        let worktrees = run(&hub, command(json!({"command": "worktrees"}))).await.unwrap();
        assert_eq!(worktrees, json!([]), "no agent has a worktree");
        // The indicator explained, dismissed, reported.
        let explained = run(&hub, command(json!({"command": "explain", "session_id": "sky"}))).await.unwrap();
        assert_eq!((explained["shown"].clone(), explained["state"].clone()), (json!("Starting"), json!("starting")));
        assert!(explained.get("until").is_none(), "the hub does not start sky: it sets it no deadline");
        assert_eq!(
            refused(json!({"command": "dismiss", "session_id": "sky"})).await,
            Code::NotDismissable
        );
        let report = run(
            &hub,
            command(json!({"command": "report", "session_id": "sky", "right": "idle"})))
            .await
            .unwrap();
        let text = report["text"].as_str().unwrap();
        assert!(text.contains("\"case\":\"sky: the indicator looked wrong\""), "{report}");
        assert!(text.ends_with("{\"expect\":{\"state\":\"idle\"}}\n"), "{report}");
        assert_eq!(report["path"], json!(null), "nothing saved unless asked");
        assert_eq!(
            refused(json!({"command": "report", "session_id": "sky", "right": "sleepy"})).await,
            Code::BadQuery
        );

        // Usage: sky's status line reported once; a payload out of range changes nothing.
        let usage = hub.usage().clone();
        let payload = json!({"model": {"display_name": "Opus 5.5"}, "cost": {"total_cost_usd": 1.2},
            "context_window": {"total_input_tokens": 96_000, "total_output_tokens": 4_000, "context_window_size": 200_000,
                "current_usage": {"input_tokens": 96_000, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0},
                "used_percentage": 48}});
        usage.report("sky", payload.to_string().as_bytes()).await.unwrap();
        let mut over = payload.clone();
        over["context_window"]["used_percentage"] = json!(180);
        let e = usage.report("sky", over.to_string().as_bytes()).await.unwrap_err();
        assert_eq!(e.code, Code::MalformedEvent);
        assert_eq!(usage.report("sky", b"{{").await.unwrap_err().code, Code::MalformedJson);
        let figures = run(&hub, command(json!({"command": "usage", "days": 2}))).await.unwrap();
        assert_eq!(figures["agents"][0]["session_id"], "sky");
        assert_eq!(figures["agents"][0]["line"], "48% · 96k/200k · $1.20", "{figures}");
        assert_eq!(figures["days"][0]["cost"], 1.2, "{figures}");
        assert_eq!(figures["account"]["limits"], json!([]), "an API key has no limit windows");
        assert_eq!(refused(json!({"command": "usage", "days": 0})).await, Code::BadQuery);
        assert_eq!(refused(json!({"command": "usage", "offset_minutes": 5000})).await, Code::BadQuery);
        // Search: the user's words, newest first, with the words marked; bad queries refused.
        let found = run(&hub, command(json!({"command": "search", "query": "hi", "session_id": "sky", "who": "user"}))).await.unwrap();
        assert!(found["results"].as_array().is_some_and(|r| !r.is_empty()), "{found}");
        assert_eq!(found["results"][0]["agent"], "sky");
        assert!(found["results"][0]["snippet"].as_str().unwrap().contains('\u{2}'), "{found}");
        assert_eq!(found["indexing"], 0);
        assert_eq!(found["sessions_searched"], false);
        let on = run(&hub, command(json!({"command": "search_sessions", "on": false}))).await.unwrap();
        assert_eq!(on, json!({}));
        assert_eq!(refused(json!({"command": "search", "query": " ( ) "})).await, Code::BadQuery);
        // A NUL cannot make FTS5 fail: it separates words.
        let nul = run(&hub, command(json!({"command": "search", "query": "h\u{0}i"}))).await.unwrap();
        assert!(nul["results"].is_array(), "{nul}");
        assert_eq!(refused(json!({"command": "search", "query": "\u{0}"})).await, Code::BadQuery);
        assert_eq!(refused(json!({"command": "search", "query": "x".repeat(300)})).await, Code::BadQuery);
        assert_eq!(refused(json!({"command": "search", "query": "x", "limit": 0})).await, Code::BadQuery);
        assert_eq!(refused(json!({"command": "search", "query": "x", "session_id": "nobody"})).await, Code::UnknownAgent);
        // Continue after a reset: kept for the agent; an unknown agent is refused.
        let on = json!({"command": "usage_continue", "session_id": "sky", "on": true});
        assert_eq!(run(&hub, command(on)).await.unwrap(), json!({}));
        let figures = run(&hub, command(json!({"command": "usage"}))).await.unwrap();
        assert_eq!(figures["agents"][0]["continues"], true, "{figures}");
        assert_eq!(
            refused(json!({"command": "usage_continue", "session_id": "nobody", "on": true})).await,
            Code::UnknownAgent
        );

        let caps = run(&hub, command(json!({"command": "capabilities"}))).await.unwrap();
        assert!(caps["tmux"].is_boolean() && caps["to_import"] == 0, "{caps}");
        // Routed to the checks (their own test, with the `clawmux` they run: cli's end_to_end/doctor.rs).
        let doctor = run(&hub, command(json!({"command": "doctor"}))).await;
        assert!(doctor.as_ref().map_or_else(|e| e.message.contains("clawmux doctor"), |d| d.is_array()));
        let imported = run(&hub, command(json!({"command": "import"}))).await.unwrap();
        assert_eq!(imported, json!([]), "there is no original installation to import");

        let bad = json!({"command": "set_voice_settings", "settings": {"transcription_url": "file:///etc/passwd"}});
        assert_eq!(refused(bad).await, Code::BadVoiceSettings);
        run(&hub, command(json!({"command": "set_voice_settings",
            "settings": {"transcription_url": "http://127.0.0.1:9/v1/audio/transcriptions", "api_key": "k"}})))
            .await
            .unwrap();
        let voice = run(&hub, command(json!({"command": "voice_settings"}))).await.unwrap();
        assert_eq!(voice["transcription_url"], "http://127.0.0.1:9/v1/audio/transcriptions");
        assert_eq!((voice["api_key_set"].clone(), voice.get("api_key")), (json!(true), None));

        // Speech on the device: the models, one download started and cancelled (or already failed), and
        // nothing to warm while speech goes to a service.
        let models = run(&hub, command(json!({"command": "voice_models"}))).await.unwrap();
        assert_eq!(models["models"].as_array().map(Vec::len), Some(3), "{models}");
        let started = run(&hub, command(json!({"command": "download_model", "model": "tiny.en"}))).await.unwrap();
        assert_eq!(started, json!({"downloading": "tiny.en"}));
        assert_eq!(models["voices"][0]["voice"], "en_US-joe-medium", "{models}");
        let started = run(&hub, command(json!({"command": "download_voice", "voice": "en_US-joe-medium"}))).await.unwrap();
        assert_eq!(started, json!({}));
        match run(&hub, command(json!({"command": "cancel_download"}))).await {
            Ok(done) => assert_eq!(done, json!({})),
            Err(e) => assert_eq!(e.code, Code::NotPending, "the download had failed already"),
        }
        run(&hub, command(json!({"command": "warm_voice"}))).await.unwrap();
        let heard = run(&hub, command(json!({"command": "hear", "text": "Who needs me?"}))).await.unwrap();
        assert_eq!(heard["done"], "said", "{heard}");

        // Interrupted agents resumed at start: on by default, turned off and on, none to resume by hand.
        let prefs = run(&hub, command(json!({"command": "preferences"}))).await.unwrap();
        assert_eq!(prefs, json!({"resume_agents": true}));
        let off = json!({"command": "set_preferences", "preferences": {"resume_agents": false}});
        assert_eq!(run(&hub, command(off)).await.unwrap(), json!({"resume_agents": false}));
        assert_eq!(run(&hub, command(json!({"command": "preferences"}))).await.unwrap(), json!({"resume_agents": false}));
        let resumed = run(&hub, command(json!({"command": "resume_interrupted"}))).await.unwrap();
        assert_eq!(resumed, json!([]));

        // Other machines: one where nothing listens is kept, listed down, and a command for it refused.
        let listed = run(&hub, command(json!({"command": "machine_add", "name": "gpu", "url": "ssh://127.0.0.1:9"}))).await.unwrap();
        assert_eq!((listed[0]["name"].clone(), listed[0]["url"].clone()), (json!("gpu"), json!("ssh://127.0.0.1:9")));
        let listed = run(&hub, command(json!({"command": "machines"}))).await.unwrap();
        assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
        let forward = json!({"command": "on_machine", "machine": "gpu", "forward": {"command": "sessions"}});
        assert_eq!(refused(forward).await, Code::MachineUnreachable);
        assert_eq!(refused(json!({"command": "on_machine", "machine": "nope", "forward": {"command": "sessions"}})).await, Code::UnknownMachine);
        // What is forwarded is a command of this surface, typed here: anything else never leaves.
        for forward in [json!({}), json!({"command": "format_disk"}), json!({"command": "sessions", "extra": 1})] {
            let on = json!({"command": "on_machine", "machine": "gpu", "forward": forward});
            assert!(serde_json::from_value::<Command>(on.clone()).is_err(), "{on} was taken");
        }
        assert_eq!(refused(json!({"command": "machine_add", "name": "x", "url": "ssh://-oProxyCommand=x"})).await, Code::BadMachine);
        assert_eq!(refused(json!({"command": "machine_add", "name": "gpu", "url": "ssh://other"})).await, Code::MachineExists);
        let left = run(&hub, command(json!({"command": "machine_remove", "name": "gpu"}))).await.unwrap();
        assert_eq!(left, json!([]));
        assert_eq!(refused(json!({"command": "machine_remove", "name": "gpu"})).await, Code::UnknownMachine);

        // Phones: off, so no pairing; on, a link with a one-time code; a phone paired is listed, revoked.
        assert_eq!(run(&hub, command(json!({"command": "phone"}))).await.unwrap(), json!({"on": false, "address": null, "listening": {"state": "no"}, "push_contact": null, "phones": []}));
        // Who runs the hub, as pushes name it: a mail or https address, nothing else.
        assert_eq!(refused(json!({"command": "set_push_contact", "contact": "javascript:alert(1)"})).await, Code::BadPushContact);
        let named = run(&hub, command(json!({"command": "set_push_contact", "contact": "mailto:me@example.com"}))).await.unwrap();
        assert_eq!(named["push_contact"], "mailto:me@example.com");
        assert_eq!(hub.phone().push().contact().map(|c| c.as_str().to_owned()), Some("mailto:me@example.com".into()));
        // An address for phones that is not one is refused; one that is, kept (no transport serves it here).
        assert_eq!(refused(json!({"command": "set_phone_address", "address": {"listen": "0.0.0.0:3461"}})).await, Code::BadPhoneAddress);
        let kept = run(&hub, command(json!({"command": "set_phone_address", "address": {"listen": "100.64.0.7:3461"}}))).await.unwrap();
        assert_eq!(kept["address"], json!({"listen": "100.64.0.7:3461"}));
        run(&hub, command(json!({"command": "set_phone_address", "address": null}))).await.unwrap();
        assert_eq!(refused(json!({"command": "phone_pair"})).await, Code::PhonesOff);
        assert_eq!(run(&hub, command(json!({"command": "set_phone", "on": true}))).await.unwrap()["on"], true);
        let pairing = run(&hub, command(json!({"command": "phone_pair"}))).await.unwrap();
        let code = pairing["code"].as_str().unwrap();
        assert!(pairing["link"].as_str().unwrap().ends_with(&format!("/#pair={code}")), "{pairing}");
        let paired = hub.phone().redeem(code, "Pixel", clawmux_core::Millis(1)).await.unwrap();
        let revoked = run(&hub, command(json!({"command": "phone_revoke", "phone": paired.phone.id}))).await.unwrap();
        assert!(revoked["phones"][0]["revoked_at"].is_number(), "{revoked}");
        assert_eq!(refused(json!({"command": "phone_revoke", "phone": "phone-nope"})).await, Code::UnknownPhone);
        // A window at which the user is: nothing is pushed meanwhile.
        assert_eq!(run(&hub, command(json!({"command": "present", "present": true}))).await.unwrap(), json!({}));
        let now = || clawmux_core::Millis(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64);
        assert!(hub.phone().push().present(now()));
        run(&hub, command(json!({"command": "present", "present": false}))).await.unwrap();
        assert!(!hub.phone().push().present(now()));
        // Between agents: a thread the user reads, closes and reopens.
        run(&hub, command(json!({"command": "add_agent", "name": "moon"}))).await.unwrap();
        let sent = hub.messages().send("moon", "sky", Some("the API changed"), None, None).await.unwrap();
        let threads = run(&hub, command(json!({"command": "threads"}))).await.unwrap();
        assert_eq!((&threads[0]["pair"], &threads[0]["queued"]), (&json!({"a": "moon", "b": "sky"}), &json!(1)), "{threads}");
        let thread = run(&hub, command(json!({"command": "thread", "a": "sky", "b": "moon"}))).await.unwrap();
        assert_eq!((&thread[0]["message"]["id"], &thread[0]["delivery"]), (&json!(sent.id), &json!("queued")), "{thread}");
        assert_eq!(refused(json!({"command": "thread", "a": "sky", "b": "sky"})).await, Code::ToItself);
        assert_eq!(refused(json!({"command": "thread", "a": "sky", "b": "moon", "limit": 0})).await, Code::BadQuery);
        run(&hub, command(json!({"command": "close_thread", "a": "sky", "b": "moon"}))).await.unwrap();
        assert_eq!(hub.messages().send("moon", "sky", Some("more"), None, None).await.unwrap_err().code, Code::ThreadClosed);
        assert_eq!(refused(json!({"command": "close_thread", "a": "sky", "b": "nobody"})).await, Code::UnknownAgent);
        run(&hub, command(json!({"command": "reopen_thread", "a": "moon", "b": "sky"}))).await.unwrap();
        let more = hub.messages().send("moon", "sky", Some("more"), None, None).await.unwrap();
        // The user's word in the thread, to one of the pair.
        run(&hub, command(json!({"command": "thread_reply", "to": "sky", "re": more.id.to_string(), "text": "stop there", "client_id": "u1"}))).await.unwrap();
        // Another machine's agent writes to moon (a retry is the same message) and takes moon's answer:
        let came = json!({"command": "from_machine", "machine": "laptop", "from": "rain", "to": "moon", "text": "is the schema done?", "client_id": "c1"});
        assert_eq!(run(&hub, command(came.clone())).await.unwrap()["id"], run(&hub, command(came)).await.unwrap()["id"]);
        let answered = hub.messages().send("moon", "rain@laptop", Some("yes, since noon"), None, None).await.unwrap();
        assert_eq!(run(&hub, command(json!({"command": "for_machine", "machine": "laptop"}))).await.unwrap()[0]["id"], json!(answered.id.to_string()));
        // The board: the user adds an item, gives it to an agent, lists it.
        let task = run(&hub, command(json!({"command": "task_add", "title": "write the docs"}))).await.unwrap();
        assert_eq!((&task["id"], &task["state"]), (&json!(1), &json!("open")), "{task}");
        let given = run(&hub, command(json!({"command": "task_move", "id": 1, "what": {"op": "assign", "to": "moon"}}))).await.unwrap();
        assert_eq!((&given["state"], &given["owner"]), (&json!("taken"), &json!("moon")), "{given}");
        assert_eq!(refused(json!({"command": "task_move", "id": 9, "what": {"op": "done"}})).await, Code::UnknownTask);
        assert_eq!(refused(json!({"command": "task_add", "title": ""})).await, Code::BadTask);
        let board = run(&hub, command(json!({"command": "board", "owner": "moon"}))).await.unwrap();
        assert_eq!(board.as_array().unwrap().len(), 1, "{board}");
        let handed = run(&hub, command(json!({"command": "hand_over", "from": "moon", "to": "sky"}))).await.unwrap();
        assert_eq!((&handed["items"], &handed["branch"]), (&json!([1]), &json!(null)), "{handed}");
        assert_eq!(refused(json!({"command": "hand_over", "from": "sky", "to": "sky"})).await, Code::ToItself);
        // Leads: given, listed, taken back.
        run(&hub, command(json!({"command": "set_lead", "lead": "moon", "members": ["sky"]}))).await.unwrap();
        assert_eq!(run(&hub, command(json!({"command": "leads"}))).await.unwrap()[0]["lead"], "moon");
        assert_eq!(run(&hub, command(json!({"command": "revoke_lead", "lead": "moon"}))).await.unwrap(), json!([]));
        // Each event the window had reads back as itself: another machine's hub reads this feed typed.
        while let Ok(sent) = feed.try_recv().map(|e| serde_json::to_value(e).unwrap()) {
            let read: clawmux_hub::ui_event::UiEvent = serde_json::from_value(sent.clone()).unwrap_or_else(|e| panic!("{sent}: {e}"));
            assert_eq!(serde_json::to_value(&read).unwrap(), sent);
        }
    });
    let made = MADE.lock().unwrap().clone();
    let never: Vec<CommandName> = CommandName::iter().filter(|c| !made.contains(c)).collect();
    assert!(never.is_empty(), "never dispatched: {never:?}");
}
