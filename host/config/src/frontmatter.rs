//! Markdown files with YAML front matter — agents (`.ward/agents/*.md`), skills
//! (`SKILL.md`) and commands (`.ward/commands/*.md`): metadata between `---` fences
//! first, the body after. The same format Claude Code and OpenCode read, so their
//! files work unchanged.
//!
//! Errors are [`ConfigError::Syntax`] with the file, line and column of the problem
//! in the file (not in the front matter alone).

use std::fs;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use crate::error::{ConfigError, Located};
use crate::warning::Warning;

/// How deep definition directories are searched, a guard against symlink loops.
const MAX_DEPTH: usize = 16;

/// Every `*.md` under `dir`, searched recursively (following symlinks), as
/// `(name, path)` in name order; the name is the path relative to `dir` without
/// `.md`, `/` between directories (`review/security.md` is `review/security`). A
/// missing `dir` has none; an unreadable directory or a name that is not UTF-8 is a
/// warning (`kind` names what the files define, e.g. `agent`).
pub fn markdown_files(
    dir: &Path,
    kind: &str,
    warnings: &mut Vec<Warning>,
) -> Vec<(String, PathBuf)> {
    let mut files = Vec::new();
    collect(dir, dir, 0, kind, &mut files, warnings);
    files.sort();
    files
}

fn collect(
    root: &Path,
    dir: &Path,
    depth: usize,
    kind: &str,
    out: &mut Vec<(String, PathBuf)>,
    warnings: &mut Vec<Warning>,
) {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if depth == 0 && e.kind() == std::io::ErrorKind::NotFound => return,
        Err(e) => {
            let message = format!("cannot read the {kind}s directory: {e}");
            warnings.push(Warning::in_file(dir, message));
            return;
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        // `metadata` follows symlinks, so linked files and directories count.
        let Ok(meta) = fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            if depth + 1 < MAX_DEPTH {
                collect(root, &path, depth + 1, kind, out, warnings);
            }
        } else if meta.is_file() && path.extension().is_some_and(|e| e == "md") {
            match relative_name(root, &path) {
                Some(name) => out.push((name, path)),
                None => warnings.push(Warning::in_file(
                    &path,
                    format!("the {kind} name (the path without `.md`) is not valid UTF-8; the file is skipped"),
                )),
            }
        }
    }
}

/// `review/security` for `<root>/review/security.md`.
fn relative_name(root: &Path, path: &Path) -> Option<String> {
    let relative = path.strip_prefix(root).ok()?.with_extension("");
    let parts = relative
        .components()
        .map(|c| c.as_os_str().to_str())
        .collect::<Option<Vec<_>>>()?;
    let name = parts.join("/");
    (!name.is_empty()).then_some(name)
}

/// A parsed markdown file.
#[derive(Debug, Clone, PartialEq)]
pub struct Document<T> {
    /// The front matter; `T::default()` when the file has none.
    pub meta: T,
    /// Everything after the front matter, with leading blank lines removed.
    pub body: String,
}

/// Parses `text`, the content of `file`, into its front matter and body.
pub fn parse<T: DeserializeOwned + Default>(
    file: &Path,
    text: &str,
) -> Result<Document<T>, ConfigError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some((yaml, yaml_offset, body)) = split(text) else {
        return Ok(Document {
            meta: T::default(),
            body: text.trim_start_matches(['\n', '\r']).to_string(),
        });
    };
    let meta = if yaml.trim().is_empty() {
        T::default()
    } else {
        serde_yaml_ng::from_str(yaml).map_err(|e| {
            let offset = e.location().map_or(0, |l| l.index());
            ConfigError::Syntax {
                at: Located::from_offset(file, text, yaml_offset + offset),
                message: format!("in the front matter: {}", strip_location(&e.to_string())),
            }
        })?
    };
    Ok(Document {
        meta,
        body: body.trim_start_matches(['\n', '\r']).to_string(),
    })
}

/// (front matter, its byte offset in `text`, body) when `text` opens with `---`.
fn split(text: &str) -> Option<(&str, usize, &str)> {
    let first = text.lines().next()?;
    if first.trim_end() != "---" {
        return None;
    }
    let start = first.len()
        + if text[first.len()..].starts_with("\r\n") {
            2
        } else {
            1
        };
    let start = start.min(text.len());
    let mut at = start;
    for line in text[start..].split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Some((&text[start..at], start, &text[at + line.len()..]));
        }
        at += line.len();
    }
    None
}

/// The YAML error without its own " at line L column C" (the caller's location
/// counts from the start of the file).
fn strip_location(message: &str) -> String {
    match message.find(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[derive(Debug, Default, PartialEq, serde::Deserialize)]
    #[serde(default, deny_unknown_fields)]
    struct Meta {
        description: Option<String>,
        steps: Option<u32>,
        permission: Option<BTreeMap<String, String>>,
    }

    #[test]
    fn front_matter_and_body() {
        let text = "---\ndescription: Reviews code\nsteps: 5\npermission:\n  edit: deny\n---\n\nYou review.\n";
        let doc: Document<Meta> = parse(Path::new("a.md"), text).expect("parses");
        assert_eq!(doc.meta.description.as_deref(), Some("Reviews code"));
        assert_eq!(doc.meta.steps, Some(5));
        assert_eq!(doc.meta.permission.expect("rules")["edit"], "deny");
        assert_eq!(doc.body, "You review.\n");
    }

    #[test]
    fn no_front_matter_is_all_body() {
        let doc: Document<Meta> = parse(Path::new("a.md"), "Just text\n---\n").expect("parses");
        assert_eq!(doc.meta, Meta::default());
        assert_eq!(doc.body, "Just text\n---\n");
        let unclosed: Document<Meta> = parse(Path::new("a.md"), "---\nsteps: 1\n").expect("parses");
        assert_eq!(unclosed.meta, Meta::default(), "an unclosed fence is body");
        let crlf: Document<Meta> =
            parse(Path::new("a.md"), "---\r\nsteps: 3\r\n---\r\nbody\r\n").expect("parses");
        assert_eq!(crlf.meta.steps, Some(3));
        assert_eq!(crlf.body, "body\r\n");
    }

    #[test]
    fn markdown_files_are_named_by_their_relative_path() {
        let dir = crate::testutil::TempDir::new();
        dir.write("review/security.md", "x");
        dir.write("a.md", "x");
        dir.write("notes.txt", "x");
        let mut warnings = Vec::new();
        let names: Vec<String> = markdown_files(dir.path(), "agent", &mut warnings)
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        assert_eq!(names, ["a", "review/security"]);
        assert!(warnings.is_empty());
        let missing = markdown_files(&dir.path().join("none"), "agent", &mut warnings);
        assert!(
            missing.is_empty() && warnings.is_empty(),
            "a missing directory is fine"
        );
    }

    #[test]
    fn errors_name_the_file_line_and_column() {
        let text = "---\ndescription: ok\nsteps: many\n---\nbody\n";
        let err = parse::<Meta>(Path::new(".ward/agents/r.md"), text).expect_err("bad type");
        let message = err.to_string();
        assert!(message.starts_with(".ward/agents/r.md:3:"), "{message}");
        assert!(message.contains("steps"), "{message}");
        let err = parse::<Meta>(Path::new("x.md"), "---\ncolour: red\n---\n").expect_err("unknown");
        assert!(err.to_string().starts_with("x.md:2:"), "{err}");
        assert!(err.to_string().contains("colour"), "{err}");
    }
}
