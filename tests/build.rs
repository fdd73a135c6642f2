//! Builds the test-only plugins in `tests/plugins/` (the hostile suite and friends) as
//! components and records where they are.

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = ward_wasm_build::workspace_root(&manifest_dir);
    let target_dir = root.join("target/wasm");
    // The first-party plugins too: the benchmarks run them through the same harness.
    let mut plugins = ward_wasm_build::find_plugins(&manifest_dir.join("plugins"));
    plugins.extend(ward_wasm_build::find_plugins(&root.join("plugins")));
    if let Err(e) = ward_wasm_build::build(
        &root,
        &target_dir,
        &plugins,
        &["tests/plugins", "plugins", "sdk", "wit"],
    ) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
    let mut code = String::from(
        "/// Test plugins: (name, directory, component).\npub const TEST_PLUGINS: &[(&str, &str, &str)] = &[\n",
    );
    for p in &plugins {
        let name = p
            .dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let _ = writeln!(
            code,
            "    ({name:?}, {:?}, {:?}),",
            p.dir.display().to_string(),
            p.wasm_path(&target_dir).display().to_string()
        );
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default()).join("test_plugins.rs");
    if let Err(e) = std::fs::write(&out, code) {
        eprintln!("error: cannot write {}: {e}", out.display());
        std::process::exit(1);
    }
}
