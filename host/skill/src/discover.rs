//! Finding skills on disk.
//!
//! Owns the scan of each skills root (every `<root>/<dir>/SKILL.md`, one level
//! deep like Claude Code), reading a skill's front matter, the rules a skill
//! must meet to be offered (a valid name, a description) and the [`Warning`]s
//! for the ones that do not.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use ward_config::ConfigError;
use ward_config::frontmatter;

use crate::SkillInfo;
use crate::roots::SkillSource;

/// The file that makes a directory a skill.
pub const SKILL_FILE: &str = "SKILL.md";

/// The longest accepted skill name, in characters (Claude Code's limit).
pub const MAX_NAME_LEN: usize = 64;

/// A skill that could not be offered, or a skills directory that could not be
/// read (Ward's one located warning type). Discovery goes on past it.
pub use ward_config::Warning;

/// The front matter fields Ward reads. Everything else Claude Code or the Agent
/// Skills format allows (`license`, `allowed-tools`, `metadata`, `model`, …) is
/// accepted and ignored, so existing skills load unchanged.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Meta {
    name: Option<String>,
    description: Option<String>,
}

/// Every skill under `source`, in directory-name order. A missing root is not
/// a problem (most are absent); an unreadable one is a warning.
pub(crate) fn scan(source: &SkillSource, warnings: &mut Vec<Warning>) -> Vec<SkillInfo> {
    let entries = match std::fs::read_dir(&source.root) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => return Vec::new(),
        Err(e) => {
            if source.root.is_dir() {
                warnings.push(Warning::in_file(
                    &source.root,
                    format!("cannot read skills directory: {e}"),
                ));
            }
            return Vec::new();
        }
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|entry| !is_hidden(&entry.file_name()))
        .map(|entry| entry.path())
        // `is_dir` follows symlinks: linked skill directories are common.
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    dirs.iter()
        .filter_map(|dir| read_skill(source, dir, warnings))
        .collect()
}

/// The skill in `dir`, or `None` (with a warning when it is one but is broken).
fn read_skill(source: &SkillSource, dir: &Path, warnings: &mut Vec<Warning>) -> Option<SkillInfo> {
    let file = dir.join(SKILL_FILE);
    if !file.is_file() {
        return None;
    }
    let text = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(e) => {
            warnings.push(Warning::in_file(
                &file,
                format!("cannot read: {e}; the skill is skipped"),
            ));
            return None;
        }
    };
    let meta = match frontmatter::parse::<Meta>(&file, &text) {
        Ok(doc) => doc.meta,
        Err(e) => {
            warnings.push(config_warning(&file, e));
            return None;
        }
    };
    let dir_name = dir.file_name()?.to_string_lossy().into_owned();
    let (name, from_front_matter) = match meta.name.as_deref().map(str::trim) {
        Some(name) if !name.is_empty() => (name.to_string(), true),
        _ => (dir_name, false),
    };
    if let Err(problem) = check_name(&name) {
        let mut warning = Warning::in_file(
            &file,
            format!("invalid skill name {name:?}: {problem}; the skill is skipped"),
        );
        if from_front_matter && let Some(line) = key_line(&text, "name") {
            warning.line = Some(line);
            warning.column = Some(1);
        } else if !from_front_matter {
            warning
                .message
                .push_str(" (the name is the directory's; set `name` in the front matter)");
        }
        warnings.push(warning);
        return None;
    }
    let description = collapse_whitespace(meta.description.as_deref().unwrap_or(""));
    if description.is_empty() {
        warnings.push(Warning::in_file(
            &file,
            "skill has no description; it is not offered",
        ));
        return None;
    }
    Some(SkillInfo {
        name,
        description,
        dir: dir.to_path_buf(),
        file,
        source: source.clone(),
        plugin: None,
    })
}

/// What breaks Claude Code's naming rule in a skill name; the message completes
/// "invalid skill name …: ".
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// The name is empty.
    #[error("it is empty ({NAME_RULE})")]
    Empty,
    /// The name is longer than [`MAX_NAME_LEN`] characters.
    #[error("it has {length} characters, at most {MAX_NAME_LEN} are allowed")]
    TooLong {
        /// Its length in characters.
        length: usize,
    },
    /// A character outside the rule.
    #[error("{character:?} is not allowed ({NAME_RULE})")]
    Character {
        /// The first such character.
        character: char,
    },
}

/// The characters a skill name may use.
const NAME_RULE: &str = "use lowercase letters, digits and hyphens";

/// Checks Claude Code's naming rule: 1–64 characters, each a lowercase ASCII
/// letter, a digit or a hyphen. Returns what is wrong.
pub fn check_name(name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    let length = name.chars().count();
    if length > MAX_NAME_LEN {
        return Err(NameError::TooLong { length });
    }
    match name
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
    {
        Some(character) => Err(NameError::Character { character }),
        None => Ok(()),
    }
}

/// A front matter error as a warning, keeping its line and column.
fn config_warning(file: &Path, error: ConfigError) -> Warning {
    match error {
        ConfigError::Syntax { at, message } => Warning::at(
            &at.file,
            at.line,
            at.column,
            format!("{message}; the skill is skipped"),
        ),
        other => Warning::in_file(file, format!("{other}; the skill is skipped")),
    }
}

/// The 1-based line of the first top-level `key:` in the front matter.
fn key_line(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .enumerate()
        .skip(1)
        .take_while(|(_, line)| line.trim_end() != "---")
        .find(|(_, line)| {
            line.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
        .map(|(i, _)| i + 1)
}

/// Whether a directory entry is hidden (`.git`, `.DS_Store`, …).
pub(crate) fn is_hidden(name: &std::ffi::OsStr) -> bool {
    name.to_string_lossy().starts_with('.')
}

/// `text` trimmed, with every run of whitespace (newlines included) made one
/// space, so folded or multi-line YAML descriptions list on one line.
fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(check_name("pdf-tools").is_ok());
        assert!(check_name("a1").is_ok());
        assert!(check_name(&"a".repeat(64)).is_ok());
        assert!(check_name(&"a".repeat(65)).is_err());
        assert!(check_name("").is_err());
        let err = check_name("PDF Tools").unwrap_err();
        assert_eq!(err, NameError::Character { character: 'P' });
        assert_eq!(
            err.to_string(),
            "'P' is not allowed (use lowercase letters, digits and hyphens)"
        );
        assert_eq!(
            check_name(&"a".repeat(65)),
            Err(NameError::TooLong { length: 65 })
        );
        assert!(check_name("a_b").is_err());
        assert!(check_name("é").is_err());
    }

    #[test]
    fn warning_display() {
        let mut w = Warning::in_file(Path::new("a/SKILL.md"), "broken");
        assert_eq!(w.to_string(), "a/SKILL.md: broken");
        w.line = Some(3);
        w.column = Some(7);
        assert_eq!(w.to_string(), "a/SKILL.md:3:7: broken");
    }

    #[test]
    fn helpers() {
        let text = "---\ndescription: x\nname: Bad Name\n---\nname: body\n";
        assert_eq!(key_line(text, "name"), Some(3));
        assert_eq!(key_line(text, "license"), None);
        assert_eq!(collapse_whitespace("  a\n  b\tc  "), "a b c");
    }
}
