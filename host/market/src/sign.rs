//! ed25519 signatures over packages.
//!
//! What is signed is the 32 raw bytes of the archive's SHA-256 digest (not its hex
//! text, not the archive itself): the digest already commits to every byte of the
//! archive, whose `plugin.toml` names the plugin and version, and install checks
//! those against the index entry. Keys and signatures are written as hex: a public
//! key is 64 hex digits (in `[marketplace] keys`), a signature 128 (in the index).
//! A signing key file holds the 32-byte secret seed as 64 hex digits, e.g. made
//! with `openssl rand -hex 32 > ward-signing.key`.

use std::path::Path;

use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};

use crate::MarketError;

/// A signing key read from a file.
pub struct Key(SigningKey);

impl Key {
    /// Reads the hex seed in `path`.
    pub fn read(path: &Path) -> Result<Key, MarketError> {
        let bad = |message: &str| MarketError::Key {
            path: path.to_path_buf(),
            message: message.to_owned(),
        };
        let text = std::fs::read_to_string(path).map_err(MarketError::io(path))?;
        let seed: [u8; 32] = hex::decode(text.trim())
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| bad("expected a 32-byte secret seed as 64 hexadecimal digits"))?;
        Ok(Key(SigningKey::from_bytes(&seed)))
    }

    /// A key from a seed (for tests and tools).
    pub fn from_seed(seed: [u8; 32]) -> Key {
        Key(SigningKey::from_bytes(&seed))
    }

    /// The public key, 64 hex digits, for `[marketplace] keys`.
    pub fn public_hex(&self) -> String {
        hex::encode(self.0.verifying_key().to_bytes())
    }

    /// Signs the archive whose SHA-256 is `sha256_hex`; the signature as 128 hex
    /// digits. `None` when `sha256_hex` is not a digest.
    pub fn sign(&self, sha256_hex: &str) -> Option<String> {
        let digest: [u8; 32] = hex::decode(sha256_hex).ok()?.try_into().ok()?;
        Some(hex::encode(self.0.sign(&digest).to_bytes()))
    }
}

/// Why a package signature was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// The digest given is not a SHA-256 in hex.
    #[error("the archive digest is not 32 bytes")]
    Digest,
    /// The signature is not an ed25519 signature in hex.
    #[error("the signature is not 64 bytes of hex")]
    Signature,
    /// There is no key to check it with.
    #[error("no trusted keys are configured ([marketplace] keys in ward.toml)")]
    NoKeys,
    /// No trusted key made it.
    #[error("the signature does not verify with any trusted key")]
    Untrusted,
}

/// Checks `signature` (hex) over the archive digest `sha256_hex` against the
/// trusted `keys` (hex); `Ok` with the key that verified it, else why not.
pub fn verify(keys: &[String], sha256_hex: &str, signature: &str) -> Result<String, VerifyError> {
    let digest: [u8; 32] = hex::decode(sha256_hex)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or(VerifyError::Digest)?;
    let signature: [u8; 64] = hex::decode(signature)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or(VerifyError::Signature)?;
    let signature = Signature::from_bytes(&signature);
    if keys.is_empty() {
        return Err(VerifyError::NoKeys);
    }
    for key in keys {
        let Some(bytes) = hex::decode(key)
            .ok()
            .and_then(|b| <[u8; 32]>::try_from(b).ok())
        else {
            continue;
        };
        let Ok(public) = VerifyingKey::from_bytes(&bytes) else {
            continue;
        };
        if public.verify(&digest, &signature).is_ok() {
            return Ok(key.clone());
        }
    }
    Err(VerifyError::Untrusted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::sha256_hex;

    #[test]
    fn a_signature_verifies_only_with_its_key_and_digest() {
        let key = Key::from_seed([7; 32]);
        let other = Key::from_seed([8; 32]);
        let digest = sha256_hex(b"archive");
        let sig = key.sign(&digest).unwrap();
        assert_eq!(sig.len(), 128);
        assert_eq!(
            verify(&[other.public_hex(), key.public_hex()], &digest, &sig),
            Ok(key.public_hex())
        );
        assert!(verify(&[other.public_hex()], &digest, &sig).is_err());
        let tampered = sha256_hex(b"archive!");
        let untrusted = verify(&[key.public_hex()], &tampered, &sig);
        assert_eq!(untrusted, Err(VerifyError::Untrusted));
        assert_eq!(
            untrusted.unwrap_err().to_string(),
            "the signature does not verify with any trusted key"
        );
        assert_eq!(verify(&[], &digest, &sig), Err(VerifyError::NoKeys));
        assert_eq!(
            verify(&[key.public_hex()], "abc", &sig),
            Err(VerifyError::Digest)
        );
        assert_eq!(
            verify(&[key.public_hex()], &digest, "zz"),
            Err(VerifyError::Signature)
        );
        assert!(key.sign("nothex").is_none());
    }

    #[test]
    fn key_files_hold_a_hex_seed() {
        let dir = std::env::temp_dir().join(format!("ward-market-key-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("k");
        std::fs::write(&file, format!("{}\n", hex::encode([7u8; 32]))).unwrap();
        assert_eq!(
            Key::read(&file).unwrap().public_hex(),
            Key::from_seed([7; 32]).public_hex()
        );
        std::fs::write(&file, "zz").unwrap();
        let e = Key::read(&file)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            e.ends_with("expected a 32-byte secret seed as 64 hexadecimal digits"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
