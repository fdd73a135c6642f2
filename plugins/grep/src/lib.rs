//! The `grep` tool: searches file contents line by line with a regular expression, files
//! newest first, matches grouped by file; skips binary files, `.git`, `node_modules` and
//! `.gitignore`d files.

use std::ops::ControlFlow;
use std::path::PathBuf;

use regex::{Regex, RegexBuilder};
use serde_json::json;
use ward_sdk::{Context, Output, Tool, ToolError};
use ward_tool_common::glob::Glob;
use ward_tool_common::path::{fs_error, resolve};
use ward_tool_common::text::{SNIFF_BYTES, has_binary_extension, looks_binary};
use ward_tool_common::truncate::{MAX_LINE_CHARS, cut_line};
use ward_tool_common::walk::{WalkOptions, mtime, walk};

/// Most matches returned.
pub const LIMIT: usize = 100;
/// Files larger than this are not searched (logs, dumps, generated bundles).
pub const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;
/// Files examined before the search gives up, so a huge tree cannot exhaust the time limit.
pub const MAX_SCANNED: usize = 200_000;

/// Arguments of `grep`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Args {
    /// The regular expression to search for in file contents (Rust regex syntax, like
    /// ripgrep's), e.g. `fn\s+main` or `log.*Error`.
    pub pattern: String,
    /// The file or directory to search in (absolute, or relative to the project
    /// directory). Omit it to search the project directory.
    pub path: Option<String>,
    /// Only search files whose name matches this glob, e.g. `*.rs` or `*.{ts,tsx}`.
    pub include: Option<String>,
}

/// The `grep` tool.
pub struct Grep;

impl Tool for Grep {
    type Args = Args;
    const NAME: &'static str = "grep";
    const DESCRIPTION: &'static str = "\
Fast content search that works with any codebase size.

Usage:
- Searches file contents with a regular expression (Rust/ripgrep syntax: `log.*Error`, \
`function\\s+\\w+`, `(?i)todo` for case-insensitive). Matching is per line.
- Filter files with include (e.g. `*.js`, `*.{ts,tsx}`); limit the search with path.
- Returns at most 100 matches as `Line N: text` grouped by file, files most recently \
modified first. Binary files, `.git`, `node_modules` and `.gitignore`d files are skipped.
- Use this tool to find where something is written; use `glob` to find files by name. For \
counting or other complex searches, use `rg` through the bash tool if it is available.
- For open-ended searches needing several rounds, consider delegating to an agent.";

    fn run(args: Args, ctx: &Context) -> Result<Output, ToolError> {
        grep(&ctx.directory, &args)
    }
}

// The component exports only exist in the wasm build: natively the linker rejects the
// WIT export names, and unit tests call the plain functions.
#[cfg(target_arch = "wasm32")]
ward_sdk::export_tools!(Grep);

/// One matching line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    /// The file.
    pub path: PathBuf,
    /// 1-based line number.
    pub line: usize,
    /// The line, cut to [`MAX_LINE_CHARS`].
    pub text: String,
}

/// Runs `grep` for a project rooted at `directory`.
pub fn grep(directory: &str, args: &Args) -> Result<Output, ToolError> {
    if args.pattern.is_empty() {
        return Err(ToolError::InvalidArguments(
            "pattern must not be empty".into(),
        ));
    }
    let regex = RegexBuilder::new(&args.pattern)
        .size_limit(50 * 1024 * 1024)
        .build()
        .map_err(|e| ToolError::InvalidArguments(format!("invalid regex: {e}")))?;
    let include = match args.include.as_deref().map(str::trim) {
        Some(glob) if !glob.is_empty() => {
            Some(Glob::new(glob).map_err(ToolError::InvalidArguments)?)
        }
        _ => None,
    };
    let root = resolve(directory, args.path.as_deref().unwrap_or(""));
    let files = candidate_files(directory, &root, include.as_ref())?;
    let (matches, total) = search(&regex, &files);
    let output = render(&matches, total);
    Ok(
        Output::text(args.pattern.clone(), output).with_metadata(json!({
            "matches": total,
            "truncated": total > matches.len(),
        })),
    )
}

/// The files to search, newest first.
fn candidate_files(
    directory: &str,
    root: &std::path::Path,
    include: Option<&Glob>,
) -> Result<Vec<PathBuf>, ToolError> {
    let meta = std::fs::metadata(root).map_err(|e| fs_error(directory, root, &e))?;
    if meta.is_file() {
        return Ok(vec![root.to_path_buf()]);
    }
    let mut files: Vec<(u128, PathBuf)> = Vec::new();
    walk(root, &WalkOptions::search(directory), |entry| {
        let wanted = !entry.is_dir
            && !has_binary_extension(&entry.path)
            && include.is_none_or(|g| g.is_match(&entry.rel));
        if wanted {
            files.push((mtime(&entry.path), entry.path.clone()));
        }
        if files.len() >= MAX_SCANNED {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .map_err(|e| fs_error(directory, root, &e))?;
    files.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    Ok(files.into_iter().map(|(_, p)| p).collect())
}

/// Searches `files` in order; returns the first [`LIMIT`] matches and the total count.
fn search(regex: &Regex, files: &[PathBuf]) -> (Vec<Match>, usize) {
    let mut matches = Vec::new();
    let mut total = 0;
    for path in files {
        let too_big = std::fs::metadata(path).map_or(true, |m| m.len() > MAX_FILE_BYTES);
        if too_big {
            continue;
        }
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        if looks_binary(&bytes[..bytes.len().min(SNIFF_BYTES)]) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        for (i, line) in text.lines().enumerate() {
            if !regex.is_match(line) {
                continue;
            }
            total += 1;
            if matches.len() < LIMIT {
                matches.push(Match {
                    path: path.clone(),
                    line: i + 1,
                    text: cut_line(line.trim_end_matches('\r'), MAX_LINE_CHARS).into_owned(),
                });
            }
        }
    }
    (matches, total)
}

/// Formats matches grouped by file.
fn render(matches: &[Match], total: usize) -> String {
    if matches.is_empty() {
        return "No files found".to_string();
    }
    let mut out = format!("Found {total} matches");
    if total > matches.len() {
        out.push_str(&format!(" (showing first {})", matches.len()));
    }
    let mut current: Option<&PathBuf> = None;
    for m in matches {
        if current != Some(&m.path) {
            out.push_str(&format!("\n\n{}:", m.path.display()));
            current = Some(&m.path);
        }
        out.push_str(&format!("\n  Line {}: {}", m.line, m.text));
    }
    if total > matches.len() {
        out.push_str(&format!(
            "\n\n(Results truncated: showing {} of {total} matches ({} hidden). Consider using a \
more specific path or pattern.)",
            matches.len(),
            total - matches.len()
        ));
    }
    out
}

#[cfg(test)]
mod tests;
