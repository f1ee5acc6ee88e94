//! Message Encryption for Web Push (RFC 8291, over RFC 8188's `aes128gcm`): what a push carries is
//! readable by the phone alone, never by the push service that delivers it.
//!
//! Per message a fresh key pair of the hub's; its Diffie-Hellman secret with the phone's key, mixed with
//! the phone's authentication secret (HKDF-SHA256), gives the content key and nonce; the message is one
//! AES-128-GCM record. Checked byte for byte against the RFC's example (Appendix A).

use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes128Gcm, Nonce};
use hkdf::Hkdf;
use p256::elliptic_curve::sec1::ToEncodedPoint;
use p256::{PublicKey, SecretKey};
use sha2::Sha256;

/// The record size said in the header: one record holds any message the hub sends.
const RECORD_SIZE: u32 = 4096;

/// Why a message cannot be encrypted for a phone: its subscription's keys are not keys.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadKeys {
    /// `p256dh` is not an uncompressed P-256 point.
    #[error("the phone's public key is not a P-256 point")]
    PublicKey,
    /// `auth` is not 16 bytes.
    #[error("the phone's authentication secret is not 16 bytes")]
    Auth,
    /// The message does not fit a record.
    #[error("the message is too long for one push")]
    TooLong,
}

/// A fresh secret key (the hub's half of one message's key agreement).
pub fn fresh_key() -> SecretKey {
    loop {
        let mut bytes = [0u8; 32];
        if getrandom::fill(&mut bytes).is_ok() {
            if let Ok(key) = SecretKey::from_slice(&bytes) {
                return key;
            }
        }
    }
}

/// `plaintext` encrypted for the phone whose subscription keys are `ua_public` (65 bytes) and `auth`
/// (16), with the hub's key `as_secret` and `salt` (both fresh for every message): the body of the
/// push request.
pub fn encrypt(
    plaintext: &[u8],
    ua_public: &[u8],
    auth: &[u8],
    as_secret: &SecretKey,
    salt: &[u8; 16],
) -> Result<Vec<u8>, BadKeys> {
    let ua = PublicKey::from_sec1_bytes(ua_public).map_err(|_| BadKeys::PublicKey)?;
    if ua_public.len() != 65 {
        return Err(BadKeys::PublicKey);
    }
    if auth.len() != 16 {
        return Err(BadKeys::Auth);
    }
    if plaintext.len() + 1 + 16 > RECORD_SIZE as usize {
        return Err(BadKeys::TooLong);
    }
    let as_public = as_secret.public_key().to_encoded_point(false);
    let shared = p256::ecdh::diffie_hellman(as_secret.to_nonzero_scalar(), ua.as_affine());
    // The input keying material: the shared secret, keyed by the phone's secret and both public keys.
    let mut key_info = b"WebPush: info\0".to_vec();
    key_info.extend_from_slice(ua_public);
    key_info.extend_from_slice(as_public.as_bytes());
    let mut ikm = [0u8; 32];
    expand(auth, shared.raw_secret_bytes(), &key_info, &mut ikm);
    // The content key and nonce (RFC 8188), from this message's salt.
    let mut cek = [0u8; 16];
    let mut nonce = [0u8; 12];
    expand(salt, &ikm, b"Content-Encoding: aes128gcm\0", &mut cek);
    expand(salt, &ikm, b"Content-Encoding: nonce\0", &mut nonce);
    // One record, the last: the message and its delimiter (0x02), no padding.
    let mut record = plaintext.to_vec();
    record.push(2);
    let cipher = Aes128Gcm::new_from_slice(&cek).map_err(|_| BadKeys::Auth)?;
    let sealed = cipher
        .encrypt(Nonce::from_slice(&nonce), record.as_slice())
        .map_err(|_| BadKeys::TooLong)?;
    let mut body = Vec::with_capacity(16 + 4 + 1 + 65 + sealed.len());
    body.extend_from_slice(salt);
    body.extend_from_slice(&RECORD_SIZE.to_be_bytes());
    body.push(65);
    body.extend_from_slice(as_public.as_bytes());
    body.extend_from_slice(&sealed);
    Ok(body)
}

/// HKDF-SHA256: extract with `salt` from `ikm`, then expand `info` into `out`.
fn expand(salt: &[u8], ikm: &[u8], info: &[u8], out: &mut [u8]) {
    // The lengths asked for (12, 16, 32) are far under HKDF's limit: expanding cannot fail.
    let _ = Hkdf::<Sha256>::new(Some(salt), ikm).expand(info, out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
    use base64::Engine;

    fn d(s: &str) -> Vec<u8> {
        B64.decode(s).unwrap()
    }

    /// RFC 8291, Appendix A: the same keys and salt give the same body, byte for byte.
    #[test]
    fn the_rfcs_example_encrypts_to_the_rfcs_body() {
        let as_secret =
            SecretKey::from_slice(&d("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw")).unwrap();
        let ua_public = d("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4");
        let salt: [u8; 16] = d("DGv6ra1nlYgDCS1FRnbzlw").try_into().unwrap();
        let body = encrypt(
            b"When I grow up, I want to be a watermelon",
            &ua_public,
            &d("BTBZMqHH6r4Tts7J_aSIgg"),
            &as_secret,
            &salt,
        )
        .unwrap();
        assert_eq!(
            B64.encode(body),
            "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
        );
    }

    #[test]
    fn keys_that_are_not_keys_are_refused() {
        let key = fresh_key();
        let good = key.public_key().to_encoded_point(false);
        let salt = [0u8; 16];
        assert_eq!(
            encrypt(b"x", &[4; 65], &[0; 16], &key, &salt),
            Err(BadKeys::PublicKey)
        );
        assert_eq!(
            encrypt(b"x", good.as_bytes(), &[0; 15], &key, &salt),
            Err(BadKeys::Auth)
        );
        let long = vec![b'x'; 5000];
        assert_eq!(
            encrypt(&long, good.as_bytes(), &[0; 16], &key, &salt),
            Err(BadKeys::TooLong)
        );
        assert!(encrypt(b"x", good.as_bytes(), &[0; 16], &key, &salt).is_ok());
    }
}
