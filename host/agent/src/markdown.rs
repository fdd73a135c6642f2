//! Agents from markdown files: every `*.md` under an agents directory
//! (`<project>/.ward/agents/`, `<global config dir>/agents/`), searched
//! recursively. The name is the path relative to that directory without
//! `.md`, with `/` between directories (`review/security.md` is
//! `review/security`); the front matter holds the fields of `[agent.NAME]`
//! and the body is the prompt.
//!
//! A file that cannot be read or parsed (bad YAML, an unknown field, a bad
//! permission action) is skipped with a [`Warning`] naming `file:line:column`;
//! the other files still load.

use std::fs;
use std::path::Path;

use serde::Deserialize;
use ward_config::{AgentConfig, AgentMode};
use ward_permission::Ruleset;

use crate::info::AgentSource;
use crate::merge::Definition;
use ward_config::Warning;

mod permission;

use permission::PermissionSpec;

/// The front matter of an agent file: the fields of `[agent.NAME]`, with
/// `permission` written as YAML (`edit: deny`, `bash: { "git *": allow }`).
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct FrontMatter {
    description: Option<String>,
    mode: Option<AgentMode>,
    hidden: Option<bool>,
    #[serde(deserialize_with = "ward_config::deserialize_model_ref")]
    model: Option<String>,
    temperature: Option<f64>,
    top_p: Option<f64>,
    /// A prompt in the front matter; the body, when not empty, replaces it.
    prompt: Option<String>,
    steps: Option<u32>,
    permission: Option<PermissionSpec>,
    disable: Option<bool>,
    color: Option<String>,
}

/// The definitions in the agents directory `dir`, in name order. A missing
/// directory has none; problems go to `warnings`.
pub(crate) fn definitions(dir: &Path, warnings: &mut Vec<Warning>) -> Vec<Definition> {
    ward_config::frontmatter::markdown_files(dir, "agent", warnings)
        .into_iter()
        .filter_map(|(name, path)| match load(&name, &path) {
            Ok(definition) => Some(definition),
            Err(warning) => {
                warnings.push(warning);
                None
            }
        })
        .collect()
}

/// Reads and parses one agent file.
fn load(name: &str, path: &Path) -> Result<Definition, Warning> {
    const SKIPPED: &str = "the agent file is skipped";
    let text = fs::read_to_string(path)
        .map_err(|e| Warning::in_file(path, format!("cannot read: {e}; {SKIPPED}")))?;
    let document = ward_config::frontmatter::parse::<FrontMatter>(path, &text)
        .map_err(|e| Warning::from_config_error(path, &e, SKIPPED))?;
    let meta = document.meta;
    let body = document.body.trim_end();
    let rules = match meta.permission {
        None => None,
        Some(spec) => Some(
            Ruleset::from_toml(path.display().to_string(), &spec.0).map_err(|e| {
                Warning::in_file(path, format!("in the front matter: {e}; {SKIPPED}"))
            })?,
        ),
    };
    let prompt = if body.is_empty() {
        meta.prompt
    } else {
        Some(body.to_string())
    };
    Ok(Definition {
        name: name.to_string(),
        fields: AgentConfig {
            description: meta.description,
            mode: meta.mode,
            hidden: meta.hidden,
            model: meta.model,
            temperature: meta.temperature,
            top_p: meta.top_p,
            prompt,
            steps: meta.steps,
            permission: None,
            disable: meta.disable,
            color: meta.color,
        },
        rules,
        source: AgentSource::Markdown {
            path: path.to_path_buf(),
        },
    })
}

#[cfg(test)]
mod tests;
