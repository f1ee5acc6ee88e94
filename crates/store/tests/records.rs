//! The store's other records against a real SQLite file in a temporary folder: an original installation's
//! history imported, an agent's launch, usage per day, attachments kept with their message, phones.

#![allow(clippy::unwrap_used, missing_docs)]

use clawmux_core::wire::Kind;
use clawmux_core::Millis;
use clawmux_store::{NewMessage, Store, StoreError};

#[allow(dead_code)]
mod common;
use common::{fresh, user_to};

#[tokio::test]
async fn history_json_imports_once() {
    let (_dir, store) = fresh().await;
    let file = br#"{"voice_id":"af_sky","voice_name":"Sky","claude_session_id":"0b1c-uuid","messages":[
        {"role":"user","text":"hi","ts":1760000000.5,"id":"msg-0000aaaa"},
        {"role":"assistant","text":"hello","ts":1760000001,"id":"msg-0000aaab","parent_id":"msg-0000aaaa"},
        {"role":"assistant","text":"","ts":1760000002,"bare_ack":true,"parent_id":"msg-0000aaaa"},
        {"role":"system","text":"restarted","ts":"1760000003"},
        {"role":"assistant","text":"dangling","ts":1760000004,"parent_id":"msg-01234567"}
    ]}"#;
    let first = store
        .import_history("sky", "/w/sky", file, Millis(0))
        .await
        .unwrap();
    assert_eq!((first.created, first.skipped, first.unlinked), (5, 0, 1));
    let again = store
        .import_history("sky", "/w/sky", file, Millis(0))
        .await
        .unwrap();
    assert_eq!((again.created, again.skipped), (0, 5));
    let msgs = store.after(Some("sky"), None, 100).await.unwrap();
    assert_eq!(msgs.len(), 5);
    assert_eq!(msgs[0].id.as_str(), "msg-0000aaaa");
    assert_eq!(msgs[0].at, Millis(1_760_000_000_500));
    assert_eq!(msgs[1].parent.as_ref().unwrap().as_str(), "msg-0000aaaa");
    assert_eq!(msgs[2].kind, Kind::Ack);
    assert_eq!(msgs[3].kind, Kind::System);
    // History is not an inbox: nothing imported is handed to the agent.
    assert_eq!(store.pending("sky").await.unwrap(), 0);
    assert_eq!(
        store
            .agent("sky")
            .await
            .unwrap()
            .claude_session_id
            .as_deref(),
        Some("0b1c-uuid")
    );
    // A new agent is registered by the import.
    store
        .import_history("moon", "/w/moon", br#"{"messages":[]}"#, Millis(0))
        .await
        .unwrap();
    assert!(store.agent("moon").await.is_ok());
}

#[tokio::test]
async fn a_bad_history_json_changes_nothing() {
    let (_dir, store) = fresh().await;
    for bad in [
        &b"[]"[..],
        b"{\"messages\":[{\"role\":\"user\",\"text\":\"ok\",\"ts\":1},{\"role\":\"robot\",\"text\":\"x\",\"ts\":1}]}",
        b"{\"messages\":[{\"role\":\"user\",\"text\":\"x\",\"ts\":\"yesterday\"}]}",
        b"{\"messages\":[{\"role\":\"user\",\"text\":\"x\",\"ts\":1,\"id\":\"42\"}]}",
        b"{\"messages\":[{\"role\":\"user\",\"ts\":1}]}",
    ] {
        let err = store.import_history("fresh", "/w", bad, Millis(0)).await.unwrap_err();
        assert!(matches!(err, StoreError::Import(_)), "{err}");
    }
    assert!(matches!(
        store.agent("fresh").await,
        Err(StoreError::UnknownAgent(_))
    ));
    assert_eq!(store.head().await.unwrap(), 0);
}

