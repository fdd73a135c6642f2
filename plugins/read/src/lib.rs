//! The `read` tool: reads a text file with line numbers (paged with `offset`/`limit`,
//! capped at 50 KB), attaches images and PDFs, lists directories, refuses binary files,
//! and suggests near names when a file is missing.

use std::io::BufRead;
use std::ops::ControlFlow;
use std::path::Path;

use serde_json::json;
use ward_sdk::{Attachment, Context, Output, Tool, ToolError};

mod lines;
mod number;

use lines::for_each_line;
use number::LineNumber;
use ward_tool_common::fs::{BlockReader, File};
use ward_tool_common::path::{display_path, fs_error, outside_hint, resolve};
use ward_tool_common::text::{
    SNIFF_BYTES, attachable_mime, data_url, edit_distance, has_binary_extension, looks_binary,
};
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
    // One open serves the type check, the binary sniff and the reading: inside the
    // sandbox every lookup of the path is a host call checked against the rules.
    let file = match File::open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(not_found(directory, &path));
        }
        Err(e) => return Err(fs_error(directory, &path, &e)),
    };
    let meta = file
        .metadata()
        .map_err(|e| fs_error(directory, &path, &e))?;
    if meta.is_dir {
        drop(file);
        return list_directory(directory, &path, title, offset, limit);
    }
    if let Some(mime) = attachable_mime(&path) {
        return attach(directory, file, &path, title, mime, meta.len);
    }
    if has_binary_extension(&path) {
        return Err(binary(&path));
    }
    read_text(directory, file, &path, title, offset, limit)
}

fn binary(path: &Path) -> ToolError {
    ToolError::Failed(format!("Cannot read binary file: {}", path.display()))
}

/// Bytes read from the file at a time: one host call per block inside the sandbox.
const BLOCK: usize = 64 * 1024;

/// A window of a text file, already numbered as the output shows it.
#[derive(Debug, Default)]
struct Window {
    /// `<file>` and the shown lines, each `N: line\n`, lines cut to
    /// [`MAX_LINE_CHARS`]: the start of the output.
    text: String,
    /// Bytes of the shown lines in `text`, counted against [`MAX_BYTES`].
    bytes: usize,
    /// How many lines are shown.
    shown: usize,
    /// The first 20 shown lines, without numbers, for the metadata's preview.
    preview: Vec<String>,
    /// Lines seen up to where reading stopped (the file's length when `more` is false).
    seen: usize,
    /// The file goes on after the window.
    more: bool,
    /// The window stopped at the byte cap rather than at `limit`.
    capped: bool,
}

/// Lines shown in the metadata's preview.
const PREVIEW_LINES: usize = 20;

/// What the output starts with.
const OPEN_TAG: &str = "<file>\n";

fn read_window(mut reader: impl BufRead, offset: usize, limit: usize) -> std::io::Result<Window> {
    let mut window = Window {
        text: String::with_capacity(OPEN_TAG.len() + MAX_BYTES + 256),
        ..Window::default()
    };
    window.text.push_str(OPEN_TAG);
    let mut number = LineNumber::default();
    for_each_line(&mut reader, |text| {
        window.seen += 1;
        number.increment();
        if window.seen < offset {
            return ControlFlow::Continue(());
        }
        if window.shown == limit {
            window.more = true;
            return ControlFlow::Break(());
        }
        let text = without_carriage_returns(text);
        // Cutting is rare: most lines are shown as they are, with no copy made first.
        let cut;
        let line = if text.len() <= MAX_LINE_CHARS {
            text
        } else {
            cut = cut_line(text, MAX_LINE_CHARS);
            &*cut
        };
        let numbered = number.len() + 2 + line.len() + 1;
        if window.bytes + numbered > MAX_BYTES && window.shown > 0 {
            window.more = true;
            window.capped = true;
            return ControlFlow::Break(());
        }
        window.bytes += numbered;
        window.text.reserve(numbered);
        number.push_to(&mut window.text);
        window.text.push_str(": ");
        window.text.push_str(line);
        window.text.push('\n');
        if window.preview.len() < PREVIEW_LINES {
            window.preview.push(line.to_owned());
        }
        window.shown += 1;
        ControlFlow::Continue(())
    })?;
    Ok(window)
}

/// `text` without the `\r`s it ends with (a CRLF file's lines).
fn without_carriage_returns(text: &str) -> &str {
    let mut end = text.len();
    while end > 0 && text.as_bytes()[end - 1] == b'\r' {
        end -= 1;
    }
    // `\r` is ASCII, so `end` is a character boundary.
    text.get(..end).unwrap_or(text)
}

fn read_text(
    directory: &str,
    file: File,
    path: &Path,
    title: String,
    offset: usize,
    limit: usize,
) -> Result<Output, ToolError> {
    let io_error = |e: std::io::Error| fs_error(directory, path, &e);
    let mut reader = BlockReader::new(file, BLOCK);
    if looks_binary(reader.peek(SNIFF_BYTES).map_err(io_error)?) {
        return Err(binary(path));
    }
    let window = read_window(reader, offset, limit).map_err(io_error)?;
    if window.shown == 0 && !(window.seen == 0 && offset == 1) {
        return Err(ToolError::InvalidArguments(format!(
            "Offset {offset} is out of range for this file ({} lines)",
            window.seen
        )));
    }
    let last = offset + window.shown.saturating_sub(1);
    let mut output = window.text;
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
    Ok(Output::text(title, output).with_metadata(json!({
        "lines": window.shown,
        "truncated": window.more,
        "preview": window.preview.join("\n"),
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
    mut file: File,
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
    let bytes = file
        .read_up_to(size)
        .map_err(|e| fs_error(directory, path, &e))?;
    // The name promised an image or a PDF; the bytes decide. What they are is
    // attached under the type they have, and a file that only looks like one by
    // its name (text saved as `.png`) is not attached at all.
    let sniffed = infer::get(&bytes).map(|k| k.mime_type());
    let mime = match sniffed {
        Some(found) if found.starts_with("image/") || found == "application/pdf" => found,
        found => {
            let found = match found {
                Some(other) => other.to_string(),
                None if std::str::from_utf8(&bytes).is_ok() => "text".to_string(),
                None => "of no known format".to_string(),
            };
            return Err(ToolError::Failed(format!(
                "{} is named like {mime} but its content is not ({found}); nothing was attached",
                path.display()
            )));
        }
    };
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
