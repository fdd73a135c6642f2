//! The `edit` tool: replaces `oldString` with `newString` in a file — exactly, or through
//! the fuzzy matchers of [`replace`] — keeping the file's line endings; asks the `edit`
//! permission with the diff first.

pub mod replace;

use std::path::PathBuf;

use serde_json::json;
use ward_sdk::{Context, Output, Tool, ToolError};
use ward_tool_common::diff::{FileDiff, unified};
use ward_tool_common::path::{display_path, ensure_parent, fs_error, resolve};
use ward_tool_common::permission::ask_edit;

use crate::replace::{ReplaceError, replace};

/// Arguments of `edit`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Args {
    /// The path of the file to modify: absolute, or relative to the project directory.
    pub file_path: String,
    /// The text to replace. Empty to create the file (or replace its whole content) with
    /// `newString`.
    pub old_string: String,
    /// The text to replace it with (must differ from oldString).
    pub new_string: String,
    /// Replace every occurrence of oldString (default false).
    #[serde(default)]
    pub replace_all: bool,
}

/// The `edit` tool.
pub struct Edit;

impl Tool for Edit {
    type Args = Args;
    const NAME: &'static str = "edit";
    const DESCRIPTION: &'static str = "\
Performs an exact string replacement in a file.

Usage:
- Read the file first: oldString must match its current content.
- filePath is an absolute path, or a path relative to the project directory.
- Copy oldString from the `read` output without the line-number prefix (`N: `); keep the \
indentation exactly as it is in the file.
- The edit FAILS if oldString is not found, or if it occurs more than once: then include \
more surrounding lines to make it unique, or set replaceAll to change every occurrence \
(useful for renaming a variable).
- If an exact match fails, close matches are tried (lines equal apart from indentation or \
spacing, or a block whose first and last lines match); do not rely on it.
- An empty oldString creates the file with newString as its content (or replaces the \
whole content).
- Prefer editing existing files to writing new ones.";

    fn run(args: Args, ctx: &Context) -> Result<Output, ToolError> {
        let plan = plan(&ctx.directory, &args)?;
        ask_edit(&ctx.directory, &[&plan.path], &plan.diff.text)?;
        apply(&ctx.directory, &plan)
    }
}

// The component exports only exist in the wasm build: natively the linker rejects the
// WIT export names, and unit tests call the plain functions.
#[cfg(target_arch = "wasm32")]
ward_sdk::export_tools!(Edit);

/// An edit computed but not yet written.
#[derive(Debug)]
pub struct Plan {
    /// The resolved file path.
    pub path: PathBuf,
    /// The file's new content.
    pub content: String,
    /// Occurrences replaced (1 when the whole file is written).
    pub replacements: usize,
    /// The diff shown to the user.
    pub diff: FileDiff,
    /// Which matcher found oldString (`exact`, `line-trimmed`, …; `create` for an empty
    /// oldString).
    pub matcher: &'static str,
}

/// Computes the edit without writing it.
pub fn plan(directory: &str, args: &Args) -> Result<Plan, ToolError> {
    if args.old_string == args.new_string {
        return Err(ToolError::InvalidArguments(
            "No changes to apply: oldString and newString are identical.".into(),
        ));
    }
    let path = resolve(directory, &args.file_path);
    let label = display_path(directory, &path);
    if path.is_dir() {
        return Err(ToolError::Failed(format!(
            "Path is a directory, not a file: {}",
            path.display()
        )));
    }
    if args.old_string.is_empty() {
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        return Ok(Plan {
            diff: unified(&label, &old, &args.new_string),
            content: args.new_string.clone(),
            path,
            replacements: 1,
            matcher: "create",
        });
    }
    let old = match std::fs::read(&path) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| {
            ToolError::Failed(format!(
                "Cannot edit {}: it is not UTF-8 text",
                path.display()
            ))
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ToolError::Failed(format!(
                "File not found: {}. To create it, use an empty oldString or the write tool.",
                path.display()
            )));
        }
        Err(e) => return Err(fs_error(directory, &path, &e)),
    };
    let crlf = old.contains("\r\n");
    let find = with_line_endings(&args.old_string, crlf);
    let with = with_line_endings(&args.new_string, crlf);
    let replaced = replace(&old, &find, &with, args.replace_all).map_err(|e| match e {
        ReplaceError::Identical => ToolError::InvalidArguments(
            "No changes to apply: oldString and newString are identical.".into(),
        ),
        ReplaceError::NotFound => ToolError::Failed(
            "oldString not found in content. It must match the file exactly, including \
whitespace and indentation; read the file again to see its current content."
                .into(),
        ),
        ReplaceError::Multiple => ToolError::Failed(
            "Found multiple matches for oldString. Provide more surrounding lines in \
oldString to identify the correct match, or set replaceAll to replace every occurrence."
                .into(),
        ),
    })?;
    let diff = unified(
        &label,
        &old.replace("\r\n", "\n"),
        &replaced.content.replace("\r\n", "\n"),
    );
    Ok(Plan {
        path,
        content: replaced.content,
        replacements: replaced.count,
        diff,
        matcher: replaced.matcher,
    })
}

