//! Recognising binary files, media types for attachments, and base64 for `data:` URLs.

use std::io::Read;
use std::path::Path;

/// How much of a file is sniffed for binary content.
pub const SNIFF_BYTES: usize = 8192;

/// Extensions of formats that are binary whatever their first bytes look like.
const BINARY_EXTENSIONS: &[&str] = &[
    "zip", "tar", "gz", "tgz", "bz2", "xz", "zst", "7z", "rar", "exe", "dll", "so", "dylib",
    "class", "jar", "war", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "odt", "ods", "odp", "bin",
    "dat", "obj", "o", "a", "lib", "rlib", "wasm", "pyc", "pyo", "png", "jpg", "jpeg", "gif",
    "bmp", "ico", "webp", "tiff", "pdf", "mp3", "mp4", "mov", "avi", "mkv", "wav", "flac", "ogg",
    "woff", "woff2", "ttf", "otf", "eot", "sqlite", "db", "pdb", "dmg", "iso",
];

/// Whether the extension of `path` names a binary format.
pub fn has_binary_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| BINARY_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// Whether `sample` (the start of a file) looks binary: a NUL byte, or more than 30%
/// control characters other than whitespace.
pub fn looks_binary(sample: &[u8]) -> bool {
    if sample.is_empty() {
        return false;
    }
    // One branch-free pass that vectorises: every file a tool reads or searches is
    // sniffed. Counting into a byte per chunk (at most 255 per chunk, so it cannot
    // overflow) keeps the vector lanes bytes wide: counting into `usize` widens every
    // lane, four bytes a step in the sandbox's 32-bit code instead of sixteen.
    let mut nul = false;
    let mut control = 0usize;
    for chunk in sample.chunks(255) {
        let mut in_chunk = 0u8;
        for &b in chunk {
            nul |= b == 0;
            in_chunk += u8::from(b < 9 || (b > 13 && b < 32));
        }
        control += usize::from(in_chunk);
    }
    nul || control * 10 > sample.len() * 3
}

/// Whether the file at `path` is binary, by extension or by its first [`SNIFF_BYTES`].
pub fn is_binary_file(path: &Path) -> std::io::Result<bool> {
    if has_binary_extension(path) {
        return Ok(true);
    }
    let mut sample = Vec::with_capacity(SNIFF_BYTES);
    std::fs::File::open(path)?
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut sample)?;
    Ok(looks_binary(&sample))
}

/// The media type of images and PDFs (which models can take as attachments), by extension.
pub fn attachable_mime(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "bmp" => "image/bmp",
        "pdf" => "application/pdf",
        _ => return None,
    })
}

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(TABLE[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A `data:` URL for `bytes` of media type `mime`.
pub fn data_url(mime: &str, bytes: &[u8]) -> String {
    format!("data:{mime};base64,{}", base64(bytes))
}

/// Levenshtein distance over chars; very long pairs are compared for equality only, to
/// bound the cost.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.is_empty() || b.is_empty() {
        return a.len().max(b.len());
    }
    if a.len() * b.len() > 4_000_000 {
        return if a == b { 0 } else { a.len().max(b.len()) };
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut row = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            row[j + 1] = (prev[j + 1] + 1).min(row[j] + 1).min(prev[j] + cost);
        }
        std::mem::swap(&mut prev, &mut row);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn binary_detection() {
        assert!(looks_binary(b"abc\0def"));
        assert!(!looks_binary(b"fn main() {}\n\tx\r\n"));
        assert!(looks_binary(&[1, 2, 3, 4, b'a']));
        assert!(!looks_binary(b""));
        // Control characters are counted across the chunks the count is kept in.
        let sample = |control: usize| {
            let mut bytes = vec![b'a'; 1000];
            for b in bytes.iter_mut().step_by(1000 / control).take(control) {
                *b = 0x1b;
            }
            bytes
        };
        assert!(!looks_binary(&sample(300)));
        assert!(looks_binary(&sample(334)));
        assert!(has_binary_extension(Path::new("x/a.PNG")));
        assert!(!has_binary_extension(Path::new("x/a.rs")));
    }

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
        assert_eq!(edit_distance("mian.rs", "main.rs"), 2);
    }

    #[test]
    fn mime_types() {
        assert_eq!(attachable_mime(Path::new("a.jpg")), Some("image/jpeg"));
        assert_eq!(attachable_mime(Path::new("a.svg")), None);
    }
}
