//! The certificate the hub serves phones with, where it listens for them beyond loopback (`address.rs`).
//!
//! The user's own, read from their PEM files (a key another user could read is refused, as `ssh`
//! refuses such a key); or, with none given, one the app makes for the address and its name (ECDSA P-256,
//! rcgen), kept in `<data dir>/phone-tls/` (0600 files in a 0700 folder) and made again only when the
//! names it must cover change. A phone's browser does not know the app's certificate: it warns once, and
//! the user compares the fingerprint the window shows with the one the browser shows before going on.
//! TLS itself is rustls with the ring provider the hub already uses for its own HTTPS requests.

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use sha2::{Digest, Sha256};

use super::address::PhoneAddress;
use crate::error::HubError;

/// The app's own certificate's folder in the data folder.
pub const FOLDER: &str = "phone-tls";

/// A certificate ready to serve.
pub struct Certified {
    /// The server's TLS configuration (HTTP/1.1, the hub's only protocol).
    pub config: Arc<rustls::ServerConfig>,
    /// The SHA-256 fingerprint of a certificate the app made, as browsers show it (`AB:CD:...`); `None`
    /// for the user's own.
    pub made_here: Option<String>,
}

/// The certificate for `address`: the user's files, or the app's own (made now if need be) kept in
/// `data_dir`. Refused with why: a file missing or not PEM, a key others can read, a key that is not the
/// certificate's.
pub fn certify(address: &PhoneAddress, data_dir: &Path) -> Result<Certified, HubError> {
    let (chain, key, made_here) = match &address.certificate {
        Some(files) => {
            let chain = read_chain(&files.cert)?;
            let key = read_key(&files.key)?;
            (chain, key, None)
        }
        None => {
            let (chain, key) = made_here(address, data_dir)?;
            let fingerprint = chain.first().map(|c| fingerprint(c));
            (chain, key, fingerprint)
        }
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| bad(format!("no TLS: {e}")))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| {
            bad(format!(
                "the key is not the certificate's, or not usable: {e}"
            ))
        })?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Certified {
        config: Arc::new(config),
        made_here,
    })
}

/// The SHA-256 fingerprint of a certificate, as browsers show it: uppercase hex pairs joined by colons.
pub fn fingerprint(cert: &CertificateDer<'_>) -> String {
    Sha256::digest(cert.as_ref())
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(":")
}

fn read_chain(path: &Path) -> Result<Vec<CertificateDer<'static>>, HubError> {
    let chain = CertificateDer::pem_file_iter(path)
        .and_then(Iterator::collect::<Result<Vec<_>, _>>)
        .map_err(|e| {
            bad(format!(
                "cannot read the certificate {}: {e}",
                path.display()
            ))
        })?;
    if chain.is_empty() {
        return Err(bad(format!("{} holds no certificate", path.display())));
    }
    Ok(chain)
}

fn read_key(path: &Path) -> Result<PrivateKeyDer<'static>, HubError> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path)
        .map_err(|e| bad(format!("cannot read the key {}: {e}", path.display())))?;
    if meta.mode() & 0o077 != 0 || meta.uid() != rustix::process::getuid().as_raw() {
        return Err(bad(format!(
            "the key {} can be read by other users, or is not yours: `chmod 600` it (and own it)",
            path.display()
        )));
    }
    PrivateKeyDer::from_pem_file(path)
        .map_err(|e| bad(format!("cannot read the key {}: {e}", path.display())))
}

/// The names the app's certificate covers: the name phones use, and the address.
fn names(address: &PhoneAddress) -> Vec<String> {
    let mut names: Vec<String> = address
        .name
        .iter()
        .map(|n| n.to_ascii_lowercase())
        .collect();
    names.push(address.listen.ip().to_string());
    names
}

