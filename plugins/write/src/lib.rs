//! The `write` tool: creates a file, or overwrites it, creating parent directories;
//! asks the `edit` permission with the diff first.

use std::path::{Path, PathBuf};

use serde_json::json;
use ward_sdk::{Context, Output, Tool, ToolError};
use ward_tool_common::diff::{FileDiff, unified};
use ward_tool_common::path::{display_path, ensure_parent, fs_error, resolve};
use ward_tool_common::permission::ask_edit;

/// Arguments of `write`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Args {
    /// The path of the file to write: absolute, or relative to the project directory.
    pub file_path: String,
    /// The complete content of the file.
    pub content: String,
}

/// The `write` tool.
pub struct Write;

impl Tool for Write {
    type Args = Args;
    const NAME: &'static str = "write";
    const DESCRIPTION: &'static str = "\
Writes a file to the local filesystem, replacing it entirely if it exists.

Usage:
- filePath is an absolute path, or a path relative to the project directory. Missing \
parent directories are created.
- content is the complete new content of the file.
- If the file already exists, read it first: overwriting a file you have not read loses \
its content.
- To change part of an existing file, prefer the `edit` tool (or `apply_patch`): it is \
cheaper and safer than rewriting the whole file.
- Do not create documentation files (*.md, README) unless the user asked for them.";

    fn run(args: Args, ctx: &Context) -> Result<Output, ToolError> {
        let plan = plan(&ctx.directory, &args)?;
        ask_edit(&ctx.directory, &[&plan.path], &plan.diff.text)?;
        apply(&ctx.directory, &plan, &args.content)
    }
}

// The component exports only exist in the wasm build: natively the linker rejects the
// WIT export names, and unit tests call the plain functions.
#[cfg(target_arch = "wasm32")]
ward_sdk::export_tools!(Write);

/// What a write will do, computed before asking permission.
#[derive(Debug)]
pub struct Plan {
    /// The resolved file path.
    pub path: PathBuf,
    /// Whether the file exists (and will be overwritten).
    pub exists: bool,
    /// Old content against new content.
    pub diff: FileDiff,
}

/// Resolves the path and diffs the current content (empty when the file is new) against
/// the new one.
pub fn plan(directory: &str, args: &Args) -> Result<Plan, ToolError> {
    let path = resolve(directory, &args.file_path);
    let label = display_path(directory, &path);
    let (exists, old) = match std::fs::read(&path) {
        Ok(bytes) => (true, String::from_utf8_lossy(&bytes).into_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (false, String::new()),
        Err(_) if path.is_dir() => {
            return Err(ToolError::Failed(format!(
                "Path is a directory, not a file: {}",
                path.display()
            )));
        }
        Err(e) => return Err(fs_error(directory, &path, &e)),
    };
    let diff = unified(&label, &old, &args.content);
    Ok(Plan { path, exists, diff })
}

/// Writes `content` as planned.
pub fn apply(directory: &str, plan: &Plan, content: &str) -> Result<Output, ToolError> {
    write_file(directory, &plan.path, content)?;
    let title = display_path(directory, &plan.path);
    let verb = if plan.exists { "Overwrote" } else { "Created" };
    Ok(Output::text(
        title,
        format!(
            "{verb} file {} ({} bytes).",
            plan.path.display(),
            content.len()
        ),
    )
    .with_metadata(json!({
        "exists": plan.exists,
        "bytes": content.len(),
        "filepath": plan.path.to_string_lossy(),
        "diff": plan.diff.text,
        "additions": plan.diff.additions,
        "deletions": plan.diff.deletions,
    })))
}

/// Writes `content` to `path`, creating missing parent directories.
pub fn write_file(directory: &str, path: &Path, content: &str) -> Result<(), ToolError> {
    ensure_parent(directory, path)?;
    std::fs::write(path, content).map_err(|e| fs_error(directory, path, &e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ward_tool_common::testing::TempDir;

    fn write(dir: &str, path: &str, content: &str) -> Result<Output, ToolError> {
        let args = Args {
            file_path: path.into(),
            content: content.into(),
        };
        let plan = plan(dir, &args)?;
        apply(dir, &plan, &args.content)
    }

    #[test]
    fn creates_a_file_and_its_parents() -> std::io::Result<()> {
        let t = TempDir::new("write")?;
        let out = write(&t.dir(), "a/b/c.txt", "hello\n").map_err(std::io::Error::other)?;
        assert_eq!(t.read("a/b/c.txt")?, "hello\n");
        assert!(out.output.starts_with("Created file "));
        assert_eq!(out.title, "a/b/c.txt");
        assert_eq!(out.metadata["exists"], false);
        assert_eq!(out.metadata["bytes"], 6);
        assert!(
            out.metadata["diff"]
                .as_str()
                .is_some_and(|d| d.contains("+hello"))
        );
        Ok(())
    }

    #[test]
    fn overwrites_an_existing_file() -> std::io::Result<()> {
        let t = TempDir::new("write-over")?;
        t.write("x.txt", "old\n")?;
        let out = write(&t.dir(), "x.txt", "new\n").map_err(std::io::Error::other)?;
        assert_eq!(t.read("x.txt")?, "new\n");
        assert!(out.output.starts_with("Overwrote file "));
        assert_eq!(out.metadata["exists"], true);
        assert!(
            out.metadata["diff"]
                .as_str()
                .is_some_and(|d| d.contains("-old\n+new"))
        );
        Ok(())
    }

    #[test]
    fn a_directory_cannot_be_written() -> std::io::Result<()> {
        let t = TempDir::new("write-dir")?;
        std::fs::create_dir_all(t.path().join("d"))?;
        match write(&t.dir(), "d", "x") {
            Err(ToolError::Failed(m)) => assert!(m.starts_with("Path is a directory")),
            other => panic!("expected failure, got {other:?}"),
        }
        Ok(())
    }
}
