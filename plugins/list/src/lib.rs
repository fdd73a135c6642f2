//! The `list` tool: a directory as an indented tree of up to 100 entries, breadth first
//! (so the top levels are always shown), leaving out dependency, build and cache
//! directories and `.gitignore`d files.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use serde_json::json;
use ward_sdk::{Context, Output, Tool, ToolError};
use ward_tool_common::glob::Glob;
use ward_tool_common::path::{display_path, fs_error, resolve};
use ward_tool_common::walk::{WalkOptions, walk};

/// Most entries shown.
pub const LIMIT: usize = 100;
/// Entries examined before the listing gives up counting.
pub const MAX_SCANNED: usize = 20_000;

/// Directories left out unless listed directly.
pub const DEFAULT_IGNORED: &[&str] = &[
    ".git",
    "node_modules",
    "__pycache__",
    "target",
    "dist",
    "build",
    "vendor",
    "bin",
    "obj",
    ".idea",
    ".vscode",
    ".zig-cache",
    "zig-out",
    ".coverage",
    "coverage",
    "tmp",
    "temp",
    ".cache",
    "cache",
    "logs",
    ".venv",
    "venv",
    "env",
];

/// Arguments of `list`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Args {
    /// The directory to list (absolute, or relative to the project directory). Omit it to
    /// list the project directory.
    pub path: Option<String>,
    /// Glob patterns of entries to leave out, e.g. `*.log` or `docs/generated`.
    pub ignore: Option<Vec<String>>,
}

/// The `list` tool.
pub struct List;

impl Tool for List {
    type Args = Args;
    const NAME: &'static str = "list";
    const DESCRIPTION: &'static str = "\
Lists files and directories under a path as a tree.

Usage:
- path is absolute, or relative to the project directory; it defaults to the project \
directory.
- Shows at most 100 entries, breadth first, directories ending in `/`.
- Dependency, build and cache directories (node_modules, target, dist, build, .git, \
__pycache__, .venv, …) and `.gitignore`d files are left out; pass ignore (globs) to leave \
out more.
- To find files by name prefer `glob`, and to search contents `grep`, when you know what \
you are looking for.";

    fn run(args: Args, ctx: &Context) -> Result<Output, ToolError> {
        list(&ctx.directory, &args)
    }
}

// The component exports only exist in the wasm build: natively the linker rejects the
// WIT export names, and unit tests call the plain functions.
#[cfg(target_arch = "wasm32")]
ward_sdk::export_tools!(List);

/// One entry found, relative to the listed directory.
#[derive(Debug, Clone)]
struct Item {
    rel: String,
    is_dir: bool,
    depth: usize,
}

