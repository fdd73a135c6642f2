//! Builds the first-party plugins in `plugins/` as WebAssembly components, compiles
//! them to native code with the runtime's engine settings ([`ward_engine_config`]), asks
//! each what it declares ([`declare`]), and embeds all three in the `ward` binary with
//! the component's SHA-256: the first run of a standard tool deserializes it instead of
//! compiling it (an artifact the running CPU or engine cannot take is compiled as
//! before), and listing the standard tools loads no component at all. Set
//! `WARD_SKIP_PLUGINS=1` to embed none. How the binary is linked: [`link`].

#![allow(
    clippy::disallowed_macros,
    reason = "a build script talks to cargo, not to a terminal"
)]

mod declare;
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
    let engine = match wasmtime::Engine::new(&ward_engine_config::config(false)) {
        Ok(engine) => engine,
        Err(e) => {
            eprintln!("error: cannot build the engine that precompiles the standard tools: {e}");
            std::process::exit(1);
        }
    };
    let mut code = String::from(
        "/// The plugins embedded in this binary.\npub static BUILTINS: &[ward_plugin::discovery::Builtin] = &[\n",
    );
    for p in &plugins {
        let wasm = p.wasm_path(&target_dir);
        let embedded = match prepare(&engine, &wasm, &out_dir) {
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
    /// Its compiled code.
    precompiled: PathBuf,
    /// Its declarations, as JSON.
    declared: PathBuf,
    /// The component's SHA-256, lowercase hex.
    sha256: String,
}

/// Compiles the component at `wasm` with `engine` and asks it what it declares, writing
/// both into `out_dir`.
fn prepare(engine: &wasmtime::Engine, wasm: &Path, out_dir: &Path) -> Result<Embedded, String> {
    let bytes = std::fs::read(wasm).map_err(|e| format!("cannot read {}: {e}", wasm.display()))?;
    let artifact = engine
        .precompile_component(&bytes)
        .map_err(|e| format!("cannot precompile {}: {e}", wasm.display()))?;
    let name = wasm
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let precompiled = out_dir.join(format!("{name}.cwasm"));
    std::fs::write(&precompiled, &artifact)
        .map_err(|e| format!("cannot write {}: {e}", precompiled.display()))?;
    // SAFETY: `artifact` was compiled just above by this engine.
    let component = unsafe { wasmtime::component::Component::deserialize(engine, &artifact) }
        .map_err(|e| format!("cannot load {} compiled: {e}", wasm.display()))?;
    let json = declare::declarations(engine, &component)
        .map_err(|e| format!("{}: asking what it declares: {e}", wasm.display()))?;
    let declared = out_dir.join(format!("{name}.declared.json"));
    std::fs::write(&declared, json.to_string())
        .map_err(|e| format!("cannot write {}: {e}", declared.display()))?;
    let sha256 = Sha256::digest(&bytes)
        .iter()
        .fold(String::new(), |mut hex, b| {
            let _ = write!(hex, "{b:02x}");
            hex
        });
    Ok(Embedded {
        precompiled,
        declared,
        sha256,
    })
}
