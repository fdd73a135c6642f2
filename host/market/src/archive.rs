//! Unpacking a package archive into a staging directory, refusing anything that
//! could write outside it or smuggle in more than the manifest lists, and checking
//! every file against the manifest's `[files]`.
//!
//! Refused: symbolic and hard links, devices and other special entries, absolute
//! paths, `.` / `..` segments, backslashes, names that are not UTF-8, an entry
//! appearing twice, more than [`MAX_ENTRIES`] entries or [`MAX_UNPACKED_BYTES`]
//! in total (a decompression bomb). Files are created with `create_new`, never
//! through an existing path, and hashed while they are written.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use flate2::read::GzDecoder;
use ward_config::Manifest;
use ward_config::manifest::is_clean_relative;

use crate::MarketError;
use crate::digest::copy_hashing;

/// Most entries an archive may hold.
pub const MAX_ENTRIES: usize = 10_000;

/// Most bytes an archive may unpack to (1 GiB).
pub const MAX_UNPACKED_BYTES: u64 = 1 << 30;

/// Unpacks the tar.gz `bytes` into the empty directory `dest`; returns each
/// file's SHA-256 by its relative path. `package` names the archive in errors.
pub fn unpack(
    bytes: &[u8],
    dest: &Path,
    package: &str,
) -> Result<BTreeMap<String, String>, MarketError> {
    let refuse = |message: String| MarketError::Package {
        package: package.to_owned(),
        message,
    };
    let mut archive = tar::Archive::new(GzDecoder::new(bytes));
    let entries = archive
        .entries()
        .map_err(|e| refuse(format!("not a readable tar.gz archive: {e}")))?;
    let mut digests = BTreeMap::new();
    let mut total = 0u64;
    for (count, entry) in entries.enumerate() {
        let mut entry = entry.map_err(|e| refuse(format!("not a readable tar.gz archive: {e}")))?;
        if count >= MAX_ENTRIES {
            return Err(refuse(format!("more than {MAX_ENTRIES} entries")));
        }
        let raw = entry.path_bytes().into_owned();
        let Ok(name) = String::from_utf8(raw) else {
            return Err(refuse("an entry's name is not UTF-8".to_owned()));
        };
        let kind = entry.header().entry_type();
        let clean = name.strip_suffix('/').unwrap_or(&name);
        let entry_err = |why: &str| refuse(format!("entry `{name}` is refused: {why}"));
        if !is_clean_relative(clean) {
            return Err(entry_err(
                "its path is absolute, uses `.`, `..` or `\\`, or could leave the package directory",
            ));
        }
        let target = dest.join(clean);
        match kind {
            tar::EntryType::Directory => {
                std::fs::create_dir_all(&target).map_err(MarketError::io(&target))?;
            }
            tar::EntryType::Regular | tar::EntryType::Continuous => {
                if digests.contains_key(clean) {
                    return Err(entry_err("it appears twice"));
                }
                if let Some(parent) = target.parent() {
                    std::fs::create_dir_all(parent).map_err(MarketError::io(parent))?;
                }
                let mut file = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&target)
                    .map_err(MarketError::io(&target))?;
                let budget = MAX_UNPACKED_BYTES - total;
                let mut limited = (&mut entry).take(budget + 1);
                let (digest, written) = copy_hashing(&mut limited, &mut file)
                    .map_err(|e| refuse(format!("cannot unpack `{clean}`: {e}")))?;
                if written > budget {
                    return Err(refuse(format!(
                        "it unpacks to more than {MAX_UNPACKED_BYTES} bytes"
                    )));
                }
                total += written;
                digests.insert(clean.to_owned(), digest);
            }
            tar::EntryType::Symlink => return Err(entry_err("symbolic links are not allowed")),
            tar::EntryType::Link => return Err(entry_err("hard links are not allowed")),
            _ => {
                return Err(entry_err("only regular files and directories are allowed"));
            }
        }
    }
    Ok(digests)
}

/// Checks the unpacked files (`digests`, from [`unpack`]) against `manifest`:
/// `plugin.toml` is there, every other file is listed in `[files]` with the same
/// digest, every listed file is there, and the component is among them.
pub fn verify_files(
    manifest: &Manifest,
    digests: &BTreeMap<String, String>,
    package: &str,
) -> Result<(), MarketError> {
    let refuse = |message: String| MarketError::Package {
        package: package.to_owned(),
        message,
    };
    if !digests.contains_key("plugin.toml") {
        return Err(refuse("it has no plugin.toml".to_owned()));
    }
    for (file, actual) in digests {
        if file == "plugin.toml" {
            continue;
        }
        match manifest.files.get(file) {
            None => {
                return Err(refuse(format!(
                    "file `{file}` is not listed in plugin.toml's [files]"
                )));
            }
            Some(expected) if expected != actual => {
                return Err(MarketError::FileDigest {
                    file: file.clone(),
                    expected: expected.clone(),
                    actual: actual.clone(),
                });
            }
            Some(_) => {}
        }
    }
    if let Some(missing) = manifest.files.keys().find(|f| !digests.contains_key(*f)) {
        return Err(refuse(format!(
            "`{missing}` is listed in plugin.toml's [files] but not in the archive"
        )));
    }
    let component = manifest.component.trim_start_matches("./");
    if !manifest.files.contains_key(component) {
        return Err(refuse(format!(
            "its component `{component}` is not listed in plugin.toml's [files]"
        )));
    }
    Ok(())
}

/// Reads the `plugin.toml` of the tar.gz `bytes` without unpacking anything else;
/// `label` names the archive in errors.
pub fn manifest_of(bytes: &[u8], label: &str) -> Result<Manifest, MarketError> {
    let refuse = |message: String| MarketError::Package {
        package: label.to_owned(),
        message,
    };
    let mut archive = tar::Archive::new(GzDecoder::new(bytes));
    let entries = archive
        .entries()
        .map_err(|e| refuse(format!("not a readable tar.gz archive: {e}")))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| refuse(format!("not a readable tar.gz archive: {e}")))?;
        if entry.path_bytes().as_ref() != b"plugin.toml" {
            continue;
        }
        let mut text = String::new();
        (&mut entry)
            .take(1 << 20)
            .read_to_string(&mut text)
            .map_err(|e| refuse(format!("cannot read plugin.toml: {e}")))?;
        let shown = std::path::PathBuf::from(format!("{label}/plugin.toml"));
        return Ok(ward_config::parse_manifest(&shown, &text)?);
    }
    Err(refuse("it has no plugin.toml".to_owned()))
}