/// The app's own certificate for `address`, kept in `data_dir`, made (again) when missing or when it
/// covers other names.
fn made_here(
    address: &PhoneAddress,
    data_dir: &Path,
) -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>), HubError> {
    let dir = data_dir.join(FOLDER);
    let (cert_file, key_file, names_file) =
        (dir.join("cert.pem"), dir.join("key.pem"), dir.join("names"));
    let wanted = names(address).join("\n");
    let kept = std::fs::read_to_string(&names_file).ok();
    if kept.as_deref() == Some(wanted.as_str()) {
        if let (Ok(chain), Ok(key)) = (read_chain(&cert_file), read_key(&key_file)) {
            return Ok((chain, key));
        }
    }
    let cannot = |e: &dyn std::fmt::Display| {
        HubError::new(
            clawmux_core::wire::Code::Internal,
            format!("cannot make the phones' certificate: {e}"),
        )
    };
    let made = rcgen::generate_simple_self_signed(names(address)).map_err(|e| cannot(&e))?;
    let key_pem = made.signing_key.serialize_pem();
    let cert_pem = made.cert.pem();
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .map_err(|e| cannot(&e))?;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| cannot(&e))?;
    }
    // The names last: a folder left half-written (a crash between) is made again next time.
    let _ = std::fs::remove_file(&names_file);
    for (file, text) in [
        (&key_file, &key_pem),
        (&cert_file, &cert_pem),
        (&names_file, &wanted),
    ] {
        crate::config::write_private(file, text.as_bytes()).map_err(|e| cannot(&e))?;
    }
    tracing::info!(names = %wanted.replace('\n', " "), "made a certificate for the phones");
    let key = PrivateKeyDer::Pkcs8(made.signing_key.serialize_der().into());
    Ok((vec![made.cert.der().clone()], key))
}

/// A phone address whose TLS cannot be had, refused as the address's own rules refuse one.
fn bad(why: impl Into<String>) -> HubError {
    super::address::bad(why).into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phone::address::CertificateFiles;
    use std::os::unix::fs::PermissionsExt;

    fn at(name: Option<&str>) -> PhoneAddress {
        PhoneAddress {
            listen: "100.64.0.7:3461".parse().unwrap(),
            name: name.map(str::to_owned),
            certificate: None,
        }
    }

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn the_apps_certificate_is_kept_private_and_made_again_only_for_other_names() {
        let dir = tempfile::tempdir().unwrap();
        let first = certify(&at(Some("desk.ts.net")), dir.path()).unwrap();
        let print = first.made_here.clone().unwrap();
        assert_eq!(print.len(), 32 * 3 - 1);
        let folder = dir.path().join(FOLDER);
        assert_eq!(mode(&folder), 0o700);
        for file in ["cert.pem", "key.pem", "names"] {
            assert_eq!(mode(&folder.join(file)), 0o600, "{file}");
        }
        let again = certify(&at(Some("desk.ts.net")), dir.path()).unwrap();
        assert_eq!(again.made_here, Some(print.clone()), "kept across restarts");
        let renamed = certify(&at(Some("other.ts.net")), dir.path()).unwrap();
        assert_ne!(renamed.made_here, Some(print), "made again for a new name");
    }

    #[test]
    fn the_users_certificate_is_served_and_a_key_others_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let made = rcgen::generate_simple_self_signed(vec!["desk.ts.net".to_owned()]).unwrap();
        let (cert, key) = (dir.path().join("c.pem"), dir.path().join("k.pem"));
        std::fs::write(&cert, made.cert.pem()).unwrap();
        std::fs::write(&key, made.signing_key.serialize_pem()).unwrap();
        let mine = PhoneAddress {
            certificate: Some(CertificateFiles {
                cert: cert.clone(),
                key: key.clone(),
            }),
            ..at(Some("desk.ts.net"))
        };
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
        let open = certify(&mine, dir.path()).err().unwrap();
        assert!(open.message.contains("chmod 600"), "{}", open.message);
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
        let served = certify(&mine, dir.path()).unwrap();
        assert_eq!(served.made_here, None);
        assert!(!dir.path().join(FOLDER).exists(), "nothing made");
        // Another key than the certificate's.
        let other = rcgen::generate_simple_self_signed(vec!["x.net".to_owned()]).unwrap();
        std::fs::write(&key, other.signing_key.serialize_pem()).unwrap();
        let mismatched = certify(&mine, dir.path()).err().unwrap();
        assert!(
            mismatched.message.contains("not the certificate's"),
            "{}",
            mismatched.message
        );
        // Not PEM at all.
        std::fs::write(&cert, "hello").unwrap();
        assert!(certify(&mine, dir.path()).is_err());
    }
}
