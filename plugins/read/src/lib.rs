//! The `read` tool: reads a text file with line numbers (paged with `offset`/`limit`,
//! capped at 50 KB), attaches images and PDFs, lists directories, refuses binary files,
//! and suggests near names when a file is missing.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde_json::json;
use ward_sdk::{Attachment, Context, Output, Tool, ToolError};
use ward_tool_common::path::{display_path, fs_error, outside_hint, resolve};
use ward_tool_common::text::{attachable_mime, data_url, edit_distance, is_binary_file};
use ward_tool_common::truncate::{MAX_BYTES, MAX_LINE_CHARS, cut_line};

/// Lines read when `limit` is not given.
pub const DEFAULT_LIMIT: usize = 2000;
/// Largest image or PDF attached.
pub const MAX_ATTACHMENT_BYTES: u64 = 5 * 1024 * 1024;

/// Arguments of `read`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Args {
    /// The path of the file or directory to read: absolute, or relative to the project
    /// directory.
    pub file_path: String,
    /// The line number to start reading from (1-based). Only needed for large files.
    #[schemars(range(min = 1))]
    pub offset: Option<usize>,
    /// The maximum number of lines to read (default 2000). Only needed for large files.
    #[schemars(range(min = 1))]
    pub limit: Option<usize>,
}

/// The `read` tool.
pub struct Read;

impl Tool for Read {
    type Args = Args;
    const NAME: &'static str = "read";
    const DESCRIPTION: &'static str = "\
Reads a file from the local filesystem, or lists a directory.

Usage:
- filePath is an absolute path, or a path relative to the project directory.
- By default it reads up to 2000 lines from the start of the file. For large files, pass \
offset (1-based line number) and limit to read a window; the output says where to continue.
- Output lines are numbered as `N: content`; the number and `: ` are not part of the file. \
Lines longer than 2000 characters are cut and end in `...`; the output stops at 50 KB.
- A directory path returns its entries, sorted, directories ending in `/`.
- Images (png, jpg, gif, webp, bmp) and PDFs are returned as attachments; other binary \
files are refused.
- Reading several files you may need is cheap: read them in parallel rather than one by one.
- Prefer this tool over `cat`, `head` or `tail` in bash.";

    fn run(args: Args, ctx: &Context) -> Result<Output, ToolError> {
        read(&ctx.directory, &args)
    }
}

// The component exports only exist in the wasm build: natively the linker rejects the
// WIT export names, and unit tests call the plain functions.
#[cfg(target_arch = "wasm32")]
ward_sdk::export_tools!(Read);

/// Runs `read` for a project rooted at `directory`.
pub fn read(directory: &str, args: &Args) -> Result<Output, ToolError> {
    if args.offset == Some(0) {
        return Err(ToolError::InvalidArguments(
            "offset must be greater than or equal to 1".into(),
        ));
    }
    if args.limit == Some(0) {
        return Err(ToolError::InvalidArguments(
            "limit must be greater than or equal to 1".into(),
        ));
    }
    let offset = args.offset.unwrap_or(1);
    let limit = args.limit.unwrap_or(DEFAULT_LIMIT);
    let path = resolve(directory, &args.file_path);
    let title = display_path(directory, &path);
    let meta = match std::fs::metadata(&path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(not_found(directory, &path));
        }
        Err(e) => return Err(fs_error(directory, &path, &e)),
    };
    if meta.is_dir() {
        return list_directory(directory, &path, title, offset, limit);
    }
    if let Some(mime) = attachable_mime(&path) {
        return attach(directory, &path, title, mime, meta.len());
    }
    if is_binary_file(&path).map_err(|e| fs_error(directory, &path, &e))? {
        return Err(ToolError::Failed(format!(
            "Cannot read binary file: {}",
            path.display()
        )));
    }
    read_text(directory, &path, title, offset, limit)
}

/// A window of a text file.
#[derive(Debug, Default)]
struct Window {
    /// Lines shown, already cut to [`MAX_LINE_CHARS`].
    lines: Vec<String>,
    /// Lines seen up to where reading stopped (the file's length when `more` is false).
    seen: usize,
    /// The file goes on after the window.
    more: bool,
    /// The window stopped at the byte cap rather than at `limit`.
    capped: bool,
}

fn read_window(path: &Path, offset: usize, limit: usize) -> std::io::Result<Window> {
    let mut reader = BufReader::new(File::open(path)?);
    let mut window = Window::default();
    let mut bytes = 0;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 {
            break;
        }
        window.seen += 1;
        if window.seen < offset {
            continue;
        }
        if window.lines.len() == limit {
            window.more = true;
            break;
        }
        let text = String::from_utf8_lossy(&buf);
        let text = text.trim_end_matches('\n').trim_end_matches('\r');
        let line = cut_line(text, MAX_LINE_CHARS).into_owned();
        let numbered = line.len() + window.seen.to_string().len() + 3;
        if bytes + numbered > MAX_BYTES && !window.lines.is_empty() {
            window.more = true;
            window.capped = true;
            break;
        }
        bytes += numbered;
        window.lines.push(line);
    }
    Ok(window)
}

