//! The hub's identity to push services (VAPID, RFC 8292): a P-256 key made once, kept in
//! `<data dir>/push-key` (0600 in the 0700 data folder), whose public half the phone gives its push
//! service when it subscribes; each push request carries a short-lived token signed with it (ES256), so the
//! push service takes pushes for that subscription from this hub alone.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};

/// The file of the key, in the data folder.
pub const KEY_FILE: &str = "push-key";

/// How long a signed token is good for (push services take up to 24 hours).
const TOKEN_SECONDS: u64 = 12 * 60 * 60;

/// The hub's VAPID key.
#[derive(Clone)]
pub struct Vapid {
    key: SigningKey,
}

impl std::fmt::Debug for Vapid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Vapid(..)")
    }
}

impl Vapid {
    /// The key kept in `data_dir`, made the first time (written whole, 0600, never replaced).
    pub fn load_or_create(data_dir: &Path) -> std::io::Result<Vapid> {
        let path = data_dir.join(KEY_FILE);
        if let Ok(text) = std::fs::read_to_string(&path) {
            let bytes = B64
                .decode(text.trim())
                .map_err(|e| std::io::Error::other(format!("{KEY_FILE} does not read: {e}")))?;
            let key = SigningKey::from_slice(&bytes)
                .map_err(|e| std::io::Error::other(format!("{KEY_FILE} is not a key: {e}")))?;
            return Ok(Vapid { key });
        }
        let key = SigningKey::from(super::encrypt::fresh_key());
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)?;
        file.write_all(B64.encode(key.to_bytes()).as_bytes())?;
        file.sync_all()?;
        Ok(Vapid { key })
    }

    /// The public key, as a phone's `applicationServerKey` (base64url of the uncompressed point).
    pub fn public_key(&self) -> String {
        B64.encode(self.key.verifying_key().to_encoded_point(false).as_bytes())
    }

    /// The `Authorization` header for a push to the push service at `audience` (its origin,
    /// `https://host[:port]`) at `now` (seconds since the epoch), naming `contact` as who runs the hub.
    pub fn authorization(&self, audience: &str, now: u64, contact: &str) -> String {
        let header = B64.encode(br#"{"typ":"JWT","alg":"ES256"}"#);
        let claims = serde_json::json!({
            "aud": audience,
            "exp": now + TOKEN_SECONDS,
            "sub": contact,
        });
        let claims = B64.encode(claims.to_string());
        let signed = format!("{header}.{claims}");
        let signature: Signature = self.key.sign(signed.as_bytes());
        format!(
            "vapid t={signed}.{}, k={}",
            B64.encode(signature.to_bytes()),
            self.public_key()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use p256::ecdsa::signature::Verifier;
    use p256::ecdsa::VerifyingKey;

    #[test]
    fn the_key_is_made_once_private_and_signs_tokens_its_public_half_verifies() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let first = Vapid::load_or_create(dir.path()).unwrap();
        let again = Vapid::load_or_create(dir.path()).unwrap();
        assert_eq!(
            first.public_key(),
            again.public_key(),
            "kept, not made again"
        );
        let mode = std::fs::metadata(dir.path().join(KEY_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);

        let header =
            first.authorization("https://push.example.net", 1_000, "mailto:me@example.com");
        let (t, k) = header
            .strip_prefix("vapid t=")
            .and_then(|rest| rest.split_once(", k="))
            .unwrap();
        assert_eq!(k, first.public_key());
        let (signed, signature) = t.rsplit_once('.').unwrap();
        let claims: serde_json::Value =
            serde_json::from_slice(&B64.decode(signed.split('.').nth(1).unwrap()).unwrap())
                .unwrap();
        assert_eq!(claims["aud"], "https://push.example.net");
        assert_eq!(claims["exp"], 1_000 + TOKEN_SECONDS);
        assert_eq!(claims["sub"], "mailto:me@example.com");
        let public = VerifyingKey::from_sec1_bytes(&B64.decode(k).unwrap()).unwrap();
        let signature = Signature::from_slice(&B64.decode(signature).unwrap()).unwrap();
        assert!(public.verify(signed.as_bytes(), &signature).is_ok());
    }

    #[test]
    fn a_damaged_key_file_is_an_error_not_a_new_key() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(KEY_FILE), "not a key").unwrap();
        assert!(Vapid::load_or_create(dir.path()).is_err());
    }
}