/// Runs `list` for a project rooted at `directory`.
pub fn list(directory: &str, args: &Args) -> Result<Output, ToolError> {
    let root = resolve(directory, args.path.as_deref().unwrap_or(""));
    let ignore = args
        .ignore
        .iter()
        .flatten()
        .map(|g| Glob::new(g.trim_end_matches('/')))
        .collect::<Result<Vec<_>, _>>()
        .map_err(ToolError::from)?;
    let options = WalkOptions {
        skip_dirs: DEFAULT_IGNORED.iter().map(|s| s.to_string()).collect(),
        gitignore: true,
        project: Some(directory.into()),
        ignore,
    };
    let mut items = Vec::new();
    walk(&root, &options, |entry| {
        items.push(Item {
            rel: entry.rel.clone(),
            is_dir: entry.is_dir,
            depth: entry.depth,
        });
        if items.len() >= MAX_SCANNED {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .map_err(|e| fs_error(directory, &root, &e))?;
    let scanned = items.len();
    // Breadth first: a stable sort by depth keeps each level's walk order, and every
    // entry's parent (one level up) is taken before it.
    items.sort_by_key(|item| item.depth);
    items.truncate(LIMIT);
    let mut output = format!("{}/\n", root.display());
    render(&items, "", 1, &mut output);
    if scanned > items.len() {
        let more = if scanned >= MAX_SCANNED { "+" } else { "" };
        output.push_str(&format!(
            "\n(Showing {} of {scanned}{more} entries. List a subdirectory, or pass ignore, to see more.)\n",
            items.len()
        ));
    }
    Ok(
        Output::text(display_path(directory, &root), output).with_metadata(json!({
            "count": items.len(),
            "truncated": scanned > items.len(),
        })),
    )
}

/// Appends the children of `parent` (directories first, then files, by name), indented
/// two spaces per level.
fn render(items: &[Item], parent: &str, depth: usize, out: &mut String) {
    let children: BTreeMap<(bool, &str), &Item> = items
        .iter()
        .filter(|item| item.depth == depth && parent_of(&item.rel) == parent)
        .map(|item| ((!item.is_dir, item.rel.as_str()), item))
        .collect();
    for item in children.values() {
        let name = item.rel.rsplit('/').next().unwrap_or(&item.rel);
        out.push_str(&"  ".repeat(depth));
        out.push_str(name);
        if item.is_dir {
            out.push('/');
            out.push('\n');
            render(items, &item.rel, depth + 1, out);
        } else {
            out.push('\n');
        }
    }
}

fn parent_of(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(parent, _)| parent)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ward_tool_common::testing::TempDir;

    fn run(dir: &str, path: Option<&str>, ignore: &[&str]) -> std::io::Result<Output> {
        let args = Args {
            path: path.map(str::to_string),
            ignore: Some(ignore.iter().map(|s| s.to_string()).collect()),
        };
        list(dir, &args).map_err(std::io::Error::other)
    }

    #[test]
    fn renders_a_tree_dirs_first() -> std::io::Result<()> {
        let t = TempDir::new("list")?;
        t.write("z.txt", "")?;
        t.write("src/main.rs", "")?;
        t.write("src/util/mod.rs", "")?;
        t.write("a.md", "")?;
        let out = run(&t.dir(), None, &[])?;
        assert_eq!(
            out.output,
            format!(
                "{}/\n  src/\n    util/\n      mod.rs\n    main.rs\n  a.md\n  z.txt\n",
                t.dir()
            )
        );
        assert_eq!(out.title, ".");
        Ok(())
    }

    #[test]
    fn leaves_out_default_and_requested_ignores() -> std::io::Result<()> {
        let t = TempDir::new("list-ignore")?;
        t.write("node_modules/x/index.js", "")?;
        t.write("target/debug/app", "")?;
        t.write(".git/HEAD", "")?;
        t.write("app.log", "")?;
        t.write("docs/gen/a.html", "")?;
        t.write("docs/guide.md", "")?;
        t.write("keep.rs", "")?;
        let out = run(&t.dir(), None, &["*.log", "docs/gen/"])?;
        assert_eq!(
            out.output,
            format!("{}/\n  docs/\n    guide.md\n  keep.rs\n", t.dir())
        );
        Ok(())
    }

    #[test]
    fn caps_at_100_entries_breadth_first() -> std::io::Result<()> {
        let t = TempDir::new("list-cap")?;
        for i in 0..150 {
            t.write(&format!("deep/f{i:03}.txt"), "")?;
        }
        t.write("top.txt", "")?;
        let out = run(&t.dir(), None, &[])?;
        assert!(out.output.contains("\n  top.txt\n"));
        assert!(out.output.contains("(Showing 100 of 152 entries."));
        assert_eq!(out.metadata["count"], 100);
        assert_eq!(out.metadata["truncated"], true);
        Ok(())
    }

    #[test]
    fn a_subdirectory_can_be_listed() -> std::io::Result<()> {
        let t = TempDir::new("list-sub")?;
        t.write("a/b/c.txt", "")?;
        let out = run(&t.dir(), Some("a"), &[])?;
        assert_eq!(out.output, format!("{}/a/\n  b/\n    c.txt\n", t.dir()));
        assert!(run(&t.dir(), Some("missing"), &[]).is_err());
        Ok(())
    }
}
