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
use ward_permission::{Action, Rule, Ruleset};

use crate::info::AgentSource;
use crate::merge::Definition;
use ward_config::Warning;

mod permission;

use permission::PermissionSpec;

/// The front matter of an agent file: the fields of `[agent.NAME]`, with
/// `permission` written as YAML (`edit: deny`, `bash: { "git *": allow }`), and
/// Claude Code's `name` and `tools`, so its agent files work unchanged.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct FrontMatter {
    /// Claude Code's agent name; the file's path names it otherwise.
    name: Option<String>,
    /// Claude Code's tool allow-list (`Read, Grep, Glob` or a list): everything
    /// else is denied.
    tools: Option<ToolList>,
    description: Option<String>,
    mode: Option<AgentMode>,
    hidden: Option<bool>,
    /// `provider/model`; Claude Code's `inherit` (or an alias such as `sonnet`,
    /// which names no provider) keeps the session's model.
    model: Option<String>,
    temperature: Option<f64>,
    top_p: Option<f64>,
    variant: Option<String>,
    /// A prompt in the front matter; the body, when not empty, replaces it.
    prompt: Option<String>,
    steps: Option<u32>,
    permission: Option<PermissionSpec>,
    disable: Option<bool>,
    color: Option<String>,
}

/// The tools an agent file names: Claude Code's allow-list (one comma-separated
/// string or a YAML list: everything else is denied) or OpenCode's switches
/// (`bash: false`: only those are changed).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ToolList {
    Text(String),
    List(Vec<String>),
    Switches(std::collections::BTreeMap<String, bool>),
}

impl ToolList {
    /// The rules the list stands for.
    fn rules(&self) -> Vec<Rule> {
        let listed = |names: Vec<&str>| {
            let mut rules = vec![Rule::new("*", "*", Action::Deny)];
            rules.extend(
                ward_names(names)
                    .into_iter()
                    .map(|t| Rule::new(t, "*", Action::Allow)),
            );
            rules
        };
        match self {
            ToolList::Text(text) => listed(text.split(',').collect()),
            ToolList::List(list) => listed(list.iter().map(String::as_str).collect()),
            ToolList::Switches(switches) => switches
                .iter()
                .flat_map(|(tool, on)| {
                    let action = if *on { Action::Allow } else { Action::Deny };
                    ward_names(vec![tool.as_str()])
                        .into_iter()
                        .map(move |t| Rule::new(t, "*", action))
                })
                .collect(),
        }
    }
}

/// Ward's permission keys for tool names as Claude Code and OpenCode write them
/// (`Read` → `read`, `LS` → `list`, `Write` → `edit`, …). This is a translation of
/// those formats' vocabulary, not knowledge of Ward's tools: their own tools that
/// change files are all ruled under `edit`, as Ward's declare they are.
fn ward_names(names: Vec<&str>) -> Vec<String> {
    names
        .iter()
        .map(|n| n.trim().to_lowercase())
        .filter(|n| !n.is_empty())
        .map(|n| match n.as_str() {
            "ls" => "list".to_string(),
            "write" | "multiedit" | "apply_patch" | "patch" => "edit".to_string(),
            _ => n,
        })
        .collect()
}

/// The definitions in the agents directory `dir`, in name order. A missing
/// directory has none; problems go to `warnings`.
pub(crate) fn definitions(dir: &Path, warnings: &mut Vec<Warning>) -> Vec<Definition> {
    let files = ward_config::frontmatter::markdown_files(dir, "agent", warnings);
    files
        .into_iter()
        .filter_map(|(name, path)| match load(&name, &path, warnings) {
            Ok(definition) => Some(definition),
            Err(warning) => {
                warnings.push(warning);
                None
            }
        })
        .collect()
}

/// Reads and parses one agent file; what it can do without goes to `warnings`.
fn load(name: &str, path: &Path, warnings: &mut Vec<Warning>) -> Result<Definition, Warning> {
    const SKIPPED: &str = "the agent file is skipped";
    let text = fs::read_to_string(path)
        .map_err(|e| Warning::in_file(path, format!("cannot read: {e}; {SKIPPED}")))?;
    let document = ward_config::frontmatter::parse::<FrontMatter>(path, &text)
        .map_err(|e| Warning::from_config_error(path, &e, SKIPPED))?;
    let meta = document.meta;
    let body = document.body.trim_end();
    let mut rules = match meta.permission {
        None => None,
        Some(spec) => Some(
            Ruleset::from_toml(path.display().to_string(), &spec.0).map_err(|e| {
                Warning::in_file(path, format!("in the front matter: {e}; {SKIPPED}"))
            })?,
        ),
    };
    if let Some(tools) = &meta.tools {
        // The tool list first, so explicit `permission` rules still refine it.
        let mut listed = tools.rules();
        if let Some(own) = rules.take() {
            listed.extend(own.rules);
        }
        rules = Some(Ruleset::new(path.display().to_string(), listed));
    }
    let model = match meta.model.as_deref().map(str::trim) {
        None | Some("inherit") => None,
        Some(m)
            if m.split_once('/')
                .is_some_and(|(p, id)| !p.is_empty() && !id.is_empty()) =>
        {
            Some(m.to_string())
        }
        Some(other) => {
            warnings.push(Warning::in_file(
                path,
                format!(
                    "model `{other}` is not `provider/model`; the agent uses the session's model"
                ),
            ));
            None
        }
    };
    let name = meta
        .name
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty() && !n.contains(char::is_whitespace))
        .unwrap_or(name);
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
            model,
            temperature: meta.temperature,
            top_p: meta.top_p,
            variant: meta.variant,
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
