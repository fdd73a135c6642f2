//! A loaded skill as the `skill` tool returns it.
//!
//! Owns the `<skill_content name="…">` text: the base directory line, the
//! `SKILL.md` body without its front matter (capped at [`MAX_BODY_BYTES`]) and
//! a sorted listing of up to [`MAX_FILES`] other files of the skill directory.

use std::fmt::Write as _;
use std::path::Path;

use serde::de::IgnoredAny;
use ward_config::frontmatter;

use crate::describe::escape;
use crate::discover::{SKILL_FILE, is_hidden};
use crate::registry::{SkillError, SkillInfo};

/// The largest body included, in bytes; longer bodies are cut with a marker.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// How many of the skill directory's other files are listed.
pub const MAX_FILES: usize = 10;
/// Directories deeper than this below the skill directory are not listed.
const MAX_DEPTH: usize = 8;
/// Listing stops counting after this many files, so a skill directory holding a
/// large tree (a vendored `node_modules`, say) stays cheap.
const MAX_SCAN: usize = 10_000;

/// Renders `skill` for the model.
pub(crate) fn render(skill: &SkillInfo) -> Result<String, SkillError> {
    let text = std::fs::read_to_string(&skill.file).map_err(|source| SkillError::Read {
        name: skill.name.clone(),
        file: skill.file.clone(),
        source,
    })?;
    let doc =
        frontmatter::parse::<IgnoredAny>(&skill.file, &text).map_err(|e| SkillError::Invalid {
            name: skill.name.clone(),
            message: e.to_string(),
        })?;
    let body = cap(doc.body.trim_end(), &skill.file);
    let origin = format!(
        "Base directory for this skill: {}\n\
         Relative paths in this skill (scripts, references, assets) are relative to this base directory.",
        skill.dir.display()
    );
    let (files, total, complete) = list_files(&skill.dir);
    Ok(assemble(
        &skill.name,
        &origin,
        &body,
        &files,
        total,
        complete,
    ))
}

/// Renders a skill that plugin component `plugin` returned: the same shape, naming
/// the plugin instead of a base directory (its files are inside the component, not
/// on disk). The body is capped like a `SKILL.md`; at most [`MAX_FILES`] files are
/// listed.
pub fn render_from_plugin(name: &str, plugin: &str, body: &str, files: &[String]) -> String {
    let body = cap(
        body.trim_end(),
        Path::new(&format!("plugin:{plugin}/{name}")),
    );
    let origin = format!("This skill is provided by the plugin `{plugin}`.");
    let listed: Vec<String> = files.iter().take(MAX_FILES).cloned().collect();
    assemble(name, &origin, &body, &listed, files.len(), true)
}

/// The `<skill_content>` text: title, where the skill comes from, body, files.
fn assemble(
    name: &str,
    origin: &str,
    body: &str,
    files: &[String],
    total: usize,
    complete: bool,
) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(out, "<skill_content name=\"{}\">", escape(name));
    let _ = writeln!(out, "# Skill: {name}");
    out.push('\n');
    out.push_str(origin);
    out.push_str("\n\n");
    out.push_str(body);
    out.push_str("\n\n");
    if files.is_empty() {
        out.push_str("<skill_files>\n(no other files)\n</skill_files>\n");
    } else {
        out.push_str("<skill_files>\n");
        for file in files {
            out.push_str(file);
            out.push('\n');
        }
        let more = total - files.len();
        if more > 0 {
            let at_least = if complete { "" } else { "at least " };
            let plural = if more == 1 { "" } else { "s" };
            let _ = writeln!(out, "… and {at_least}{more} more file{plural}");
        }
        out.push_str("</skill_files>\n");
    }
    out.push_str("</skill_content>");
    out
}

/// `body` cut to [`MAX_BODY_BYTES`] at a character boundary, with a marker
/// saying where the rest is.
fn cap(body: &str, file: &Path) -> String {
    if body.len() <= MAX_BODY_BYTES {
        return body.to_string();
    }
    let mut end = MAX_BODY_BYTES;
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n\n[… skill body truncated at {} KiB; read {} for the rest]",
        &body[..end],
        MAX_BODY_BYTES / 1024,
        file.display()
    )
}

/// The first [`MAX_FILES`] files under `dir` (recursive; relative, `/`-separated,
/// sorted; hidden entries and the top-level `SKILL.md` left out), how many
/// there are in all, and whether that count is complete. Symlinked directories
/// are listed as entries but not descended into, so link cycles cannot loop.
fn list_files(dir: &Path) -> (Vec<String>, usize, bool) {
    let mut all = Vec::new();
    let mut complete = true;
    walk(dir, "", 0, &mut all, &mut complete);
    all.sort();
    let total = all.len();
    all.truncate(MAX_FILES);
    (all, total, complete)
}

fn walk(dir: &Path, prefix: &str, depth: usize, out: &mut Vec<String>, complete: &mut bool) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries
        .filter_map(Result::ok)
        .filter(|e| !is_hidden(&e.file_name()))
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        if out.len() >= MAX_SCAN {
            *complete = false;
            return;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        if depth == 0 && name == SKILL_FILE {
            continue;
        }
        let relative = format!("{prefix}{name}");
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if depth + 1 >= MAX_DEPTH {
                *complete = false;
                continue;
            }
            walk(
                &entry.path(),
                &format!("{relative}/"),
                depth + 1,
                out,
                complete,
            );
        } else {
            // Files, and symlinks (to files or directories) as single entries.
            out.push(relative);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_cuts_at_a_char_boundary() {
        let body = "é".repeat(MAX_BODY_BYTES); // two bytes each
        let capped = cap(&body, Path::new("/s/SKILL.md"));
        assert!(capped.len() < MAX_BODY_BYTES + 200);
        assert!(
            capped.ends_with("read /s/SKILL.md for the rest]"),
            "{}",
            &capped[capped.len() - 80..]
        );
        assert_eq!(cap("short", Path::new("x")), "short");
    }

    #[test]
    fn listing_skips_hidden_and_nests() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path();
        for file in [
            "SKILL.md",
            "b.md",
            "a/x.txt",
            "a/SKILL.md",
            ".git/config",
            "a/.hidden",
        ] {
            let path = dir.join(file);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, "x").expect("write");
        }
        let (files, total, complete) = list_files(dir);
        assert_eq!(files, ["a/SKILL.md", "a/x.txt", "b.md"]);
        assert_eq!(total, 3);
        assert!(complete);
    }
}
