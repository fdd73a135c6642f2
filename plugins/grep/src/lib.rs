//! The `grep` tool: searches file contents line by line with a regular expression, files
//! newest first, matches grouped by file; skips binary files, `.git`, `node_modules` and
//! `.gitignore`d files.

use std::ops::ControlFlow;
use std::path::PathBuf;

use regex::{Regex, RegexBuilder};
use serde_json::json;
use ward_sdk::{Context, Output, Tool, ToolError};
use ward_tool_common::fs::File;
use ward_tool_common::glob::Glob;
use ward_tool_common::path::{fs_error, resolve};
use ward_tool_common::text::{SNIFF_BYTES, has_binary_extension, looks_binary};
use ward_tool_common::truncate::{MAX_LINE_CHARS, cut_line};
use ward_tool_common::walk::{WalkOptions, walk};

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
        Some(glob) if !glob.is_empty() => Some(Glob::new(glob)?),
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

/// The files to search, in walk order.
fn candidate_files(
    directory: &str,
    root: &std::path::Path,
    include: Option<&Glob>,
) -> Result<Vec<PathBuf>, ToolError> {
    let meta = std::fs::metadata(root).map_err(|e| fs_error(directory, root, &e))?;
    if meta.is_file() {
        return Ok(vec![root.to_path_buf()]);
    }
    let mut files = Vec::new();
    walk(root, &WalkOptions::search(directory), |entry| {
        let wanted = !entry.is_dir
            && !has_binary_extension(&entry.path)
            && include.is_none_or(|g| g.is_match(&entry.rel));
        if wanted {
            files.push(entry.path.clone());
        }
        if files.len() >= MAX_SCANNED {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .map_err(|e| fs_error(directory, root, &e))?;
    Ok(files)
}

/// The matches found in one file.
struct FileHits {
    /// Modification time, nanoseconds since the epoch (0 when unknown).
    modified: u128,
    path: PathBuf,
    /// 1-based line number and line, at most [`LIMIT`] of them.
    lines: Vec<(usize, String)>,
}

/// Searches `files`; returns the first [`LIMIT`] matches, files newest first, and the
/// total count.
///
/// Each file is opened once and its size and modification time read from the open
/// file, so no file is stat'ed by path: inside the sandbox every path lookup is a
/// checked host call. Files are therefore searched in walk order and only the files
/// that matched are sorted.
///
/// Lines are matched one by one, as `str::lines` splits them (a `\r\n` ending is not
/// part of the line) on the text made valid UTF-8. `grep-searcher` with `grep-regex`
/// (#15 item 7; they build for wasm32-wasip2 without memory maps) cannot keep that on
/// its fast path: in CRLF mode `\s$` and ` $` stop matching lines ending in a plain
/// `\n` and a literal `\r` is refused; without it `end$` stops matching CRLF lines and
/// `\r` matches; and `.` no longer matches a byte that is not UTF-8 (`caf. x` on
/// Latin-1 text). Its slow path (a regex call per line) is this loop again.
fn search(regex: &Regex, files: &[PathBuf]) -> (Vec<Match>, usize) {
    let mut found: Vec<FileHits> = Vec::new();
    let mut kept = 0;
    let mut total = 0;
    for path in files {
        let Some(bytes) = read_searchable(path) else {
            continue;
        };
        let (modified, bytes) = bytes;
        // Validating first is much faster than the lossy conversion, which only the
        // rare file that is not UTF-8 needs.
        let text = match std::str::from_utf8(&bytes) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(&bytes),
        };
        let mut lines = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if !regex.is_match(line) {
                continue;
            }
            total += 1;
            if lines.len() < LIMIT {
                let line = cut_line(line.trim_end_matches('\r'), MAX_LINE_CHARS);
                lines.push((i + 1, line.into_owned()));
            }
        }
        if !lines.is_empty() {
            kept += lines.len();
            found.push(FileHits {
                modified,
                path: path.clone(),
                lines,
            });
            if kept > 4 * LIMIT {
                kept = keep_first(&mut found);
            }
        }
    }
    keep_first(&mut found);
    let matches = found
        .into_iter()
        .flat_map(|file| {
            let path = file.path;
            file.lines.into_iter().map(move |(line, text)| Match {
                path: path.clone(),
                line,
                text,
            })
        })
        .take(LIMIT)
        .collect();
    (matches, total)
}

/// Sorts `found` newest first (then by path) and drops the files after those holding
/// the first [`LIMIT`] matches; returns how many matches are left.
fn keep_first(found: &mut Vec<FileHits>) -> usize {
    found.sort_by(|a, b| {
        b.modified
            .cmp(&a.modified)
            .then_with(|| a.path.cmp(&b.path))
    });
    let mut kept = 0;
    let mut files = 0;
    while files < found.len() && kept < LIMIT {
        kept += found[files].lines.len();
        files += 1;
    }
    found.truncate(files);
    kept
}

/// The modification time and contents of `path`, unless it cannot be read, is larger
/// than [`MAX_FILE_BYTES`] or looks binary.
fn read_searchable(path: &std::path::Path) -> Option<(u128, Vec<u8>)> {
    let mut file = File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    if meta.is_dir || meta.len > MAX_FILE_BYTES {
        return None;
    }
    let bytes = file.read_up_to(meta.len).ok()?;
    if looks_binary(&bytes[..bytes.len().min(SNIFF_BYTES)]) {
        return None;
    }
    Some((meta.modified, bytes))
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
