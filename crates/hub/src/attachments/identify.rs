//! What a file is, from its bytes: the hub decides, not the name or the type a client claims, because the
//! agent's Claude Code decides by the extension whether to hand a file to the model as an image, and an
//! image the model cannot decode fails the agent's turn.

use clawmux_core::wire::AttachmentKind;

/// What a file was found to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identified {
    /// To the model.
    pub kind: AttachmentKind,
    /// Its media type.
    pub media_type: &'static str,
    /// The extension it is kept under.
    pub ext: Option<String>,
}

/// The image formats the model takes: magic bytes, media type, the extension kept, and the extensions a
/// name may give one of them.
const IMAGES: [(&[u8], &str, &str, &[&str]); 4] = [
    (b"\x89PNG\r\n\x1a\n", "image/png", "png", &["png"]),
    (b"\xff\xd8\xff", "image/jpeg", "jpg", &["jpg", "jpeg"]),
    (b"GIF8", "image/gif", "gif", &["gif"]),
    (b"RIFF", "image/webp", "webp", &["webp"]),
];

/// Image formats a name may claim that the model cannot take.
const OTHER_IMAGES: [&str; 9] = [
    "bmp", "tif", "tiff", "heic", "heif", "avif", "ico", "jxl", "raw",
];

/// The longest extension kept from a name.
const MAX_EXT: usize = 10;

/// What `bytes`, named `name`, are; or why the model could not take them (an image in a format it does not
/// read, or a name that claims an image the bytes are not).
pub fn identify(name: &str, bytes: &[u8]) -> Result<Identified, String> {
    let ext = extension(name);
    for (magic, media_type, kept, _) in IMAGES {
        let webp_ok = media_type != "image/webp" || bytes.get(8..12) == Some(b"WEBP");
        if bytes.starts_with(magic) && webp_ok {
            return Ok(Identified {
                kind: AttachmentKind::Image,
                media_type,
                ext: Some(kept.to_owned()),
            });
        }
    }
    if let Some(ext) = ext.as_deref() {
        if let Some((_, media_type, _, _)) = IMAGES.iter().find(|i| i.3.contains(&ext)) {
            return Err(format!(
                "`{name}` is named as {media_type} but is not one: the model could not read it as an image"
            ));
        }
        if OTHER_IMAGES.contains(&ext) {
            return Err(format!(
                "the model takes PNG, JPEG, GIF and WebP images; convert `{name}` to one of them"
            ));
        }
    }
    if bytes.starts_with(b"%PDF-") {
        return Ok(Identified {
            kind: AttachmentKind::File,
            media_type: "application/pdf",
            ext: Some("pdf".to_owned()),
        });
    }
    if !bytes.contains(&0) && std::str::from_utf8(bytes).is_ok() {
        return Ok(Identified {
            kind: AttachmentKind::Text,
            media_type: "text/plain",
            ext: Some(ext.unwrap_or_else(|| "txt".to_owned())),
        });
    }
    Ok(Identified {
        kind: AttachmentKind::File,
        media_type: "application/octet-stream",
        ext,
    })
}

/// The media type of a kept image, by the extension its id was given when it was found to be one; none
/// for any other file.
pub fn image_type(ext: Option<&str>) -> Option<&'static str> {
    IMAGES
        .iter()
        .find(|i| Some(i.2) == ext)
        .map(|(_, media_type, _, _)| *media_type)
}

/// A name's extension, lowercased, when it is a plain one (letters and digits, at most ten).
fn extension(name: &str) -> Option<String> {
    let (stem, ext) = name.rsplit_once('.')?;
    let ext = ext.to_ascii_lowercase();
    let plain = !stem.is_empty()
        && (1..=MAX_EXT).contains(&ext.len())
        && ext
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    plain.then_some(ext)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

    #[test]
    fn images_are_known_by_their_bytes_whatever_their_name() {
        let png = identify("screenshot", PNG).unwrap();
        assert_eq!(png.kind, AttachmentKind::Image);
        assert_eq!(
            (png.media_type, png.ext.as_deref()),
            ("image/png", Some("png"))
        );
        let jpeg = identify("photo.JPEG", b"\xff\xd8\xff\xe0rest").unwrap();
        assert_eq!(
            (jpeg.media_type, jpeg.ext.as_deref()),
            ("image/jpeg", Some("jpg"))
        );
        assert_eq!(
            identify("a.gif", b"GIF89a..").unwrap().media_type,
            "image/gif"
        );
        assert_eq!(
            identify("a", b"RIFF\0\0\0\0WEBPVP8 ").unwrap().media_type,
            "image/webp"
        );
        // RIFF alone is a WAV or an AVI, not an image.
        assert_eq!(
            identify("a.wav", b"RIFF\0\0\0\0WAVEfmt ").unwrap().kind,
            AttachmentKind::File
        );
    }

    #[test]
    fn kept_images_are_served_as_what_they_are_and_nothing_else_is() {
        assert_eq!(image_type(Some("png")), Some("image/png"));
        assert_eq!(image_type(Some("jpg")), Some("image/jpeg"));
        assert_eq!(image_type(Some("html")), None);
        assert_eq!(image_type(None), None);
    }

    #[test]
    fn an_image_the_model_cannot_take_is_refused_with_the_reason() {
        let fake = identify("shot.png", b"not a png at all").unwrap_err();
        assert!(fake.contains("not one"), "{fake}");
        let heic = identify("IMG_0001.HEIC", b"\0\0\0\x18ftypheic").unwrap_err();
        assert!(heic.contains("PNG, JPEG, GIF and WebP"), "{heic}");
    }

    #[test]
    fn text_and_other_files_keep_a_plain_extension() {
        let log = identify("build.log", b"error: it broke\n").unwrap();
        assert_eq!(
            (log.kind, log.ext.as_deref()),
            (AttachmentKind::Text, Some("log"))
        );
        assert_eq!(
            identify("notes", b"plain").unwrap().ext.as_deref(),
            Some("txt")
        );
        let pdf = identify("spec", b"%PDF-1.7\n\0\xff").unwrap();
        assert_eq!(
            (pdf.media_type, pdf.ext.as_deref()),
            ("application/pdf", Some("pdf"))
        );
        let bin = identify("core.dump", b"\x7fELF\0\0\xff").unwrap();
        assert_eq!(
            (bin.kind, bin.ext.as_deref()),
            (AttachmentKind::File, Some("dump"))
        );
        assert_eq!(identify("x.tar.g/z", b"\0\xff").unwrap().ext, None);
        assert_eq!(identify(".bashrc", b"\0\xff").unwrap().ext, None);
        assert_eq!(identify("a.sh;rm", b"\0\xff").unwrap().ext, None);
    }
}
