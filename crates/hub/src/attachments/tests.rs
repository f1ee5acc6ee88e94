use std::os::unix::fs::PermissionsExt;

use clawmux_core::wire::{AttachmentKind, AttachmentRef, Code, MAX_ATTACHMENT, MAX_ATTACHMENTS};

use super::Attachments;

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR and the rest";

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test]
async fn a_file_is_kept_once_by_content_and_private() {
    let dir = tempfile::tempdir().unwrap();
    let files = Attachments::new(dir.path());
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
    let files = Attachments::new(dir.path());
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
    let files = Attachments::new(dir.path());
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
