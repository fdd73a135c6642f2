//! Commands from markdown files: every `*.md` under a commands directory
//! (`<project>/.ward/commands/`, `<global config dir>/commands/`), searched
//! recursively. The name is the path relative to that directory without
//! `.md`, with `/` between directories (`git/commit.md` is `git/commit`); the
//! front matter holds `description`, `agent`, `model` and `subtask`, and the
//! body is the template.
//!
//! A file that cannot be used (unreadable, bad YAML, an unknown field, a bad
//! `model`, an invalid name, an empty body) is skipped with a [`Warning`],
//! located at `file:line:column` when the problem is in the front matter; the
//! other files still load.

use std::fs;
use std::path::Path;

use serde::Deserialize;

use crate::info::{CommandInfo, CommandSource, is_valid_name};
use ward_config::Warning;

/// What Ward did about a file it could not use, added to each warning.
const SKIPPED: &str = "the command file is skipped";

/// The front matter of a command file.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct FrontMatter {
    description: Option<String>,
    agent: Option<String>,
    #[serde(deserialize_with = "ward_config::deserialize_model_ref")]
    model: Option<String>,
    subtask: Option<bool>,
}

/// A command read from a file, and the line of its `agent:` key (for
/// locating a warning about an unknown agent).
#[derive(Debug, Clone)]
pub(crate) struct Loaded {
    pub info: CommandInfo,
    pub agent_line: Option<usize>,
}

/// The commands in the commands directory `dir`, in name order. A missing
/// directory has none; problems go to `warnings`.
pub(crate) fn commands(dir: &Path, warnings: &mut Vec<Warning>) -> Vec<Loaded> {
    ward_config::frontmatter::markdown_files(dir, "command", warnings)
        .into_iter()
        .filter_map(|(name, path)| match load(name, &path) {
            Ok(loaded) => Some(loaded),
            Err(warning) => {
                warnings.push(warning);
                None
            }
        })
        .collect()
}

/// Reads and parses one command file.
fn load(name: String, path: &Path) -> Result<Loaded, Warning> {
    if !is_valid_name(&name) {
        return Err(Warning::in_file(
            path,
            format!(
                "`{name}` is not a valid command name (use letters, digits, `-`, `_`, `.` \
                 and `/`, no spaces); {SKIPPED}"
            ),
        ));
    }
    let text = fs::read_to_string(path)
        .map_err(|e| Warning::in_file(path, format!("cannot read: {e}; {SKIPPED}")))?;
    let document = ward_config::frontmatter::parse::<FrontMatter>(path, &text)
        .map_err(|e| Warning::from_config_error(path, &e, SKIPPED))?;
    let meta = document.meta;
    let template = document.body.trim_end();
    if template.is_empty() {
        return Err(Warning::in_file(
            path,
            format!(
                "the command has no template (the body after the front matter is empty); {SKIPPED}"
            ),
        ));
    }
    let agent_line = meta.agent.as_ref().and_then(|_| key_line(&text, "agent"));
    Ok(Loaded {
        info: CommandInfo {
            name,
            description: meta.description,
            agent: meta.agent,
            model: meta.model,
            subtask: meta.subtask.unwrap_or(false),
            template: template.to_string(),
            source: CommandSource::File {
                path: path.to_path_buf(),
            },
        },
        agent_line,
    })
}

/// The 1-based line of the top-level front matter key `key` in `text`.
fn key_line(text: &str, key: &str) -> Option<usize> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().enumerate();
    if lines.next()?.1.trim_end() != "---" {
        return None;
    }
    for (index, line) in lines {
        if line.trim_end() == "---" {
            return None;
        }
        if let Some(rest) = line.strip_prefix(key)
            && rest.trim_start().starts_with(':')
        {
            return Some(index + 1);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_agent_key() {
        let text = "---\ndescription: x\n  agent: nested\nagent : plan\n---\nagent: body\n";
        assert_eq!(key_line(text, "agent"), Some(4));
        assert_eq!(key_line("---\nx: 1\n---\nagent: b\n", "agent"), None);
        assert_eq!(key_line("agent: b\n", "agent"), None);
    }
}
