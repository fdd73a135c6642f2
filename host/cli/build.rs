//! Builds the first-party plugins in `plugins/` as WebAssembly components and embeds
//! them in the `ward` binary.
//!
//! The components are built by a nested `cargo build --target wasm32-wasip2` into a
//! separate target directory (`target/wasm`), so it never contends for the outer
//! build's lock. Set `WARD_SKIP_PLUGINS=1` to embed nothing (for building the host alone).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest_dir = PathBuf::from(env("CARGO_MANIFEST_DIR"));
    let root = manifest_dir.join("../..");
    let root = root.canonicalize().unwrap_or(root);
    for watched in ["plugins", "sdk", "wit"] {
        println!("cargo:rerun-if-changed={}", root.join(watched).display());
    }
    println!("cargo:rerun-if-env-changed=WARD_SKIP_PLUGINS");
    let out = PathBuf::from(env("OUT_DIR")).join("builtins.rs");

    let plugins = if std::env::var_os("WARD_SKIP_PLUGINS").is_some() {
        Vec::new()
    } else {
        find_plugins(&root.join("plugins"))
    };
    let target_dir = root.join("target/wasm");
    if !plugins.is_empty() {
        build(&root, &target_dir, &plugins);
    }

    let mut code = String::from(
        "/// The plugins embedded in this binary.\npub static BUILTINS: &[ward_plugin::discovery::Builtin] = &[\n",
    );
    for p in &plugins {
        let wasm = target_dir.join("wasm32-wasip2/release").join(&p.component);
        if !wasm.is_file() {
            fail(&format!(
                "plugin `{}` built, but {} is missing (does `component` in its plugin.toml match the crate name?)",
                p.package,
                wasm.display()
            ));
        }
        let _ = writeln!(
            code,
            "    ward_plugin::discovery::Builtin {{ manifest: include_str!({:?}), component: include_bytes!({:?}) }},",
            p.manifest.display().to_string(),
            wasm.display().to_string()
        );
    }
    code.push_str("];\n");
    if let Err(e) = std::fs::write(&out, code) {
        fail(&format!("cannot write {}: {e}", out.display()));
    }
}

struct PluginCrate {
    package: String,
    manifest: PathBuf,
    component: String,
}

fn find_plugins(dir: &Path) -> Vec<PluginCrate> {
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
            })
        })
        .collect()
}

/// The first `key = "value"` in a TOML file; enough for `name` and `component`.
fn toml_value(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once('=')?;
        (k.trim() == key).then(|| v.trim().trim_matches('"').to_string())
    })
}

fn build(root: &Path, target_dir: &Path, plugins: &[PluginCrate]) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root)
        .args([
            "build",
            "--release",
            "--target",
            "wasm32-wasip2",
            "--target-dir",
        ])
        .arg(target_dir);
    for p in plugins {
        cmd.args(["-p", &p.package]);
    }
    // The outer build's settings are for the host, not for the wasm guests.
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
    match cmd.status() {
        Ok(s) if s.success() => {}
        Ok(s) => fail(&format!(
            "building the plugin components failed ({s}); if the target is missing, run `rustup target add wasm32-wasip2`"
        )),
        Err(e) => fail(&format!("cannot run cargo to build the plugins: {e}")),
    }
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| fail(&format!("{name} is not set")))
}

fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(1)
}
