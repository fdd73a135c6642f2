//! SHA-256 helpers: digests as lowercase hex, of bytes, files and streams.

use std::io::{Read, Write};
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::MarketError;

/// The SHA-256 of `bytes`, lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The SHA-256 of the file at `path`, lowercase hex, read in chunks.
pub fn sha256_file(path: &Path) -> Result<String, MarketError> {
    let mut file = std::fs::File::open(path).map_err(MarketError::io(path))?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut HashWriter(&mut hasher)).map_err(MarketError::io(path))?;
    Ok(hex::encode(hasher.finalize()))
}

/// Copies `reader` into `writer`, returning the bytes' SHA-256 (lowercase hex) and
/// their count.
pub fn copy_hashing(
    reader: &mut impl Read,
    writer: &mut impl Write,
) -> std::io::Result<(String, u64)> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        writer.write_all(&buf[..n])?;
        total += n as u64;
    }
    Ok((hex::encode(hasher.finalize()), total))
}

/// Whether `text` is 64 hexadecimal digits.
pub fn is_sha256(text: &str) -> bool {
    text.len() == 64 && text.chars().all(|c| c.is_ascii_hexdigit())
}

struct HashWriter<'a>(&'a mut Sha256);

impl Write for HashWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_match_known_values() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let mut out = Vec::new();
        let (hex, n) = copy_hashing(&mut &b"abc"[..], &mut out).unwrap();
        assert_eq!(
            (hex.as_str(), n, out.as_slice()),
            (sha256_hex(b"abc").as_str(), 3, &b"abc"[..])
        );
        assert!(is_sha256(&sha256_hex(b"")));
        assert!(!is_sha256("abc"));
    }
}