#[tokio::test]
async fn a_launched_agent_keeps_its_launch_and_only_a_new_one_can_be_forgotten() {
    let (_dir, store) = fresh().await;
    let row = store
        .add_launched_agent("moon", "/w/moon", Some(r#"{"demo":true}"#), Millis(1))
        .await
        .unwrap();
    assert_eq!(row.launch.as_deref(), Some(r#"{"demo":true}"#));
    assert_eq!(
        store
            .add_agent("own", "/w/own", Millis(1))
            .await
            .unwrap()
            .launch,
        None
    );
    // Nothing happened to `own` yet: forgetting it undoes the registration.
    assert!(store.forget_new_agent("own").await.unwrap());
    assert!(matches!(
        store.agent("own").await,
        Err(StoreError::UnknownAgent(_))
    ));
    // `moon` has a message: it is never forgotten.
    store.append(&user_to("moon", "hello")).await.unwrap();
    assert!(!store.forget_new_agent("moon").await.unwrap());
    assert_eq!(store.agent("moon").await.unwrap().name, "moon");
}

#[tokio::test]
async fn usage_is_summed_per_day_and_agent_and_kept_across_a_reopen() {
    use clawmux_store::UsageDelta;
    let (dir, store) = fresh().await;
    let day = 86_400_000;
    let d = |cost, input, output| UsageDelta {
        cost,
        input,
        output,
    };
    // 2026-11-24T23:30Z and the next day's 00:30Z: two days in UTC, one day an hour west of it.
    let late = Millis(1_795_563_000_000);
    let early = Millis(late.0 + 3_600_000);
    store
        .append_usage("sky", late, d(0.5, 100, 10), "{\"a\":1}")
        .await
        .unwrap();
    store
        .append_usage("sky", early, d(0.25, 50, 5), "{\"a\":2}")
        .await
        .unwrap();
    store
        .append_usage("moon", early, d(1.0, 7, 1), "{\"b\":1}")
        .await
        .unwrap();
    let utc = store.usage_by_day(Millis(late.0 - day), 0).await.unwrap();
    let seen: Vec<_> = utc
        .iter()
        .map(|u| (u.day.as_str(), u.agent.as_str(), u.cost, u.input))
        .collect();
    assert_eq!(
        seen,
        [
            ("2026-11-24", "sky", 0.5, 100),
            ("2026-11-25", "moon", 1.0, 7),
            ("2026-11-25", "sky", 0.25, 50)
        ]
    );
    let west = store.usage_by_day(Millis(late.0 - day), -60).await.unwrap();
    assert_eq!(west.iter().filter(|u| u.agent == "sky").count(), 1);
    assert_eq!(west.iter().find(|u| u.agent == "sky").unwrap().input, 150);
    assert!(store
        .usage_by_day(Millis(early.0 + 1), 0)
        .await
        .unwrap()
        .is_empty());
    store.set_usage_continue("sky", true).await.unwrap();
    store.set_usage_continue("sky", true).await.unwrap();
    store.set_usage_continue("moon", true).await.unwrap();
    store.set_usage_continue("moon", false).await.unwrap();
    store.close().await;
    drop(store);
    let store = Store::open(&dir.path().join("clawmux.db")).await.unwrap();
    assert_eq!(store.usage_continues().await.unwrap(), ["sky"]);
    assert_eq!(
        store.latest_usage().await.unwrap(),
        [
            ("moon".to_owned(), "{\"b\":1}".to_owned()),
            ("sky".to_owned(), "{\"a\":2}".to_owned())
        ]
    );
    assert_eq!(store.usage_since(early).await.unwrap().len(), 2);
}

/// A message's files come back as they were stored, by id and in pages; a retry with its key and other
/// files is refused, not stored as the first message.
#[tokio::test]
async fn attachments_are_kept_with_their_message() {
    use clawmux_core::wire::{Attachment, AttachmentId, AttachmentKind};
    let (_dir, store) = fresh().await;
    let file = |hash: char, name: &str| Attachment {
        id: AttachmentId::new(&hash.to_string().repeat(64), Some("png")).unwrap(),
        name: name.into(),
        kind: AttachmentKind::Image,
        media_type: "image/png".into(),
        size: 42,
        path: format!("/data/attachments/{}.png", hash.to_string().repeat(64)),
    };
    let files = [file('a', "one.png"), file('b', "two.png")];
    let m = store
        .append(&NewMessage {
            attachments: &files,
            idem_key: Some("k1"),
            ..user_to("sky", "see")
        })
        .await
        .unwrap()
        .message;
    assert_eq!(m.attachments, files);
    let by_id = store.message(&m.id).await.unwrap().unwrap();
    assert_eq!(by_id.attachments, files);
    let page = store.latest("sky", 10).await.unwrap();
    assert_eq!(page.last().unwrap().attachments, files);
    let plain = store
        .append(&user_to("sky", "no files"))
        .await
        .unwrap()
        .message;
    assert!(store
        .message(&plain.id)
        .await
        .unwrap()
        .unwrap()
        .attachments
        .is_empty());
    let again = store
        .append(&NewMessage {
            attachments: &files,
            idem_key: Some("k1"),
            ..user_to("sky", "see")
        })
        .await
        .unwrap();
    assert!(!again.created);
    // Every file a message names, once each.
    store
        .append(&NewMessage {
            attachments: &files[1..],
            ..user_to("sky", "this one too")
        })
        .await
        .unwrap();
    let named = store.attachment_ids().await.unwrap();
    assert_eq!(
        named,
        files.iter().map(|f| f.id.to_string()).collect(),
        "{named:?}"
    );
    assert!(matches!(
        store
            .append(&NewMessage {
                attachments: &files[..1],
                idem_key: Some("k1"),
                ..user_to("sky", "see")
            })
            .await,
        Err(StoreError::KeyReused(_))
    ));
}

/// Phones: off until turned on; a phone found by its token's hash only, its use and revocation kept.
#[tokio::test]
async fn phones_are_found_by_their_tokens_hash_and_revoked_for_good() {
    let (_dir, store) = fresh().await;
    assert!(!store.phones_on().await.unwrap());
    store.set_phones_on(true).await.unwrap();
    assert!(store.phones_on().await.unwrap());
    assert_eq!(store.phone_address().await.unwrap(), None);
    store.set_phone_address(Some("{\"at\":1}")).await.unwrap();
    assert_eq!(
        store.phone_address().await.unwrap().as_deref(),
        Some("{\"at\":1}")
    );
    store.set_phone_address(None).await.unwrap();
    assert_eq!(store.phone_address().await.unwrap(), None);
    assert_eq!(store.push_contact().await.unwrap(), None);
    store
        .set_push_contact(Some("mailto:me@example.com"))
        .await
        .unwrap();
    assert_eq!(
        store.push_contact().await.unwrap().as_deref(),
        Some("mailto:me@example.com")
    );
    let added = store
        .add_phone("p1", "Pixel", &[7; 32], Millis(5))
        .await
        .unwrap();
    store
        .add_phone("p2", "iPhone", &[8; 32], Millis(6))
        .await
        .unwrap();
    assert!(
        store
            .add_phone("p3", "Copy", &[7; 32], Millis(7))
            .await
            .is_err(),
        "one token, one phone"
    );
    assert_eq!(store.phone_by_token(&[7; 32]).await.unwrap(), Some(added));
    assert_eq!(store.phone_by_token(&[9; 32]).await.unwrap(), None);
    assert_eq!(
        store.phone("p2").await.unwrap().map(|p| p.name),
        Some("iPhone".into())
    );
    assert_eq!(store.phone("p9").await.unwrap(), None);
    store.phone_used("p1", Millis(10)).await.unwrap();
    assert!(store.revoke_phone("p1", Millis(11)).await.unwrap());
    assert!(store.revoke_phone("p1", Millis(12)).await.unwrap());
    assert!(!store.revoke_phone("nope", Millis(12)).await.unwrap());
    let phones = store.phones().await.unwrap();
    assert_eq!(
        phones.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(),
        ["p2", "p1"]
    );
    assert_eq!(
        (phones[1].used_at, phones[1].revoked_at),
        (Some(Millis(10)), Some(Millis(11)))
    );
}
