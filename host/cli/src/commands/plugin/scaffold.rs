//! `ward plugin new --lang rust|js|python NAME`: a plugin directory that builds and
//! loads as it is.
//!
//! The WIT contract (and for Rust the SDK, in `vendor/`) is written into the new
//! directory from copies compiled into this binary, so the scaffold always matches the
//! API version of the Ward that made it: `ward:plugin@0.2.0` for Rust (the SDK's own
//! WIT, inside the vendored crate), 0.1.0 for JavaScript and Python, whose SDK helpers
//! (from `ward plugin build`) are written for it. They pin their componentize tool.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

const SDK_LIB: &str = include_str!("../../../../../sdk/rust/src/lib.rs");
const SDK_TOOL: &str = include_str!("../../../../../sdk/rust/src/tool.rs");
const SDK_HOST: &str = include_str!("../../../../../sdk/rust/src/host_api.rs");
const SDK_HOOKS: &str = include_str!("../../../../../sdk/rust/src/hooks.rs");
const SDK_AGENTS: &str = include_str!("../../../../../sdk/rust/src/agents.rs");
const SDK_SKILLS: &str = include_str!("../../../../../sdk/rust/src/skills.rs");
/// The contract the Rust SDK builds for, `ward:plugin@0.2.0`.
const SDK_WIT: &str = include_str!("../../../../../sdk/rust/wit/ward-plugin.wit");
/// The API version of [`SDK_WIT`].
const SDK_API: &str = "0.2.0";
/// The contract the JavaScript and Python helpers are written for, `ward:plugin@0.1.0`.
const WIT: &str = include_str!("../../../../../wit/since_v0.1.0/ward-plugin.wit");
/// The API version of [`WIT`].
const WIT_API: &str = "0.1.0";

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

/// The directory for plugin `name` under `parent`, once the name is checked.
fn plugin_dir(parent: &Path, name: &str) -> Result<PathBuf> {
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
    Ok(dir)
}

/// Writes `files` (relative path, text) under `dir`.
fn write_files(dir: &Path, files: Vec<(&str, String)>) -> Result<()> {
    for (rel, text) in files {
        let path = dir.join(rel);
        if let Some(p) = path.parent() {
            std::fs::create_dir_all(p).with_context(|| format!("creating {}", p.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// Creates plugin `name` under `parent`, returning its directory.
pub fn new_rust(parent: &Path, name: &str) -> Result<PathBuf> {
    let dir = plugin_dir(parent, name)?;
    let crate_name = name.replace('-', "_");
    let tool_name = crate_name.clone();
    let files: Vec<(&str, String)> = vec![
        ("Cargo.toml", cargo_toml(name)),
        (
            "plugin.toml",
            plugin_toml(name, SDK_API, &format!("{crate_name}.wasm"), 64),
        ),
        ("src/lib.rs", lib_rs(&tool_name)),
        (".gitignore", "target/\n".to_string()),
        ("vendor/sdk/rust/Cargo.toml", SDK_MANIFEST.to_string()),
        ("vendor/sdk/rust/src/lib.rs", SDK_LIB.to_string()),
        ("vendor/sdk/rust/src/tool.rs", SDK_TOOL.to_string()),
        ("vendor/sdk/rust/src/host_api.rs", SDK_HOST.to_string()),
        ("vendor/sdk/rust/src/hooks.rs", SDK_HOOKS.to_string()),
        ("vendor/sdk/rust/src/agents.rs", SDK_AGENTS.to_string()),
        ("vendor/sdk/rust/src/skills.rs", SDK_SKILLS.to_string()),
        ("vendor/sdk/rust/wit/ward-plugin.wit", SDK_WIT.to_string()),
    ];
    write_files(&dir, files)?;
    Ok(dir)
}

/// Creates JavaScript plugin `name` under `parent`, returning its directory.
pub fn new_js(parent: &Path, name: &str) -> Result<PathBuf> {
    let dir = plugin_dir(parent, name)?;
    let tool = name.replace('-', "_");
    let files: Vec<(&str, String)> = vec![
        ("plugin.toml", plugin_toml(name, WIT_API, "tool.wasm", 128)),
        ("tool.js", tool_js(&tool)),
        ("package.json", package_json(name)),
        (".gitignore", "node_modules/\n".to_string()),
        ("wit/ward-plugin.wit", WIT.to_string()),
    ];
    write_files(&dir, files)?;
    Ok(dir)
}

/// Creates Python plugin `name` under `parent`, returning its directory.
pub fn new_python(parent: &Path, name: &str) -> Result<PathBuf> {
    let dir = plugin_dir(parent, name)?;
    let tool = name.replace('-', "_");
    let files: Vec<(&str, String)> = vec![
        ("plugin.toml", plugin_toml(name, WIT_API, "tool.wasm", 128)),
        ("app.py", app_py(&tool)),
        (
            "requirements.txt",
            format!(
                "# The tool `ward plugin build` builds this plugin with.\ncomponentize-py=={}\n",
                super::build::COMPONENTIZE_PY
            ),
        ),
        (".gitignore", ".venv/\n__pycache__/\n".to_string()),
        ("wit/ward-plugin.wit", WIT.to_string()),
    ];
    write_files(&dir, files)?;
    Ok(dir)
}

fn package_json(name: &str) -> String {
    format!(
        r#"{{
  "name": "{name}",
  "version": "0.1.0",
  "private": true,
  "type": "module",
  "main": "tool.js",
  "scripts": {{
    "build": "ward plugin build ."
  }},
  "devDependencies": {{
    "@bytecodealliance/componentize-js": "{}",
    "@bytecodealliance/preview2-shim": "{}"
  }}
}}
"#,
        super::build::COMPONENTIZE_JS,
        super::build::PREVIEW2_SHIM
    )
}

fn tool_js(tool: &str) -> String {
    format!(
        r#"// A Ward tool plugin. `ward plugin build` supplies `./ward.js` (the SDK helper).
import {{ tools }} from "./ward.js";

export const tool = tools({{
  {tool}: {{
    description: "Greet someone by name.",
    parameters: {{ name: {{ type: "string", description: "Who to greet." }} }},
    run: ({{ name }}) => `Hello, ${{name}}!`,
  }},
}});
"#
    )
}

fn app_py(tool: &str) -> String {
    format!(
        r#""""A Ward tool plugin. `ward plugin build` supplies `ward_sdk` (the SDK helper)."""

from ward_sdk import Tool, tool  # noqa: F401 - `Tool` is the export componentize-py builds


@tool("Greet someone by name.", {{"name": {{"type": "string", "description": "Who to greet."}}}})
def {tool}(args, context):
    return f"Hello, {{args['name']}}!"
"#
    )
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

fn plugin_toml(name: &str, api: &str, component: &str, memory_mib: u32) -> String {
    format!(
        r#"[plugin]
name = "{name}"
version = "0.1.0"
api = "{api}"
description = "A Ward plugin"
kinds = ["tool"]
component = "{component}"

# The most this plugin may ever be granted; a person grants it in ward.toml.
[capabilities]

[limits]
memory-mib = {memory_mib}
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
