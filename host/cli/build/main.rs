//! Builds the first-party plugins in `plugins/` as WebAssembly components and embeds
//! each in the `ward` binary with its SHA-256, and beside it what `ward plugin
//! embed-builtins` made of it — its code compiled by the runtime's own engine and what
//! it declares — when `target/embedded/PROFILE/SHA.*` has them: the first run of a
//! standard tool then deserializes instead of compiling, and listing the standard
//! tools loads no component at all. `scripts/build.sh` and `scripts/test.sh` run that
//! command after a first build and build again, which relinks only this crate; a build
//! without them embeds the components alone, and the runtime compiles them into its
//! on-disk cache on first use. No engine is built for this script: wasmtime and
//! Cranelift are compiled once, for the runtime. Set `WARD_SKIP_PLUGINS=1` to embed
//! none. How the binary is linked: [`link`].

#![allow(
    clippy::disallowed_macros,
    reason = "a build script talks to cargo, not to a terminal"
)]

mod link;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    link::configure(&manifest_dir);
    let root = ward_wasm_build::workspace_root(&manifest_dir);
    let target_dir = root.join("target/wasm");
    println!("cargo:rerun-if-env-changed=WARD_SKIP_PLUGINS");
    let plugins = if std::env::var_os("WARD_SKIP_PLUGINS").is_some() {
        Vec::new()
    } else {
        ward_wasm_build::find_plugins(&root.join("plugins"))
    };
    if let Err(e) = ward_wasm_build::build(&root, &target_dir, &plugins, &["plugins", "sdk", "wit"])
    {
        eprintln!("error: {e}");
        std::process::exit(1);
    }

    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default());
    let profile = std::env::var("PROFILE").unwrap_or_else(|_| "debug".into());
    let made = root.join("target/embedded").join(profile);
    // Watched as a directory that exists: a missing path would rerun this every build.
    if let Err(e) = std::fs::create_dir_all(&made) {
        eprintln!("error: cannot create {}: {e}", made.display());
        std::process::exit(1);
    }
    println!("cargo:rerun-if-changed={}", made.display());
    let mut code = String::from(
        "/// The plugins embedded in this binary.\npub static BUILTINS: &[ward_plugin::discovery::Builtin] = &[\n",
    );
    for p in &plugins {
        let wasm = p.wasm_path(&target_dir);
        let embedded = match prepare(&wasm, &made, &out_dir) {
            Ok(embedded) => embedded,
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        };
        let _ = writeln!(
            code,
            "    ward_plugin::discovery::Builtin {{ manifest: include_str!({:?}), component: include_bytes!({:?}), precompiled: include_bytes!({:?}), sha256: {:?}, declared: include_str!({:?}) }},",
            p.manifest.display().to_string(),
            wasm.display().to_string(),
            embedded.precompiled.display().to_string(),
            embedded.sha256,
            embedded.declared.display().to_string(),
        );
    }
    code.push_str("];\n");
    // Composed into every Python plugin by `ward plugin build` (see its `wit/world.wit`).
    let deny = match std::env::var_os("WARD_SKIP_PLUGINS") {
        Some(_) => "&[]".to_string(),
        None => match build_sockets_deny(&root, &target_dir) {
            Ok(wasm) => format!("include_bytes!({:?})", wasm.display().to_string()),
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        },
    };
    let _ = writeln!(
        code,
        "/// The component that refuses `wasi:sockets` inside Python plugins.\npub static SOCKETS_DENY: &[u8] = {deny};"
    );
    let out = out_dir.join("builtins.rs");
    if let Err(e) = std::fs::write(&out, code) {
        eprintln!("error: cannot write {}: {e}", out.display());
        std::process::exit(1);
    }
}

/// Builds `sdk/python/sockets-deny` (its own workspace) and returns its component.
fn build_sockets_deny(
    root: &std::path::Path,
    target_dir: &std::path::Path,
) -> Result<PathBuf, String> {
    let dir = root.join("sdk/python/sockets-deny");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut cmd = ward_wasm_build::guest_build(target_dir);
    cmd.arg("--manifest-path").arg(dir.join("Cargo.toml"));
    match cmd.status() {
        Ok(s) if s.success() => {}
        Ok(s) => return Err(format!("building {} failed ({s})", dir.display())),
        Err(e) => return Err(format!("cannot run cargo to build {}: {e}", dir.display())),
    }
    Ok(target_dir.join("wasm32-wasip2/release/ward_sockets_deny.wasm"))
}

/// What is embedded beside a standard plugin's component.
struct Embedded {
    /// Its compiled code (an empty file when none was made for it).
    precompiled: PathBuf,
    /// Its declarations, as JSON (an empty file when none were made for it).
    declared: PathBuf,
    /// The component's SHA-256, lowercase hex.
    sha256: String,
}

/// Hashes the component at `wasm` and finds what `ward plugin embed-builtins` made of
/// exactly those bytes in `made`, or empty stand-ins written into `out_dir`.
fn prepare(wasm: &Path, made: &Path, out_dir: &Path) -> Result<Embedded, String> {
    let bytes = std::fs::read(wasm).map_err(|e| format!("cannot read {}: {e}", wasm.display()))?;
    let sha256 = Sha256::digest(&bytes)
        .iter()
        .fold(String::new(), |mut hex, b| {
            let _ = write!(hex, "{b:02x}");
            hex
        });
    let precompiled = made.join(format!("{sha256}.cwasm"));
    let declared = made.join(format!("{sha256}.declared.json"));
    if precompiled.is_file() && declared.is_file() {
        return Ok(Embedded {
            precompiled,
            declared,
            sha256,
        });
    }
    let none = out_dir.join("none");
    std::fs::write(&none, b"").map_err(|e| format!("cannot write {}: {e}", none.display()))?;
    Ok(Embedded {
        precompiled: none.clone(),
        declared: none,
        sha256,
    })
}
