//! `ward plugin build [DIR]`: compiles a plugin to a component, puts it next to its
//! `plugin.toml`, and records its sha256 there.
//!
//! The language is told by the files: `Cargo.toml` is Rust (cargo, `wasm32-wasip2`),
//! `package.json` or `tool.js` is JavaScript (componentize-js), `app.py` is Python
//! (componentize-py). JavaScript and Python are built against the plugin's own `wit/`
//! when it has one, else against the contract compiled into this Ward, with the SDK
//! helper (`ward.js`, `ward_sdk.py`) supplied when the plugin has none of its own.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

/// The componentize-js release Ward's JavaScript plugins are built and tested with.
pub const COMPONENTIZE_JS: &str = "0.23.0";
/// The preview2-shim componentize-js runs on: it imports the shim without declaring it,
/// and 0.26 preopens no directory by default, so componentize-js could not read the WIT.
pub const PREVIEW2_SHIM: &str = "0.25.0";
/// The componentize-py release Ward's Python plugins are built and tested with.
pub const COMPONENTIZE_PY: &str = "0.25.1";

/// The contract JavaScript and Python plugins without their own `wit/` are built
/// against: `ward:plugin@0.1.0`, which their SDK helpers are written for.
const WIT: &str = include_str!("../../../../../wit/since_v0.1.0/ward-plugin.wit");
const WARD_JS: &str = include_str!("../../../../../sdk/js/ward.js");
const WARD_SDK_PY: &str = include_str!("../../../../../sdk/python/ward_sdk.py");

/// What a plugin directory is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    Rust,
    JavaScript,
    Python,
}

/// Tells the language of the plugin in `dir` from its files.
pub fn language(dir: &Path) -> Result<Language> {
    if dir.join("Cargo.toml").is_file() {
        Ok(Language::Rust)
    } else if dir.join("package.json").is_file() || dir.join("tool.js").is_file() {
        Ok(Language::JavaScript)
    } else if dir.join("app.py").is_file() {
        Ok(Language::Python)
    } else {
        bail!(
            "{} has no Cargo.toml (Rust), package.json or tool.js (JavaScript), or app.py (Python): nothing to build",
            dir.display()
        )
    }
}

/// Builds the plugin in `dir`; returns the component's path.
pub fn build(dir: &Path) -> Result<PathBuf> {
    let dir = &dir
        .canonicalize()
        .with_context(|| format!("no plugin directory {}", dir.display()))?;
    let manifest_path = dir.join("plugin.toml");
    let text = std::fs::read_to_string(&manifest_path)
        .with_context(|| format!("reading {}", manifest_path.display()))?;
    let manifest = ward_config::parse_manifest(&manifest_path, &text)?;
    let dest = dir.join(&manifest.component);
    match language(dir)? {
        Language::Rust => build_rust(dir, &manifest.component, &dest)?,
        Language::JavaScript => build_js(dir, &dest)?,
        Language::Python => build_python(dir, &dest)?,
    }
    let digest = hex::encode(Sha256::digest(std::fs::read(&dest)?));
    std::fs::write(&manifest_path, with_sha256(&text, &digest))?;
    Ok(dest)
}

fn build_rust(dir: &Path, component: &str, dest: &Path) -> Result<()> {
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
    let built = target_dir.join("wasm32-wasip2/release").join(component);
    std::fs::copy(&built, dest).with_context(|| {
        format!(
            "copying {} (does `component` in plugin.toml match the crate name?)",
            built.display()
        )
    })?;
    Ok(())
}

/// A scratch directory for one build, removed when dropped.
struct Staging(PathBuf);

