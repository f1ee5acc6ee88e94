use std::os::unix::fs::PermissionsExt;

use clawmux_core::wire::{AttachmentKind, AttachmentRef, Code, MAX_ATTACHMENT, MAX_ATTACHMENTS};

use super::{Attachments, UNSENT_KEPT_FOR};
use clawmux_store::Store;

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR and the rest";

/// The files kept under `dir`, with a store of their own there.
async fn kept_in(dir: &tempfile::TempDir) -> Attachments {
    let store = Store::open(&dir.path().join("db.sqlite")).await.unwrap();
    Attachments::new(dir.path(), store)
}

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test]
async fn a_file_is_kept_once_by_content_and_private() {
    let dir = tempfile::tempdir().unwrap();
    let files = kept_in(&dir).await;
    let a = files.keep("Screenshot 1.png", PNG.to_vec()).await.unwrap();
    assert_eq!(a.kind, AttachmentKind::Image);
    assert_eq!(a.media_type, "image/png");
    assert_eq!(a.size, PNG.len() as u64);
    assert!(a.id.as_str().ends_with(".png"));
    assert_eq!(std::fs::read(&a.path).unwrap(), PNG);
    assert_eq!(mode(files.folder()), 0o700);
    assert_eq!(mode(std::path::Path::new(&a.path)), 0o600);
    // The same bytes under another name: the same file, named as the user named it this time.
    let b = files.keep("again.png", PNG.to_vec()).await.unwrap();
    assert_eq!((b.id, b.name.as_str()), (a.id.clone(), "again.png"));
    let kept: Vec<_> = std::fs::read_dir(files.folder()).unwrap().collect();
    assert_eq!(kept.len(), 1, "one file, no temporary left");
    // A send naming it finds what it is again, under the name given then.
    let found = files
        .resolve(&[AttachmentRef {
            id: a.id.clone(),
            name: "shown.png".into(),
        }])
        .await
        .unwrap();
    assert_eq!(found[0].name, "shown.png");
    assert_eq!(
        (found[0].kind, found[0].size),
        (AttachmentKind::Image, a.size)
    );
    assert_eq!(found[0].path, a.path);
}

#[tokio::test]
async fn bad_files_are_refused_with_the_reason_and_nothing_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let files = kept_in(&dir).await;
    let code =
        |r: Result<clawmux_core::wire::Attachment, crate::error::HubError>| r.unwrap_err().code;
    assert_eq!(
        code(files.keep("empty.txt", Vec::new()).await),
        Code::BadAttachment
    );
    let big = vec![b'a'; usize::try_from(MAX_ATTACHMENT).unwrap() + 1];
    let too_big = files.keep("big.log", big).await.unwrap_err();
    assert_eq!(too_big.code, Code::AttachmentTooLarge);
    assert!(too_big.message.contains("20.0 MB"), "{}", too_big.message);
    assert_eq!(
        code(files.keep("fake.png", b"hello".to_vec()).await),
        Code::BadAttachment
    );
    assert_eq!(
        code(files.keep("x.heic", b"\0\0\0\x18ftypheic".to_vec()).await),
        Code::BadAttachment
    );
    assert!(!files.folder().exists(), "nothing kept");
}

#[tokio::test]
async fn a_send_naming_a_file_not_kept_or_too_many_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let files = kept_in(&dir).await;
    let a = files.keep("notes.md", b"# notes\n".to_vec()).await.unwrap();
    assert_eq!(a.kind, AttachmentKind::Text);
    let r = AttachmentRef {
        id: a.id.clone(),
        name: "notes.md".into(),
    };
    let many = vec![r.clone(); MAX_ATTACHMENTS + 1];
    assert_eq!(
        files.resolve(&many).await.unwrap_err().code,
        Code::BadAttachment
    );
    // The file vanished since it was attached.
    std::fs::remove_file(&a.path).unwrap();
    let gone = files.resolve(std::slice::from_ref(&r)).await.unwrap_err();
    assert_eq!(gone.code, Code::UnknownAttachment);
    // A link put in its place is not followed.
    std::os::unix::fs::symlink("/etc/passwd", &a.path).unwrap();
    assert_eq!(
        files.resolve(&[r]).await.unwrap_err().code,
        Code::UnknownAttachment
    );
}

/// Sets a file's time back to `when`.
fn backdate(path: impl AsRef<std::path::Path>, when: std::time::SystemTime) {
    let file = std::fs::File::options().append(true).open(path).unwrap();
    file.set_modified(when).unwrap();
}

/// Stores a message from the user to `sky` naming `file`.
async fn send(files: &Attachments, file: &clawmux_core::wire::Attachment) {
    use clawmux_core::Millis;
    files.store.add_agent("sky", "/w", Millis(1)).await.unwrap();
    let message = clawmux_store::NewMessage {
        agent: "sky",
        kind: clawmux_core::wire::Kind::User,
        sender: "user",
        recipient: Some("sky"),
        text: "see",
        parent: None,
        voice: false,
        aloud: false,
        attachments: std::slice::from_ref(file),
        idem_key: None,
        at: Millis(10),
    };
    files.store.append(&message).await.unwrap();
}

#[tokio::test]
async fn a_file_no_message_names_goes_after_a_week_and_one_named_stays() {
    use std::time::{Duration, SystemTime};
    let dir = tempfile::tempdir().unwrap();
    let files = kept_in(&dir).await;
    let sent = files.keep("sent.png", PNG.to_vec()).await.unwrap();
    let unsent = files
        .keep("unsent.txt", b"never sent".to_vec())
        .await
        .unwrap();
    let fresh = files
        .keep("fresh.txt", b"just added".to_vec())
        .await
        .unwrap();
    let again = files
        .keep("again.txt", b"added twice".to_vec())
        .await
        .unwrap();
    let crashed = files.folder().join(".abc.0000");
    std::fs::write(&crashed, b"half").unwrap();
    send(&files, &sent).await;
    let old = SystemTime::now() - UNSENT_KEPT_FOR - Duration::from_secs(60);
    for path in [&sent.path, &unsent.path, &again.path] {
        backdate(path, old);
    }
    backdate(&crashed, old);
    // Kept again a moment ago (the user attached the same file once more): its week starts again.
    files
        .keep("again.txt", b"added twice".to_vec())
        .await
        .unwrap();

    let mut removed = files.sweep(SystemTime::now()).await.unwrap();
    removed.sort();
    assert_eq!(removed, [".abc.0000".to_owned(), unsent.id.to_string()]);
    for kept in [&sent, &fresh, &again] {
        assert!(
            std::path::Path::new(&kept.path).exists(),
            "{} kept",
            kept.name
        );
    }
    let gone = AttachmentRef {
        id: unsent.id.clone(),
        name: "unsent.txt".into(),
    };
    let refused = files.resolve(&[gone]).await.unwrap_err();
    assert_eq!(refused.code, Code::UnknownAttachment);
    // Nothing is old enough a day before.
    let earlier = SystemTime::now() - Duration::from_secs(86_400 * 8);
    assert!(files.sweep(earlier).await.unwrap().is_empty());
}
