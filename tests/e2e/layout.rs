//! How the host is built, checked from its sources: it acts on what tools declare, so
//! no production code under `host/` names a standard tool's argument. The names are
//! not written here: they are read from the standard tools themselves (`ward tool
//! list`, their JSON Schemas), so a new argument is covered the day it is added.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;
use ward_tests::Project;

/// Argument names that are also words of the host's own vocabulary: a permission key
/// (`unsandboxed`), OpenCode's permission metadata (`command`, `filepath`), the
/// fields of configuration, MCP and the wire (`path`, `url`, `name`, `content`,
/// `description`, `prompt`, …). Naming one of these says nothing about a tool.
const SHARED_WORDS: &[&str] = &[
    "command",
    "content",
    "description",
    "format",
    "include",
    "limit",
    "name",
    "offset",
    "path",
    "pattern",
    "prompt",
    "timeout",
    "unsandboxed",
    "url",
];

/// The argument names of Ward's standard tools, from their own schemas.
fn standard_arguments() -> BTreeSet<String> {
    let p = Project::new("layout-arguments");
    let listed = p.run(&["tool", "list"], "").expect_ok();
    let mut names = BTreeSet::new();
    let mut tools = 0;
    for line in listed.lines() {
        let Some(schema) = line.trim().strip_prefix("parameters: ") else {
            continue;
        };
        let schema: Value = serde_json::from_str(schema)
            .unwrap_or_else(|e| panic!("a tool's schema is JSON ({e}): {schema}"));
        tools += 1;
        for key in schema["properties"].as_object().into_iter().flatten() {
            names.insert(key.0.clone());
        }
    }
    assert!(tools >= 8, "the standard tools are listed: {listed}");
    names
}

/// The Rust sources of every host crate.
fn host_sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            host_sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The production part of a source file: none of a test file, and a file's text
/// before its `#[cfg(test)]` module (which the house style puts last); comments out.
fn production(host: &Path, path: &Path, text: &str) -> Vec<(usize, String)> {
    let file = path
        .file_name()
        .and_then(|f| f.to_str())
        .unwrap_or_default();
    let inside = path.strip_prefix(host).unwrap_or(path);
    let in_tests_dir = inside.components().any(|c| c.as_os_str() == "tests");
    if file == "tests.rs" || file.ends_with("_tests.rs") || in_tests_dir {
        return Vec::new();
    }
    text.lines()
        .enumerate()
        .take_while(|(_, line)| line.trim() != "#[cfg(test)]")
        .filter(|(_, line)| !line.trim_start().starts_with("//"))
        .map(|(i, line)| (i + 1, line.to_string()))
        .collect()
}

#[test]
fn the_host_names_no_standard_tools_argument() {
    let arguments: BTreeSet<String> = standard_arguments()
        .into_iter()
        .filter(|a| !SHARED_WORDS.contains(&a.as_str()))
        .collect();
    // The ones every host once knew by name are among them.
    for known in ["filePath", "patchText", "oldString"] {
        assert!(arguments.contains(known), "{known} in {arguments:?}");
    }
    // Canonical, so that the harness's own directory (`tests/`) is not in the path.
    let host = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../host")
        .canonicalize()
        .expect("the host's sources");
    let mut files = Vec::new();
    host_sources(&host, &mut files);
    assert!(files.len() > 100, "the host's sources are found: {host:?}");
    let mut scanned = 0;
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let lines = production(&host, file, &text);
        scanned += lines.len();
        for (number, line) in lines {
            for argument in &arguments {
                if line.contains(&format!("\"{argument}\"")) {
                    found.push(format!("{}:{number}: {argument}", file.display()));
                }
            }
        }
    }
    assert!(scanned > 50_000, "production lines are read: {scanned}");
    assert!(
        found.is_empty(),
        "the host must act on what a tool declares ([tools.NAME] in its manifest), \
         not on its argument names:\n{}",
        found.join("\n")
    );
}

/// The frontends: each reaches a project through the engine alone.
const FRONTENDS: &[&str] = &["acp", "mcp-server", "server", "tui"];

/// What a frontend may depend on of Ward's: the engine, the protocol crate, and the
/// frontends' own helpers (terminal text, the HTTP guard), which themselves depend on
/// nothing of Ward's.
const FRONT_DOOR: &[&str] = &[
    "ward-engine",
    "ward-protocol",
    "ward-term",
    "ward-http-guard",
];

/// Every `ward-*` crate a manifest depends on, in any dependency table (normal, dev,
/// build, per target).
fn ward_dependencies(manifest: &Path) -> Vec<String> {
    let text =
        std::fs::read_to_string(manifest).unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
    let doc: toml::Table =
        toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
    let mut tables: Vec<&toml::Table> = Vec::new();
    for key in ["dependencies", "dev-dependencies", "build-dependencies"] {
        tables.extend(doc.get(key).and_then(toml::Value::as_table));
    }
    for target in doc
        .get("target")
        .and_then(toml::Value::as_table)
        .into_iter()
        .flat_map(|t| t.values())
    {
        for key in ["dependencies", "dev-dependencies", "build-dependencies"] {
            tables.extend(target.get(key).and_then(toml::Value::as_table));
        }
    }
    tables
        .into_iter()
        .flat_map(|t| t.keys())
        .filter(|name| name.starts_with("ward-"))
        .cloned()
        .collect()
}

#[test]
fn frontends_reach_the_project_through_the_engine_alone() {
    let host = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../host")
        .canonicalize()
        .expect("the host's sources");
    let mut found = Vec::new();
    for frontend in FRONTENDS {
        let deps = ward_dependencies(&host.join(frontend).join("Cargo.toml"));
        assert!(
            deps.iter().any(|d| d == "ward-engine"),
            "{frontend} depends on the engine: {deps:?}"
        );
        for dep in deps {
            if !FRONT_DOOR.contains(&dep.as_str()) {
                found.push(format!("host/{frontend}/Cargo.toml: {dep}"));
            }
        }
        // Nor through the engine's own parts: its workspace and store are its business.
        let mut files = Vec::new();
        host_sources(&host.join(frontend).join("src"), &mut files);
        assert!(!files.is_empty(), "{frontend}'s sources are found");
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            for (number, line) in text.lines().enumerate() {
                if line.contains(".workspace()") || line.contains(".store()") {
                    found.push(format!(
                        "{}:{}: {}",
                        file.display(),
                        number + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    for helper in ["term", "http-guard"] {
        for dep in ward_dependencies(&host.join(helper).join("Cargo.toml")) {
            found.push(format!(
                "host/{helper}/Cargo.toml (a frontend helper): {dep}"
            ));
        }
    }
    assert!(
        found.is_empty(),
        "a frontend depends on ward-engine and ward-protocol (and the helpers \
         ward-term, ward-http-guard) only, and asks the engine for what it shows:\n{}",
        found.join("\n")
    );
}
