//! `ward plugin pack DIR`: one `NAME-VERSION.wardpkg` archive (tar.gz) holding the
//! plugin's `plugin.toml`, its component and every other file of the directory
//! (skill files, data), with the SHA-256 of each recorded in the archived manifest.
//!
//! The archived `plugin.toml` is the author's text with two additions: `sha256` of
//! the component in `[plugin]` when it was missing (so the runtime checks the
//! component before every load), and a `[files]` table listing every other file.
//! Build output and version-control directories are left out (`target/`,
//! `node_modules/`, `.git/`, `__pycache__/`, earlier `*.wardpkg`); symbolic links
//! are refused. Entries are written in path order with fixed metadata, so packing
//! the same files twice gives the same archive.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::write::GzEncoder;
use ward_config::{Manifest, parse_manifest};

use crate::MarketError;
use crate::digest::sha256_file;

/// Directory names never packed.
pub const SKIPPED_DIRS: &[&str] = &["target", "node_modules", ".git", "__pycache__"];

/// The extension of package archives.
pub const EXTENSION: &str = "wardpkg";

/// A written package.
#[derive(Debug, Clone)]
pub struct Packed {
    /// The archive written.
    pub path: PathBuf,
    /// The archived manifest (with `[files]`).
    pub manifest: Manifest,
    /// The archive's SHA-256, lowercase hex.
    pub sha256: String,
}

/// Packs the plugin in `dir`. `out` is the archive to write, or a directory to
/// write `NAME-VERSION.wardpkg` into.
pub fn pack(dir: &Path, out: &Path) -> Result<Packed, MarketError> {
    let manifest_path = dir.join("plugin.toml");
    let text = std::fs::read_to_string(&manifest_path).map_err(MarketError::io(&manifest_path))?;
    let manifest = parse_manifest(&manifest_path, &text)?;
    let pack_err = |path: &Path, message: String| MarketError::Pack {
        path: path.to_path_buf(),
        message,
    };
    if !manifest.files.is_empty() {
        return Err(pack_err(
            &manifest_path,
            "it already has a [files] table; pack writes it: remove the table".to_owned(),
        ));
    }
    let out = if out.is_dir() {
        out.join(format!(
            "{}-{}.{EXTENSION}",
            manifest.name, manifest.version
        ))
    } else {
        out.to_path_buf()
    };

    let mut files = BTreeMap::new();
    collect(dir, dir, &out, &mut files)?;
    // The component is packed even when it sits in a skipped directory.
    let component = manifest.component.trim_start_matches("./").to_owned();
    if !files.contains_key(&component) {
        let path = dir.join(&component);
        if !path.is_file() {
            return Err(pack_err(
                &path,
                "the component is missing: build it first (`ward plugin build`)".to_owned(),
            ));
        }
        files.insert(component.clone(), path);
    }
    let mut digests = BTreeMap::new();
    for (rel, path) in &files {
        digests.insert(rel.clone(), sha256_file(path)?);
    }
    let component_digest = &digests[&component];
    match &manifest.sha256 {
        Some(recorded) if recorded != component_digest => {
            return Err(pack_err(
                &manifest_path,
                format!(
                    "its sha256 {recorded} is not the component's ({component_digest}): rebuild with `ward plugin build`"
                ),
            ));
        }
        _ => {}
    }
    let archived_text = archived_manifest(&text, component_digest, &digests);
    let archived = parse_manifest(&manifest_path, &archived_text)?;
    if archived.files != digests {
        return Err(pack_err(
            &manifest_path,
            "could not record [files] in it (is the manifest written with dotted keys?)".to_owned(),
        ));
    }

    let tmp = out.with_extension(format!("{EXTENSION}.tmp"));
    write_archive(&tmp, &archived_text, &files).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })?;
    std::fs::rename(&tmp, &out).map_err(MarketError::io(&out))?;
    let sha256 = sha256_file(&out)?;
    Ok(Packed {
        path: out,
        manifest: archived,
        sha256,
    })
}

