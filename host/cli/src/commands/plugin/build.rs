//! `ward plugin build [DIR]`: compiles a Rust plugin to a component, puts it next to its
//! `plugin.toml`, and records its sha256 there.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

/// Builds the plugin in `dir`; returns the component's path.
pub fn build(dir: &Path) -> Result<PathBuf> {
    let manifest_path = dir.join("plugin.toml");
    let text = std::fs::read_to_string(&manifest_path)
        .with_context(|| format!("reading {}", manifest_path.display()))?;
    let manifest = ward_config::parse_manifest(&manifest_path, &text)?;
    if !dir.join("Cargo.toml").is_file() {
        bail!(
            "{} has no Cargo.toml: only Rust plugins can be built here so far",
            dir.display()
        );
    }
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args([
            "build",
            "--release",
            "--target",
            "wasm32-wasip2",
            "--manifest-path",
        ])
        .arg(dir.join("Cargo.toml"))
        .status()
        .context("running cargo (is Rust installed?)")?;
    if !status.success() {
        bail!(
            "cargo build failed ({status}); if the target is missing: rustup target add wasm32-wasip2"
        );
    }
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|t| if t.is_absolute() { t } else { dir.join(t) })
        .unwrap_or_else(|| dir.join("target"));
    let built = target_dir
        .join("wasm32-wasip2/release")
        .join(&manifest.component);
    let dest = dir.join(&manifest.component);
    std::fs::copy(&built, &dest).with_context(|| {
        format!(
            "copying {} (does `component` in plugin.toml match the crate name?)",
            built.display()
        )
    })?;
    let digest = hex::encode(Sha256::digest(std::fs::read(&dest)?));
    std::fs::write(&manifest_path, with_sha256(&text, &digest))?;
    Ok(dest)
}

/// `text` with the `[plugin]` table's `sha256` set to `digest` (replaced or added after
/// its `component` line).
fn with_sha256(text: &str, digest: &str) -> String {
    let line = format!("sha256 = \"{digest}\"");
    let is_key = |l: &str, key: &str| l.split_once('=').is_some_and(|(k, _)| k.trim() == key);
    let replace = text.lines().any(|l| is_key(l, "sha256"));
    let mut out: Vec<String> = Vec::new();
    for l in text.lines() {
        if replace && is_key(l, "sha256") {
            out.push(line.clone());
            continue;
        }
        out.push(l.to_string());
        if !replace && is_key(l, "component") {
            out.push(line.clone());
        }
    }
    out.join("\n") + "\n"
}

#[cfg(test)]
mod tests {
    use super::with_sha256;

    #[test]
    fn sha_is_added_then_replaced() {
        let t = "[plugin]\nname = \"x\"\ncomponent = \"x.wasm\"\n[limits]\n";
        let once = with_sha256(t, "aa");
        assert_eq!(
            once,
            "[plugin]\nname = \"x\"\ncomponent = \"x.wasm\"\nsha256 = \"aa\"\n[limits]\n"
        );
        assert_eq!(with_sha256(&once, "bb"), once.replace("aa", "bb"));
    }
}
