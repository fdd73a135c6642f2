//! The on-disk cache of compiled components and of what they declare.
//!
//! Compiling a component with Cranelift takes hundreds of milliseconds; loading a
//! compiled artifact takes about one. Artifacts are keyed by the component's SHA-256
//! and the engine's compatibility hash (wasmtime version, target, settings), so a new
//! Ward or a changed component never loads a stale artifact.
//!
//! Deserializing an artifact means trusting it as native code, so the host only loads
//! bytes it wrote itself: every entry is sealed with an HMAC-SHA256 under a random key
//! kept in the cache directory (mode 0600). A tampered, truncated or foreign entry fails
//! the check and is recompiled and rewritten, never deserialized.

use std::fs;
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

type HmacSha256 = Hmac<Sha256>;

const KEY_FILE: &str = ".key";
const MAC_LEN: usize = 32;

/// A directory of sealed cache entries.
pub struct ArtifactCache {
    dir: PathBuf,
    key: [u8; 32],
}

/// What happened when the cache was consulted; reported in logs and tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// No entry.
    Miss,
    /// An entry whose seal is valid.
    Hit,
    /// An entry whose seal did not verify: it was ignored and will be overwritten.
    Rejected,
}

impl ArtifactCache {
    /// Opens (creating if needed) the cache at `dir`, with its sealing key.
    pub fn open(dir: &Path) -> std::io::Result<Self> {
        fs::create_dir_all(dir)?;
        let key_path = dir.join(KEY_FILE);
        let key = match fs::read(&key_path) {
            Ok(bytes) if bytes.len() == 32 => {
                let mut key = [0u8; 32];
                key.copy_from_slice(&bytes);
                key
            }
            _ => {
                let mut key = [0u8; 32];
                getrandom::fill(&mut key).map_err(|e| std::io::Error::other(e.to_string()))?;
                write_atomic(&key_path, &key, true)?;
                key
            }
        };
        Ok(ArtifactCache {
            dir: dir.to_path_buf(),
            key,
        })
    }

    /// The directory this cache lives in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The path of entry `name`.
    pub fn path_of(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Reads entry `name`, returning its payload only if its seal verifies.
    pub fn get(&self, name: &str) -> (Lookup, Option<Vec<u8>>) {
        let Ok(bytes) = fs::read(self.path_of(name)) else {
            return (Lookup::Miss, None);
        };
        if bytes.len() < MAC_LEN {
            return (Lookup::Rejected, None);
        }
        let (mac, payload) = bytes.split_at(MAC_LEN);
        match self.mac(name, payload).verify_slice(mac) {
            Ok(()) => (Lookup::Hit, Some(payload.to_vec())),
            Err(_) => (Lookup::Rejected, None),
        }
    }

    /// Writes entry `name` atomically (temporary file + rename), sealed.
    pub fn put(&self, name: &str, payload: &[u8]) -> std::io::Result<()> {
        let mac = self.mac(name, payload).finalize().into_bytes();
        let mut bytes = Vec::with_capacity(MAC_LEN + payload.len());
        bytes.extend_from_slice(&mac);
        bytes.extend_from_slice(payload);
        write_atomic(&self.path_of(name), &bytes, false)
    }

    fn mac(&self, name: &str, payload: &[u8]) -> HmacSha256 {
        // Invariant: HMAC accepts keys of any length, so this cannot fail.
        let mut mac = <HmacSha256 as Mac>::new_from_slice(&self.key)
            .unwrap_or_else(|_| unreachable!("HMAC takes any key length"));
        mac.update(name.as_bytes());
        mac.update(&[0]);
        mac.update(payload);
        mac
    }
}

/// The cache entry name of a compiled component: its digest plus the engine's
/// compatibility hash.
pub fn artifact_name(component_sha256: &str, engine: &wasmtime::Engine) -> String {
    let mut hasher = Sha256Hasher(Sha256::new());
    engine.precompile_compatibility_hash().hash(&mut hasher);
    let engine_hash = hex::encode(&hasher.0.finalize()[..8]);
    format!("{component_sha256}-{engine_hash}.cwasm")
}

/// SHA-256 of `bytes`, lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// A `Hasher` that feeds SHA-256, so the engine hash is stable across processes
/// (`DefaultHasher` is randomly keyed).
struct Sha256Hasher(Sha256);

impl Hasher for Sha256Hasher {
    fn finish(&self) -> u64 {
        let digest = self.0.clone().finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        u64::from_le_bytes(first)
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
}

fn write_atomic(path: &Path, bytes: &[u8], private: bool) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    {
        let mut options = fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        if private {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        #[cfg(not(unix))]
        let _ = private;
        let mut file = options.open(&tmp)?;
        file.write_all(bytes)?;
        // Only the key is made durable: an entry a crash tore fails its seal and is
        // rebuilt, so syncing each one (a dozen on a first run) would buy nothing. A
        // lost key only costs the entries it sealed.
        if private {
            file.sync_all()?;
        }
    }
    fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ward-cache-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn round_trip_and_tamper() {
        let dir = temp_dir("rt");
        let cache = ArtifactCache::open(&dir).unwrap();
        assert_eq!(cache.get("a").0, Lookup::Miss);
        cache.put("a", b"payload").unwrap();
        assert_eq!(cache.get("a"), (Lookup::Hit, Some(b"payload".to_vec())));

        let mut bytes = fs::read(cache.path_of("a")).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        fs::write(cache.path_of("a"), &bytes).unwrap();
        assert_eq!(cache.get("a"), (Lookup::Rejected, None));

        // An entry copied under another name does not verify either.
        cache.put("b", b"payload").unwrap();
        fs::copy(cache.path_of("b"), cache.path_of("c")).unwrap();
        assert_eq!(cache.get("c").0, Lookup::Rejected);

        // The key persists: a second open verifies the first one's entries.
        let again = ArtifactCache::open(&dir).unwrap();
        assert_eq!(again.get("b").0, Lookup::Hit);
        fs::remove_dir_all(&dir).unwrap();
    }
}