impl Staging {
    fn new() -> Result<Staging> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let dir =
            std::env::temp_dir().join(format!("ward-plugin-build-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        Ok(Staging(dir))
    }

    /// The plugin's `wit/` directory, or the built-in contract written here.
    fn wit(&self, dir: &Path) -> Result<PathBuf> {
        let own = dir.join("wit");
        if own.is_dir() {
            return Ok(own);
        }
        let wit = self.0.join("wit");
        std::fs::create_dir_all(&wit)?;
        std::fs::write(wit.join("ward-plugin.wit"), WIT)?;
        Ok(wit)
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `name` in `dir` or the nearest ancestor that has it.
fn find_up(dir: &Path, name: &str) -> Option<PathBuf> {
    let start = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    start.ancestors().map(|d| d.join(name)).find(|p| p.exists())
}

/// An executable called `name` on `PATH`.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Runs `cmd`, failing with its output and `what` if it fails.
fn run(mut cmd: Command, what: &str) -> Result<()> {
    let out = cmd
        .output()
        .with_context(|| format!("running {what} ({cmd:?})"))?;
    if !out.status.success() {
        bail!(
            "{what} failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

fn build_js(dir: &Path, dest: &Path) -> Result<()> {
    let install = format!(
        "JavaScript plugins are built with componentize-js: run `npm install --save-dev @bytecodealliance/componentize-js@{COMPONENTIZE_JS} @bytecodealliance/preview2-shim@{PREVIEW2_SHIM}` in {} (needs Node.js 20 or later), or set WARD_COMPONENTIZE_JS to its cli.js",
        dir.display()
    );
    let cli = match std::env::var_os("WARD_COMPONENTIZE_JS") {
        Some(p) => PathBuf::from(p),
        None => find_up(
            dir,
            "node_modules/@bytecodealliance/componentize-js/src/cli.js",
        )
        .context(install.clone())?,
    };
    let node = on_path("node").with_context(|| format!("node was not found on PATH. {install}"))?;
    let entry = js_entry(dir)?;
    let staging = Staging::new()?;
    let wit = staging.wit(dir)?;
    // The sources are built from a copy, so `./ward.js` resolves to the plugin's own
    // copy when it has one and to this Ward's otherwise.
    let src = staging.0.join("src");
    copy_sources(dir, &src)?;
    if !src.join("ward.js").exists() {
        std::fs::write(src.join("ward.js"), WARD_JS)?;
    }
    let out = staging.0.join("component.wasm");
    let mut cmd = Command::new(node);
    cmd.arg(&cli)
        .arg(src.join(&entry))
        .arg("--wit")
        .arg(&wit)
        .args(["--world-name", "tool-plugin"])
        .arg("--out")
        .arg(&out)
        // Ward reaches the network through the host's `http-fetch`; the engine's own
        // `fetch` would import `wasi:http`, which plugins may not.
        .args(["--disable", "http", "fetch-event"])
        .current_dir(dir);
    run(cmd, "componentize-js")?;
    std::fs::copy(&out, dest).with_context(|| format!("writing {}", dest.display()))?;
    Ok(())
}

/// The module `package.json` names as `main`, else `tool.js`.
fn js_entry(dir: &Path) -> Result<String> {
    let Ok(text) = std::fs::read_to_string(dir.join("package.json")) else {
        return Ok("tool.js".into());
    };
    let json: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("parsing {}", dir.join("package.json").display()))?;
    Ok(json["main"].as_str().unwrap_or("tool.js").to_string())
}

/// Copies the plugin's files to `to`, leaving out dependencies, builds and components.
fn copy_sources(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        let skip = matches!(
            name.to_str(),
            Some("node_modules" | ".git" | "target" | "wit" | ".venv" | "__pycache__")
        ) || Path::new(&name).extension().is_some_and(|e| e == "wasm");
        if skip {
            continue;
        }
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            copy_sources(&path, &to.join(&name))?;
        } else {
            std::fs::copy(&path, to.join(&name))?;
        }
    }
    Ok(())
}

fn build_python(dir: &Path, dest: &Path) -> Result<()> {
    let install = format!(
        "Python plugins are built with componentize-py: run `pip install componentize-py=={COMPONENTIZE_PY}` (in a virtual environment `.venv` in {} or above it, or on PATH), or set WARD_COMPONENTIZE_PY to the executable",
        dir.display()
    );
    let tool = match std::env::var_os("WARD_COMPONENTIZE_PY") {
        Some(p) => PathBuf::from(p),
        None => find_up(dir, ".venv/bin/componentize-py")
            .or_else(|| on_path("componentize-py"))
            .context(install.clone())?,
    };
    let staging = Staging::new()?;
    let wit = staging.wit(dir)?;
    // Python finds the plugin's own `ward_sdk.py` first (`-p` order), then this Ward's.
    let sdk = staging.0.join("sdk");
    std::fs::create_dir_all(&sdk)?;
    std::fs::write(sdk.join("ward_sdk.py"), WARD_SDK_PY)?;
    let raw = staging.0.join("python.wasm");
    let mut cmd = Command::new(&tool);
    cmd.arg("-d")
        .arg(&wit)
        .args(["-w", "tool-plugin", "componentize", "app", "-p"])
        .arg(dir)
        .arg("-p")
        .arg(&sdk)
        .arg("-o")
        .arg(&raw)
        .current_dir(dir);
    run(cmd, "componentize-py").map_err(|e| e.context(install))?;
    let composed = deny_sockets(&staging, &raw)?;
    std::fs::write(dest, composed).with_context(|| format!("writing {}", dest.display()))?;
    Ok(())
}

/// `component` with its `wasi:sockets` imports (CPython's libc imports them whether the
/// plugin uses them or not; Ward refuses raw sockets) satisfied inside it by a
/// component that refuses every socket call.
fn deny_sockets(staging: &Staging, component: &Path) -> Result<Vec<u8>> {
    let deny = crate::builtins::SOCKETS_DENY;
    if deny.is_empty() {
        bail!(
            "this ward was built with WARD_SKIP_PLUGINS, without the component Python plugins need"
        );
    }
    let deny_path = staging.0.join("sockets-deny.wasm");
    std::fs::write(&deny_path, deny)?;
    let config = wasm_compose::config::Config {
        definitions: vec![deny_path],
        ..Default::default()
    };
    wasm_compose::composer::ComponentComposer::new(component, &config)
        .compose()
        .context("composing the socket-refusing component into the Python component")
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
