//! `ward plugin new --lang rust NAME`: a plugin directory that builds and loads as it is.
//!
//! The SDK and the WIT contract are written into the new directory (`vendor/`) from
//! copies compiled into this binary, so the scaffold builds offline and always matches
//! the API version of the Ward that made it.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

const SDK_LIB: &str = include_str!("../../../../../sdk/rust/src/lib.rs");
const SDK_TOOL: &str = include_str!("../../../../../sdk/rust/src/tool.rs");
const SDK_HOST: &str = include_str!("../../../../../sdk/rust/src/host_api.rs");
const SDK_HOOKS: &str = include_str!("../../../../../sdk/rust/src/hooks.rs");
const WIT: &str = include_str!("../../../../../wit/ward-plugin.wit");

/// Versions the vendored SDK is known to build with (those of this workspace).
const SDK_MANIFEST: &str = r#"[package]
name = "ward-sdk"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
wit-bindgen = "0.61"
serde = { version = "1", features = ["derive"] }
serde_json = "1"
schemars = "1"
"#;

/// Creates plugin `name` under `parent`, returning its directory.
pub fn new_rust(parent: &Path, name: &str) -> Result<PathBuf> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
        || !name.starts_with(|c: char| c.is_ascii_lowercase())
    {
        bail!("plugin name `{name}` must start with a-z and use only a-z, 0-9, `-` and `_`");
    }
    let dir = parent.join(name);
    if dir.exists() {
        bail!("{} already exists", dir.display());
    }
    let crate_name = name.replace('-', "_");
    let tool_name = crate_name.clone();
    let files: Vec<(&str, String)> = vec![
        ("Cargo.toml", cargo_toml(name)),
        ("plugin.toml", plugin_toml(name, &crate_name)),
        ("src/lib.rs", lib_rs(&tool_name)),
        (".gitignore", "target/\n".to_string()),
        ("vendor/sdk/rust/Cargo.toml", SDK_MANIFEST.to_string()),
        ("vendor/sdk/rust/src/lib.rs", SDK_LIB.to_string()),
        ("vendor/sdk/rust/src/tool.rs", SDK_TOOL.to_string()),
        ("vendor/sdk/rust/src/host_api.rs", SDK_HOST.to_string()),
        ("vendor/sdk/rust/src/hooks.rs", SDK_HOOKS.to_string()),
        ("vendor/wit/ward-plugin.wit", WIT.to_string()),
    ];
    for (rel, text) in files {
        let path = dir.join(rel);
        if let Some(p) = path.parent() {
            std::fs::create_dir_all(p).with_context(|| format!("creating {}", p.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(dir)
}

fn cargo_toml(name: &str) -> String {
    format!(
        r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2024"
publish = false

[lib]
crate-type = ["cdylib"]

[dependencies]
ward-sdk = {{ path = "vendor/sdk/rust" }}
serde = {{ version = "1", features = ["derive"] }}
schemars = "1"

# A plugin is its own workspace, wherever it is placed.
[workspace]
"#
    )
}

fn plugin_toml(name: &str, crate_name: &str) -> String {
    format!(
        r#"[plugin]
name = "{name}"
version = "0.1.0"
api = "0.1.0"
description = "A Ward plugin"
kinds = ["tool"]
component = "{crate_name}.wasm"

# The most this plugin may ever be granted; a person grants it in ward.toml.
[capabilities]

[limits]
memory-mib = 64
time-ms = 30000
output-bytes = 1048576
"#
    )
}

fn lib_rs(tool: &str) -> String {
    format!(
        r#"//! A Ward tool plugin.
use ward_sdk::{{Context, Output, Tool, ToolError}};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {{
    /// Who to greet.
    name: String,
}}

struct Hello;

impl Tool for Hello {{
    type Args = Args;
    const NAME: &'static str = "{tool}";
    const DESCRIPTION: &'static str = "Greet someone by name.";
    fn run(args: Args, _ctx: &Context) -> Result<Output, ToolError> {{
        Ok(Output::text("hello", format!("Hello, {{}}!", args.name)))
    }}
}}

ward_sdk::export_tools!(Hello);
"#
    )
}
