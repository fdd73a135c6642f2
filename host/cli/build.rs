//! Builds the first-party plugins in `plugins/` as WebAssembly components, compiles
//! them to native code with the runtime's engine settings ([`ward_engine_config`]), and
//! embeds both in the `ward` binary: the first run of a standard tool deserializes it
//! instead of compiling it (an artifact the running CPU or engine cannot take is
//! compiled as before). Set `WARD_SKIP_PLUGINS=1` to embed none.

#![allow(
    clippy::disallowed_macros,
    reason = "a build script talks to cargo, not to a terminal"
)]

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
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
        let precompiled = match precompile(&engine, &wasm, &out_dir) {
            Ok(path) => path,
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        };
        let _ = writeln!(
            code,
            "    ward_plugin::discovery::Builtin {{ manifest: include_str!({:?}), component: include_bytes!({:?}), precompiled: include_bytes!({:?}) }},",
            p.manifest.display().to_string(),
            wasm.display().to_string(),
            precompiled.display().to_string()
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

/// Compiles the component at `wasm` with `engine` into `out_dir`, returning the path.
fn precompile(
    engine: &wasmtime::Engine,
    wasm: &std::path::Path,
    out_dir: &std::path::Path,
) -> Result<PathBuf, String> {
    let bytes = std::fs::read(wasm).map_err(|e| format!("cannot read {}: {e}", wasm.display()))?;
    let artifact = engine
        .precompile_component(&bytes)
        .map_err(|e| format!("cannot precompile {}: {e}", wasm.display()))?;
    let name = wasm
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let out = out_dir.join(format!("{name}.cwasm"));
    std::fs::write(&out, artifact).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    Ok(out)
}
