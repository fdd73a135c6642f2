//! The `apply_patch` tool: applies a multi-file patch in OpenAI Codex's format (add,
//! update with context matching, move, delete). The whole patch is parsed and applied in
//! memory first; files are touched only when every operation is known to succeed.

pub mod apply;
pub mod parse;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::json;
use ward_sdk::{Context, Output, Tool, ToolError};
use ward_tool_common::diff::{FileDiff, MAX_DIFF_BYTES, cap, unified};
use ward_tool_common::path::{display_path, fs_error, resolve};
use ward_tool_common::permission::ask_edit;

use crate::apply::apply_chunks;
use crate::parse::{Hunk, parse};

/// Arguments of `apply_patch`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Args {
    /// The full patch text, from `*** Begin Patch` to `*** End Patch`, describing all
    /// changes to be made.
    pub patch_text: String,
}

/// The `apply_patch` tool.
pub struct ApplyPatch;

impl Tool for ApplyPatch {
    type Args = Args;
    const NAME: &'static str = "apply_patch";
    const DESCRIPTION: &'static str = "\
Edits files with a patch: a stripped-down, file-oriented diff format that is easy to write \
and safe to apply. Several files can be added, changed, renamed and deleted in one call.

*** Begin Patch
[ one or more file sections ]
*** End Patch

Each file section starts with one of these headers:
*** Add File: <path> - create a new file. Every following line is a + line (the content).
*** Delete File: <path> - remove an existing file. Nothing follows.
*** Update File: <path> - patch an existing file in place, optionally followed by \
*** Move to: <new path> to rename it.

An update holds one or more changes, each introduced by `@@`, optionally followed by a \
line that occurs just before the change (a function or class header) to locate it. Then \
the lines: ` ` (space) for unchanged context, `-` for removed, `+` for added. Show about 3 \
lines of context above and below each change; use `*** End of File` after a change that \
must match the end of the file.

Example:
*** Begin Patch
*** Add File: hello.txt
+Hello world
*** Update File: src/app.py
*** Move to: src/main.py
@@ def greet():
-    print(\"Hi\")
+    print(\"Hello, world!\")
*** Delete File: obsolete.txt
*** End Patch

Rules:
- Paths are relative to the project directory (or absolute).
- Every header names its action; new lines are prefixed with `+` even in a new file.
- The patch is checked as a whole before any file changes: if one change cannot be \
located, nothing is written, and the error says which lines were not found.";

    fn run(args: Args, ctx: &Context) -> Result<Output, ToolError> {
        let plan = plan(&ctx.directory, &args.patch_text)?;
        let paths: Vec<&Path> = plan.touched.iter().map(PathBuf::as_path).collect();
        ask_edit(&ctx.directory, &paths, &plan.diff())?;
        execute(&ctx.directory, &plan)
    }
}

// The component exports only exist in the wasm build: natively the linker rejects the
// WIT export names, and unit tests call the plain functions.
#[cfg(target_arch = "wasm32")]
ward_sdk::export_tools!(ApplyPatch);

/// What a file operation of the patch does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A new file (or an overwritten one).
    Add,
    /// A file changed in place.
    Update,
    /// A file changed and renamed.
    Move,
    /// A removed file.
    Delete,
}

impl Kind {
    fn letter(self) -> char {
        match self {
            Kind::Add => 'A',
            Kind::Update | Kind::Move => 'M',
            Kind::Delete => 'D',
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Add => "add",
            Kind::Update => "update",
            Kind::Move => "move",
            Kind::Delete => "delete",
        }
    }
}

/// One operation of the patch, resolved and checked.
#[derive(Debug, Clone)]
pub struct Change {
    /// What it does.
    pub kind: Kind,
    /// The file it applies to.
    pub path: PathBuf,
    /// The new path, for a move.
    pub move_to: Option<PathBuf>,
    /// Its diff.
    pub diff: FileDiff,
}

/// A checked patch: its operations and the final state of every file it touches.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The operations, in patch order.
    pub changes: Vec<Change>,
    /// Every file touched, in the order first touched.
    pub touched: Vec<PathBuf>,
    /// The final content of each touched file; `None` means it is removed.
    pub finals: HashMap<PathBuf, Option<String>>,
}

impl Plan {
    /// All the diffs, one after another, capped like one file's.
    pub fn diff(&self) -> String {
        let all: String = self.changes.iter().map(|c| c.diff.text.as_str()).collect();
        cap(all, 2 * MAX_DIFF_BYTES)
    }
}

/// The files as the patch sees them while it is checked: what earlier operations wrote,
/// else what is on disk.
struct Files<'a> {
    directory: &'a str,
    plan: Plan,
}