fn read_text(
    directory: &str,
    path: &Path,
    title: String,
    offset: usize,
    limit: usize,
) -> Result<Output, ToolError> {
    let window = read_window(path, offset, limit).map_err(|e| fs_error(directory, path, &e))?;
    if window.lines.is_empty() && !(window.seen == 0 && offset == 1) {
        return Err(ToolError::InvalidArguments(format!(
            "Offset {offset} is out of range for this file ({} lines)",
            window.seen
        )));
    }
    let last = offset + window.lines.len().saturating_sub(1);
    let mut output = String::from("<file>\n");
    for (i, line) in window.lines.iter().enumerate() {
        output.push_str(&format!("{}: {line}\n", offset + i));
    }
    output.push('\n');
    if window.capped {
        output.push_str(&format!(
            "(Output capped at 50 KB. Use 'offset' parameter to read beyond line {last})"
        ));
    } else if window.more {
        output.push_str(&format!(
            "(File has more lines. Use 'offset' parameter to read beyond line {last})"
        ));
    } else {
        output.push_str(&format!("(End of file - total {} lines)", window.seen));
    }
    output.push_str("\n</file>");
    let preview: Vec<&str> = window.lines.iter().take(20).map(String::as_str).collect();
    Ok(Output::text(title, output).with_metadata(json!({
        "lines": window.lines.len(),
        "truncated": window.more,
        "preview": preview.join("\n"),
    })))
}

fn list_directory(
    directory: &str,
    path: &Path,
    title: String,
    offset: usize,
    limit: usize,
) -> Result<Output, ToolError> {
    let read = std::fs::read_dir(path).map_err(|e| fs_error(directory, path, &e))?;
    let mut entries: Vec<String> = read
        .flatten()
        .map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            // `metadata` follows symlinks, so a link to a directory is shown as one.
            if std::fs::metadata(entry.path()).is_ok_and(|m| m.is_dir()) {
                format!("{name}/")
            } else {
                name
            }
        })
        .collect();
    entries.sort();
    let total = entries.len();
    let shown: Vec<String> = entries.into_iter().skip(offset - 1).take(limit).collect();
    let truncated = offset - 1 + shown.len() < total;
    let mut output = format!("<directory path=\"{}\">\n", path.display());
    for entry in &shown {
        output.push_str(entry);
        output.push('\n');
    }
    output.push('\n');
    if truncated {
        output.push_str(&format!(
            "(Showing {} of {total} entries. Use 'offset' parameter to read beyond entry {})",
            shown.len(),
            offset - 1 + shown.len()
        ));
    } else {
        output.push_str(&format!("({total} entries)"));
    }
    output.push_str("\n</directory>");
    Ok(Output::text(title, output).with_metadata(json!({
        "lines": shown.len(),
        "truncated": truncated,
    })))
}

fn attach(
    directory: &str,
    path: &Path,
    title: String,
    mime: &str,
    size: u64,
) -> Result<Output, ToolError> {
    if size > MAX_ATTACHMENT_BYTES {
        return Err(ToolError::Failed(format!(
            "{} is too large to attach ({size} bytes; the limit is {MAX_ATTACHMENT_BYTES})",
            path.display()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| fs_error(directory, path, &e))?;
    let kind = if mime.starts_with("image/") {
        "Image"
    } else {
        "PDF"
    };
    let mut output = Output::text(title, format!("{kind} read successfully")).with_metadata(
        json!({ "lines": 0, "truncated": false, "mime": mime, "bytes": bytes.len() }),
    );
    output.attachments.push(Attachment {
        mime: mime.to_string(),
        url: data_url(mime, &bytes),
        filename: path.file_name().map(|n| n.to_string_lossy().into_owned()),
    });
    Ok(output)
}

/// "File not found", with up to 3 entries of the same directory whose names contain, are
/// contained in, or are a typo or two away from the missing name (case-insensitively).
fn not_found(directory: &str, path: &Path) -> ToolError {
    let mut message = format!("File not found: {}", path.display());
    let base = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let suggestions: Vec<String> = match (path.parent(), base.is_empty()) {
        (Some(parent), false) => std::fs::read_dir(parent)
            .map(|read| {
                let mut names: Vec<String> = read
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|name| {
                        let lower = name.to_lowercase();
                        lower.contains(&base)
                            || base.contains(&lower)
                            || edit_distance(&lower, &base) <= (base.chars().count() / 3).max(1)
                    })
                    .collect();
                names.sort();
                names
                    .into_iter()
                    .take(3)
                    .map(|n| parent.join(n).display().to_string())
                    .collect()
            })
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    if suggestions.is_empty() {
        message.push_str(outside_hint(directory, path));
    } else {
        message.push_str("\n\nDid you mean one of these?\n");
        message.push_str(&suggestions.join("\n"));
    }
    ToolError::Failed(message)
}

#[cfg(test)]
mod tests;
