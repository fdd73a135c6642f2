//! Build-script helper that builds plugin crates as WebAssembly components.
//!
//! Used by `ward`'s build script (to embed the first-party plugins) and by the test
//! suite's (to build the hostile plugins). The components are built by a nested
//! `cargo build --release --target wasm32-wasip2` into a separate target directory
//! (`target/wasm`), so the nested build never waits on the outer build's lock.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};

/// Code generation flags for the plugin components.
///
/// - A 2 MiB initial linear memory (the default is the 1 MiB stack plus static data)
///   leaves the guest's allocator room for a typical tool call without growing memory:
///   every growth is an `mprotect` in Ward's pooling allocator, undone by another when
///   the slot is reused, which cost a `read` of a large file ~15% of its time. Pages
///   never touched cost little, but every call's reset scans the page tables of all
///   of it, so it is not larger.
/// - 128-bit SIMD (which Ward's wasmtime always supports) lets byte scans such as
///   finding line ends (`memchr`) and sniffing for binary content run 16 bytes at a
///   time, as they do natively.
const GUEST_RUSTFLAGS: &str = "-C link-arg=--initial-memory=2097152 -C target-feature=+simd128";

/// A plugin crate: a directory with `Cargo.toml` and `plugin.toml`.
#[derive(Clone, Debug)]
pub struct PluginCrate {
    /// The Cargo package name.
    pub package: String,
    /// The directory.
    pub dir: PathBuf,
    /// Its `plugin.toml`.
    pub manifest: PathBuf,
    /// The component file name from `plugin.toml`.
    pub component: String,
}

impl PluginCrate {
    /// Where the built component is.
    pub fn wasm_path(&self, target_dir: &Path) -> PathBuf {
        target_dir
            .join("wasm32-wasip2/release")
            .join(&self.component)
    }
}

/// The plugin crates directly under `dir`, sorted by directory name.
pub fn find_plugins(dir: &Path) -> Vec<PluginCrate> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    dirs.sort();
    dirs.into_iter()
        .filter_map(|d| {
            let manifest = d.join("plugin.toml");
            let plugin = std::fs::read_to_string(&manifest).ok()?;
            let cargo = std::fs::read_to_string(d.join("Cargo.toml")).ok()?;
            Some(PluginCrate {
                package: toml_value(&cargo, "name")?,
                component: toml_value(&plugin, "component")?,
                manifest,
                dir: d,
            })
        })
        .collect()
}

/// The first `key = "value"` line of a TOML file; enough for `name` and `component`.
fn toml_value(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once('=')?;
        (k.trim() == key).then(|| v.trim().trim_matches('"').to_string())
    })
}

/// `cargo build --release --target wasm32-wasip2 --target-dir TARGET_DIR`, without the
/// outer build's settings (they are for the host, not for the wasm guests); the caller
/// adds what to build.
pub fn guest_build(target_dir: &Path) -> Command {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut cmd = Command::new(cargo);
    cmd.args([
        "build",
        "--release",
        "--target",
        "wasm32-wasip2",
        "--target-dir",
    ])
    .arg(target_dir);
    for var in [
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTFLAGS",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_PRIMARY_PACKAGE",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

/// Why the plugin components were not built; the message is for the build script to
/// print.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// Cargo could not be started.
    #[error("cannot run cargo to build the plugins: {0}")]
    Cargo(#[source] std::io::Error),
    /// The nested build failed.
    #[error(
        "building the plugin components failed ({status}); if the wasm32-wasip2 target is \
         missing, run `rustup target add wasm32-wasip2`"
    )]
    Failed {
        /// How cargo exited.
        status: ExitStatus,
    },
    /// A plugin built, but its component is not where its manifest says.
    #[error(
        "plugin `{package}` built, but {} is missing (does `component` in its plugin.toml \
         match the crate name?)",
        wasm.display()
    )]
    Missing {
        /// The plugin's Cargo package.
        package: String,
        /// Where the component was expected.
        wasm: PathBuf,
    },
}

/// Builds `plugins` from the workspace at `root` into `target_dir`, and tells Cargo to
/// rerun the build script when any of `watch` (directories under `root`) changes.
pub fn build(
    root: &Path,
    target_dir: &Path,
    plugins: &[PluginCrate],
    watch: &[&str],
) -> Result<(), BuildError> {
    for w in watch {
        println!("cargo:rerun-if-changed={}", root.join(w).display());
    }
    if plugins.is_empty() {
        return Ok(());
    }
    let mut cmd = guest_build(target_dir);
    cmd.current_dir(root);
    for p in plugins {
        cmd.args(["-p", &p.package]);
    }
    cmd.env("CARGO_TARGET_WASM32_WASIP2_RUSTFLAGS", GUEST_RUSTFLAGS);
    let status = cmd.status().map_err(BuildError::Cargo)?;
    if !status.success() {
        return Err(BuildError::Failed { status });
    }
    for p in plugins {
        let wasm = p.wasm_path(target_dir);
        if !wasm.is_file() {
            return Err(BuildError::Missing {
                package: p.package.clone(),
                wasm,
            });
        }
    }
    Ok(())
}

/// The workspace root, two levels above a crate at `host/NAME` or one above `tests/`.
pub fn workspace_root(manifest_dir: &Path) -> PathBuf {
    let mut dir = manifest_dir.to_path_buf();
    while !dir.join("wit").is_dir() {
        if !dir.pop() {
            return manifest_dir.to_path_buf();
        }
    }
    dir
}