/// The author's manifest with the component's `sha256` added when missing and a
/// `[files]` table appended.
fn archived_manifest(
    text: &str,
    component_digest: &str,
    files: &BTreeMap<String, String>,
) -> String {
    let is_key = |line: &str, key: &str| line.split_once('=').is_some_and(|(k, _)| k.trim() == key);
    let has_sha = text.lines().any(|l| is_key(l, "sha256"));
    let mut out = String::with_capacity(text.len() + files.len() * 100);
    let mut added = has_sha;
    for line in text.lines() {
        out.push_str(line);
        out.push('\n');
        if !added && is_key(line, "component") {
            out.push_str(&format!("sha256 = \"{component_digest}\"\n"));
            added = true;
        }
    }
    #[derive(serde::Serialize)]
    struct Files<'a> {
        files: &'a BTreeMap<String, String>,
    }
    // Serialized by toml so any path is quoted correctly.
    let table = toml::to_string(&Files { files }).unwrap_or_default();
    out.push_str("\n# Written by `ward plugin pack`: the sha256 of every packaged file.\n");
    out.push_str(&table);
    out
}

/// Collects the files under `dir` (relative `/`-separated path → path), skipping
/// build and VCS directories, archives and `plugin.toml` itself; refuses links.
fn collect(
    root: &Path,
    dir: &Path,
    out: &Path,
    files: &mut BTreeMap<String, PathBuf>,
) -> Result<(), MarketError> {
    let entries = std::fs::read_dir(dir).map_err(MarketError::io(dir))?;
    let mut paths: Vec<PathBuf> = Vec::new();
    for entry in entries {
        paths.push(entry.map_err(MarketError::io(dir))?.path());
    }
    paths.sort();
    for path in paths {
        let meta = std::fs::symlink_metadata(&path).map_err(MarketError::io(&path))?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if meta.file_type().is_symlink() {
            return Err(MarketError::Pack {
                path,
                message: "symbolic links cannot be packed (install refuses them)".to_owned(),
            });
        }
        if meta.is_dir() {
            if !SKIPPED_DIRS.contains(&name.as_str()) {
                collect(root, &path, out, files)?;
            }
            continue;
        }
        if !meta.is_file() {
            return Err(MarketError::Pack {
                path,
                message: "only regular files can be packed".to_owned(),
            });
        }
        let is_archive = name.ends_with(&format!(".{EXTENSION}"))
            || name.ends_with(&format!(".{EXTENSION}.tmp"));
        if is_archive || same_file(&path, out) {
            continue;
        }
        let rel = relative(root, &path)?;
        if rel != "plugin.toml" {
            files.insert(rel, path);
        }
    }
    Ok(())
}

/// `path` relative to `root`, `/`-separated; refuses names that are not UTF-8.
fn relative(root: &Path, path: &Path) -> Result<String, MarketError> {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    match parts {
        Some(parts) => Ok(parts.join("/")),
        None => Err(MarketError::Pack {
            path: path.to_path_buf(),
            message: "file names must be UTF-8".to_owned(),
        }),
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Writes the tar.gz: `plugin.toml` first, then the files in path order, each with
/// mode 0644, mtime 0 and no owner.
fn write_archive(
    out: &Path,
    manifest: &str,
    files: &BTreeMap<String, PathBuf>,
) -> Result<(), MarketError> {
    let file = std::fs::File::create(out).map_err(MarketError::io(out))?;
    let mut tar = tar::Builder::new(GzEncoder::new(
        std::io::BufWriter::new(file),
        Compression::default(),
    ));
    let mut append = |name: &str, size: u64, data: &mut dyn std::io::Read| {
        let mut header = tar::Header::new_gnu();
        header.set_size(size);
        header.set_mode(0o644);
        header.set_mtime(0);
        header.set_entry_type(tar::EntryType::Regular);
        tar.append_data(&mut header, name, data)
            .map_err(MarketError::io(out))
    };
    append(
        "plugin.toml",
        manifest.len() as u64,
        &mut manifest.as_bytes(),
    )?;
    for (rel, path) in files {
        let mut f = std::fs::File::open(path).map_err(MarketError::io(path))?;
        let size = f.metadata().map_err(MarketError::io(path))?.len();
        append(rel, size, &mut f)?;
    }
    let gz = tar.into_inner().map_err(MarketError::io(out))?;
    let mut buffered = gz.finish().map_err(MarketError::io(out))?;
    buffered.flush().map_err(MarketError::io(out))?;
    Ok(())
}

#[cfg(test)]
mod tests;