/// `text` with `\n` line endings, or `\r\n` ones when the file uses them.
fn with_line_endings(text: &str, crlf: bool) -> String {
    let unix = text.replace("\r\n", "\n");
    if crlf {
        unix.replace('\n', "\r\n")
    } else {
        unix
    }
}

/// Writes a planned edit.
pub fn apply(directory: &str, plan: &Plan) -> Result<Output, ToolError> {
    ensure_parent(directory, &plan.path)?;
    std::fs::write(&plan.path, &plan.content).map_err(|e| fs_error(directory, &plan.path, &e))?;
    let mut output = String::from("Edit applied successfully.");
    if plan.replacements > 1 {
        output.push_str(&format!(" ({} occurrences replaced)", plan.replacements));
    }
    Ok(
        Output::text(display_path(directory, &plan.path), output).with_metadata(json!({
            "diff": plan.diff.text,
            "replacements": plan.replacements,
            "additions": plan.diff.additions,
            "deletions": plan.diff.deletions,
            "matcher": plan.matcher,
            "filepath": plan.path.to_string_lossy(),
        })),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use ward_tool_common::testing::TempDir;

    fn edit(dir: &str, path: &str, old: &str, new: &str, all: bool) -> Result<Output, ToolError> {
        let args = Args {
            file_path: path.into(),
            old_string: old.into(),
            new_string: new.into(),
            replace_all: all,
        };
        apply(dir, &plan(dir, &args)?)
    }

    fn error(result: Result<Output, ToolError>) -> String {
        match result {
            Err(ToolError::Failed(m) | ToolError::InvalidArguments(m) | ToolError::Denied(m)) => m,
            Ok(out) => panic!("expected an error, got {}", out.output),
        }
    }

    #[test]
    fn replaces_and_reports_the_diff() -> std::io::Result<()> {
        let t = TempDir::new("edit")?;
        t.write("a.rs", "fn a() {\n    1\n}\n")?;
        let out = edit(&t.dir(), "a.rs", "    1", "    2", false).map_err(std::io::Error::other)?;
        assert_eq!(t.read("a.rs")?, "fn a() {\n    2\n}\n");
        assert_eq!(out.output, "Edit applied successfully.");
        assert_eq!(out.metadata["replacements"], 1);
        let diff = out.metadata["diff"].as_str().unwrap_or_default();
        assert!(diff.contains("-    1\n+    2\n"), "{diff}");
        Ok(())
    }

    #[test]
    fn keeps_crlf_line_endings() -> std::io::Result<()> {
        let t = TempDir::new("edit-crlf")?;
        t.write("w.txt", "one\r\ntwo\r\nthree\r\n")?;
        edit(&t.dir(), "w.txt", "one\ntwo", "1\n2", false).map_err(std::io::Error::other)?;
        assert_eq!(t.read("w.txt")?, "1\r\n2\r\nthree\r\n");
        Ok(())
    }

    #[test]
    fn replace_all_counts_occurrences() -> std::io::Result<()> {
        let t = TempDir::new("edit-all")?;
        t.write("a.txt", "foo bar foo\nfoo\n")?;
        let out = edit(&t.dir(), "a.txt", "foo", "baz", true).map_err(std::io::Error::other)?;
        assert_eq!(t.read("a.txt")?, "baz bar baz\nbaz\n");
        assert_eq!(out.metadata["replacements"], 3);
        Ok(())
    }

    #[test]
    fn errors_name_the_problem() -> std::io::Result<()> {
        let t = TempDir::new("edit-err")?;
        t.write("a.txt", "x x\n")?;
        assert!(error(edit(&t.dir(), "a.txt", "x", "x", false)).contains("identical"));
        assert!(
            error(edit(&t.dir(), "a.txt", "x", "y", false)).starts_with("Found multiple matches")
        );
        assert!(
            error(edit(&t.dir(), "a.txt", "zzz", "y", false))
                .starts_with("oldString not found in content")
        );
        assert!(
            error(edit(&t.dir(), "missing.txt", "a", "b", false)).starts_with("File not found")
        );
        assert_eq!(t.read("a.txt")?, "x x\n");
        Ok(())
    }

    #[test]
    fn empty_old_string_creates_the_file() -> std::io::Result<()> {
        let t = TempDir::new("edit-create")?;
        let out =
            edit(&t.dir(), "new/dir/f.txt", "", "hello\n", false).map_err(std::io::Error::other)?;
        assert_eq!(t.read("new/dir/f.txt")?, "hello\n");
        assert_eq!(out.metadata["matcher"], "create");
        Ok(())
    }

    #[test]
    fn fuzzy_fallback_is_used_when_exact_fails() -> std::io::Result<()> {
        let t = TempDir::new("edit-fuzzy")?;
        t.write("a.py", "def f():\n    if x:\n        return 1\n")?;
        let out = edit(&t.dir(), "a.py", "if x:\n    return 1", "return 2", false)
            .map_err(std::io::Error::other)?;
        assert_eq!(t.read("a.py")?, "def f():\n    return 2\n");
        assert_eq!(out.metadata["matcher"], "line-trimmed");
        Ok(())
    }
}
