//! JavaScript and Python plugins built by the real `ward plugin build`, once per test
//! process, with the toolchains `scripts/setup.sh` installs in `sdk/js/node_modules`
//! and `sdk/python/.venv`. A missing toolchain fails the build, and so the test.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::Project;

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("repository root")
        .to_path_buf()
}

/// A plugin built from source: its directory (manifest and component) and how long
/// `ward plugin build` took.
#[derive(Clone, Debug)]
pub struct Built {
    /// The built plugin's directory.
    pub dir: PathBuf,
    /// The plugin's name.
    pub name: String,
    /// Wall time of `ward plugin build`.
    pub took: Duration,
    /// The component cache `ward plugin build` compiled the plugin into (its own, so a
    /// test can tell what the build compiled).
    pub cache: PathBuf,
}

/// Builds the plugin whose sources are at `src` (relative to the repository root) with
/// `ward plugin build`, in a copy under `target/<profile>/polyglot/`, once per process.
pub fn built(src: &str) -> Built {
    static BUILT: OnceLock<Mutex<HashMap<String, Built>>> = OnceLock::new();
    let mut done = BUILT
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(b) = done.get(src) {
        return b.clone();
    }
    let from = repo_root().join(src);
    let name = from
        .file_name()
        .expect("plugin directory name")
        .to_string_lossy()
        .into_owned();
    let bin = crate::ward_binary();
    let dir = bin
        .parent()
        .expect("profile dir")
        .join("polyglot")
        .join(src.replace('/', "_"));
    let _ = std::fs::remove_dir_all(&dir);
    copy_dir(&from, &dir);
    let root = repo_root();
    let cache = dir.with_extension("cache");
    let _ = std::fs::remove_dir_all(&cache);
    let start = Instant::now();
    let out = Command::new(&bin)
        .args(["plugin", "build"])
        .arg(&dir)
        .env("WARD_CACHE_DIR", &cache)
        .env(
            "WARD_COMPONENTIZE_JS",
            root.join("sdk/js/node_modules/@bytecodealliance/componentize-js/src/cli.js"),
        )
        .env(
            "WARD_COMPONENTIZE_PY",
            root.join("sdk/python/.venv/bin/componentize-py"),
        )
        .output()
        .expect("run ward plugin build");
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "`ward plugin build {}` failed (the JavaScript and Python toolchains are installed by scripts/setup.sh):\n{}{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let manifest = std::fs::read_to_string(dir.join("plugin.toml")).expect("manifest");
    let name = manifest
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == "name").then(|| v.trim().trim_matches('"').to_string())
        })
        .unwrap_or(name);
    eprintln!("built {src} in {:.1} s", took.as_secs_f64());
    let b = Built {
        dir,
        name,
        took,
        cache,
    };
    done.insert(src.to_string(), b.clone());
    b
}

/// Copies a directory tree.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create copy");
    for entry in std::fs::read_dir(from).expect("read directory") {
        let entry = entry.expect("entry");
        let path = entry.path();
        if entry.file_type().expect("file type").is_dir() {
            copy_tree(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).expect("copy file");
        }
    }
}

/// Copies a plugin's sources (not its built components).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create plugin copy");
    for entry in std::fs::read_dir(from).expect("read plugin sources") {
        let entry = entry.expect("entry");
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "wasm") {
            continue;
        }
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).expect("copy source");
        }
    }
}

impl Project {
    /// Builds (once) and installs the plugin at `src` into `.ward/plugins/`; returns its
    /// name.
    pub fn install_built_plugin(&self, src: &str) -> String {
        let b = built(src);
        let dest = self.path(&format!(".ward/plugins/{}", b.name));
        copy_dir(&b.dir, &dest);
        for entry in std::fs::read_dir(&b.dir).expect("built plugin") {
            let path = entry.expect("entry").path();
            if path.extension().is_some_and(|e| e == "wasm") {
                std::fs::copy(&path, dest.join(path.file_name().expect("name")))
                    .expect("copy component");
            }
        }
        b.name
    }
}