impl Files<'_> {
    fn read(&self, path: &Path) -> Result<Option<String>, ToolError> {
        if let Some(content) = self.plan.finals.get(path) {
            return Ok(content.clone());
        }
        if path.is_dir() {
            return Err(failed(format!("{} is a directory", path.display())));
        }
        match std::fs::read(path) {
            Ok(bytes) => String::from_utf8(bytes)
                .map(Some)
                .map_err(|_| failed(format!("{} is not UTF-8 text", path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(fs_error(self.directory, path, &e)),
        }
    }

    fn set(&mut self, path: &Path, content: Option<String>) {
        if !self.plan.finals.contains_key(path) {
            self.plan.touched.push(path.to_path_buf());
        }
        self.plan.finals.insert(path.to_path_buf(), content);
    }
}

fn failed(message: String) -> ToolError {
    ToolError::Failed(format!("apply_patch verification failed: {message}"))
}

/// Parses the patch and applies it in memory, without touching any file.
pub fn plan(directory: &str, patch_text: &str) -> Result<Plan, ToolError> {
    let hunks = parse(patch_text).map_err(|e| {
        ToolError::InvalidArguments(format!("apply_patch verification failed: {e}"))
    })?;
    let mut files = Files {
        directory,
        plan: Plan {
            changes: Vec::new(),
            touched: Vec::new(),
            finals: HashMap::new(),
        },
    };
    for hunk in hunks {
        let change = match hunk {
            Hunk::Add { path, contents } => {
                let path = resolve(directory, &path);
                let old = files.read(&path)?.unwrap_or_default();
                let diff = unified(&display_path(directory, &path), &old, &contents);
                files.set(&path, Some(contents));
                Change {
                    kind: Kind::Add,
                    path,
                    move_to: None,
                    diff,
                }
            }
            Hunk::Delete { path } => {
                let path = resolve(directory, &path);
                let label = display_path(directory, &path);
                let old = files
                    .read(&path)?
                    .ok_or_else(|| failed(format!("cannot delete {label}: file not found")))?;
                files.set(&path, None);
                Change {
                    kind: Kind::Delete,
                    path,
                    move_to: None,
                    diff: unified(&label, &old, ""),
                }
            }
            Hunk::Update {
                path,
                move_to,
                chunks,
            } => {
                let path = resolve(directory, &path);
                let label = display_path(directory, &path);
                let old = files
                    .read(&path)?
                    .ok_or_else(|| failed(format!("cannot update {label}: file not found")))?;
                let new = if chunks.is_empty() {
                    old.clone()
                } else {
                    apply_chunks(&old, &chunks, &label).map_err(|e| failed(e.to_string()))?
                };
                let diff = unified(
                    &label,
                    &old.replace("\r\n", "\n"),
                    &new.replace("\r\n", "\n"),
                );
                let move_to = move_to
                    .map(|m| resolve(directory, &m))
                    .filter(|m| *m != path);
                match &move_to {
                    Some(target) => {
                        if target.is_dir() {
                            return Err(failed(format!("{} is a directory", target.display())));
                        }
                        files.set(&path, None);
                        files.set(target, Some(new));
                    }
                    None => files.set(&path, Some(new)),
                }
                Change {
                    kind: if move_to.is_some() {
                        Kind::Move
                    } else {
                        Kind::Update
                    },
                    path,
                    move_to,
                    diff,
                }
            }
        };
        files.plan.changes.push(change);
    }
    Ok(files.plan)
}

/// Writes a checked patch to disk and reports what changed.
pub fn execute(directory: &str, plan: &Plan) -> Result<Output, ToolError> {
    let mut done: Vec<String> = Vec::new();
    // Writes first, removals last: a failed write must not leave a moved file with
    // neither its old nor its new copy.
    let writes = plan
        .touched
        .iter()
        .filter(|p| matches!(plan.finals.get(*p), Some(Some(_))));
    let removals = plan
        .touched
        .iter()
        .filter(|p| matches!(plan.finals.get(*p), Some(None)));
    for path in writes.chain(removals) {
        let result = match plan.finals.get(path) {
            Some(Some(content)) => write(path, content),
            Some(None) if path.exists() => std::fs::remove_file(path),
            _ => Ok(()),
        };
        if let Err(e) = result {
            let mut message = match fs_error(directory, path, &e) {
                ToolError::Failed(m) => m,
                other => format!("{other:?}"),
            };
            if !done.is_empty() {
                message.push_str(&format!(
                    "\nThe patch was applied partially; already written: {}",
                    done.join(", ")
                ));
            }
            return Err(ToolError::Failed(message));
        }
        done.push(display_path(directory, path));
    }
    let mut output = String::from("Success. Updated the following files:");
    let mut files = Vec::new();
    for change in &plan.changes {
        let shown = change.move_to.as_ref().unwrap_or(&change.path);
        output.push_str(&format!(
            "\n{} {}",
            change.kind.letter(),
            display_path(directory, shown)
        ));
        files.push(json!({
            "type": change.kind.name(),
            "path": change.path.to_string_lossy(),
            "relativePath": display_path(directory, &change.path),
            "movePath": change.move_to.as_ref().map(|m| m.to_string_lossy()),
            "additions": change.diff.additions,
            "deletions": change.diff.deletions,
        }));
    }
    let title = match plan.changes.as_slice() {
        [one] => display_path(directory, one.move_to.as_ref().unwrap_or(&one.path)),
        many => format!("{} files", many.len()),
    };
    Ok(Output::text(title, output).with_metadata(json!({
        "diff": plan.diff(),
        "files": files,
    })))
}

fn write(path: &Path, content: &str) -> std::io::Result<()> {
    // Only missing parents are created: every `mkdir` is checked against the `edit`
    // rules, and re-creating an existing directory would ask about it.
    if let Some(parent) = path.parent()
        && !parent.is_dir()
    {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, content)
}

#[cfg(test)]
mod tests;
