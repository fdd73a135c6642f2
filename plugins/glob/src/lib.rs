//! The `glob` tool: finds files whose path matches a glob pattern, newest first, skipping
//! `.git`, `node_modules` and `.gitignore`d files.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use serde_json::json;
use ward_sdk::{Context, Output, Tool, ToolError};
use ward_tool_common::glob::{Glob, has_magic};
use ward_tool_common::path::{display_path, fs_error, resolve};
use ward_tool_common::walk::{WalkOptions, mtime, walk};

/// Most paths returned.
pub const LIMIT: usize = 100;
/// Files examined before the search gives up, so a huge tree cannot exhaust the time limit.
pub const MAX_SCANNED: usize = 200_000;

/// Arguments of `glob`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Args {
    /// The glob pattern to match files against, e.g. `**/*.rs` or `src/**/*.{ts,tsx}`.
    pub pattern: String,
    /// The directory to search in (absolute, or relative to the project directory).
    /// Omit it to search the project directory.
    pub path: Option<String>,
}

/// The `glob` tool.
pub struct GlobTool;

impl Tool for GlobTool {
    type Args = Args;
    const NAME: &'static str = "glob";
    const DESCRIPTION: &'static str = "\
Fast file pattern matching that works with any codebase size.

Usage:
- Supports glob patterns like `**/*.js` or `src/**/*.ts`: `*` matches within one path \
segment, `**` across directories, `?` one character, `[abc]` a set, `{a,b}` alternatives.
- A pattern without `/` matches file names at any depth (`*.rs` finds `src/lib.rs`); a \
pattern with `/` matches the path relative to the searched directory.
- Returns absolute paths of matching files, most recently modified first, at most 100.
- `.git`, `node_modules` and files ignored by `.gitignore` are skipped.
- Use this tool to find files by name; use `grep` to search file contents. For open-ended \
searches needing several rounds of globbing and grepping, consider delegating to an agent.
- You can call several tools in one response: run potentially useful searches in parallel.";

    fn run(args: Args, ctx: &Context) -> Result<Output, ToolError> {
        glob(&ctx.directory, &args)
    }
}

// The component exports only exist in the wasm build: natively the linker rejects the
// WIT export names, and unit tests call the plain functions.
#[cfg(target_arch = "wasm32")]
ward_sdk::export_tools!(GlobTool);

/// Splits the leading literal directories off `pattern` (`src/a/**/*.rs` → `src/a`,
/// `**/*.rs`) so the walk starts as deep as it can. Absolute patterns become a root.
fn split_literal_prefix(root: &Path, pattern: &str) -> (PathBuf, String) {
    let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
    let mut base = if pattern.starts_with('/') {
        PathBuf::from("/")
    } else {
        root.to_path_buf()
    };
    let parts: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
    let literal = parts
        .iter()
        .take(parts.len().saturating_sub(1))
        .take_while(|p| !has_magic(p))
        .count();
    for part in &parts[..literal] {
        base.push(part);
    }
    (
        ward_tool_common::path::normalize(&base),
        parts[literal..].join("/"),
    )
}

/// Runs `glob` for a project rooted at `directory`.
pub fn glob(directory: &str, args: &Args) -> Result<Output, ToolError> {
    let search = resolve(directory, args.path.as_deref().unwrap_or(""));
    if args.pattern.trim().is_empty() {
        return Err(ToolError::InvalidArguments(
            "pattern must not be empty".into(),
        ));
    }
    let (root, rest) = split_literal_prefix(&search, args.pattern.trim());
    // A pattern that had a `/` keeps matching whole relative paths after the split.
    let matcher = if args.pattern.contains('/') {
        Glob::anchored(&rest)
    } else {
        Glob::new(&rest)
    }
    .map_err(ToolError::from)?;

    let mut found: Vec<(u128, PathBuf)> = Vec::new();
    let mut scanned = 0usize;
    walk(&root, &WalkOptions::search(directory), |entry| {
        if entry.is_dir {
            return ControlFlow::Continue(());
        }
        scanned += 1;
        if matcher.is_match(&entry.rel) {
            found.push((mtime(&entry.path), entry.path.clone()));
        }
        if scanned >= MAX_SCANNED {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .or_else(|e| {
        // A literal prefix taken from the pattern that does not exist just matches nothing.
        if e.kind() == std::io::ErrorKind::NotFound && root != search && search.is_dir() {
            Ok(())
        } else {
            Err(fs_error(directory, &root, &e))
        }
    })?;

    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let total = found.len();
    let truncated = total > LIMIT;
    found.truncate(LIMIT);
    let mut output = if found.is_empty() {
        "No files found".to_string()
    } else {
        found
            .iter()
            .map(|(_, p)| p.to_string_lossy())
            .collect::<Vec<_>>()
            .join("\n")
    };
    if truncated {
        output.push_str(
            "\n\n(Results are truncated. Consider using a more specific path or pattern.)",
        );
    }
    if scanned >= MAX_SCANNED {
        output.push_str(&format!(
            "\n\n(The search stopped after {MAX_SCANNED} files. Use a more specific path.)"
        ));
    }
    Ok(
        Output::text(display_path(directory, &search), output).with_metadata(json!({
            "count": found.len(),
            "truncated": truncated,
        })),
    )
}

#[cfg(test)]
mod tests;
