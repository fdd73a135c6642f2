//! The mapping from OpenCode's configuration keys to Ward's: which keys carry
//! over as they are, which are renamed or reshaped (`provider.*.options.baseURL`,
//! `tools` switches, `agent.*.maxSteps`), and what each key Ward does not act on
//! is warned about.

use std::path::Path;

use jsonc_parser::ast::{Object, ObjectProp, Value};

use crate::error::{ConfigError, Located, newlines};
use crate::opencode_json::Layer;
use crate::substitute::{EnvLookup, Tokens, has_token, substitute_value};
use crate::warning::Warning;

/// Top-level keys Ward takes as they are (same name, same shape).
const SAME_KEYS: &[&str] = &[
    "model",
    "small_model",
    "default_agent",
    "instructions",
    "snapshot",
];

/// Top-level OpenCode keys Ward does not act on, and what it does instead.
const UNSUPPORTED: &[(&str, &str)] = &[
    (
        "plugin",
        "loads JavaScript plugins unsandboxed; Ward does not run them — port them to a component, see docs/plugins.md",
    ),
    (
        "theme",
        "is a setting of OpenCode's interface; Ward ignores it",
    ),
    (
        "keybinds",
        "is a setting of OpenCode's interface; Ward ignores it",
    ),
    (
        "tui",
        "is a setting of OpenCode's interface; Ward ignores it",
    ),
    (
        "layout",
        "is a setting of OpenCode's interface; Ward ignores it",
    ),
    (
        "username",
        "is a setting of OpenCode's interface; Ward ignores it",
    ),
    (
        "autoupdate",
        "is OpenCode's self-update; Ward is updated by whatever installed it",
    ),
    (
        "formatter",
        "runs formatters after edits in OpenCode; Ward does not run them — use a hook component",
    ),
    (
        "lsp",
        "starts language servers in OpenCode; Ward does not start them",
    ),
    (
        "experimental",
        "holds OpenCode's experimental switches; Ward ignores them",
    ),
    (
        "watcher",
        "is OpenCode's file watcher setting; Ward ignores it",
    ),
    (
        "server",
        "configures OpenCode's server; use `ward serve` options instead",
    ),
    (
        "enterprise",
        "is OpenCode's enterprise setting; Ward ignores it",
    ),
    (
        "mode",
        "is OpenCode's deprecated form of `agent`; Ward reads agents from `agent` only",
    ),
    (
        "disabled_providers",
        "is not supported; Ward offers only the providers configured or bundled",
    ),
    (
        "enabled_providers",
        "is not supported; Ward offers only the providers configured or bundled",
    ),
    (
        "autoshare",
        "is OpenCode's sharing switch; Ward never shares sessions",
    ),
];

/// OpenCode's file-writing tools, which Ward checks under the permission `edit`.
const FILE_WRITERS: &[&str] = &["write", "edit", "patch", "apply_patch", "multiedit"];

/// Walks one OpenCode document, building the Ward table, the key locations
/// and the warnings.
pub(super) struct Converter<'a> {
    file: &'a Path,
    text: &'a str,
    newlines: Vec<usize>,
    base_dir: &'a Path,
    env: EnvLookup<'a>,
    tokens: Tokens,
    layer: Layer,
    /// Tools switched off by `tools`, applied after `permission` so they win
    /// within the file, as OpenCode's switch removes the tool outright.
    tool_denies: Vec<(String, usize)>,
}

impl<'a> Converter<'a> {
    pub(super) fn new(
        file: &'a Path,
        text: &'a str,
        base_dir: &'a Path,
        env: EnvLookup<'a>,
        tokens: Tokens,
    ) -> Self {
        Converter {
            file,
            text,
            newlines: newlines(text),
            base_dir,
            env,
            tokens,
            layer: Layer::default(),
            tool_denies: Vec::new(),
        }
    }

    pub(super) fn finish(mut self) -> Layer {
        if !self.tool_denies.is_empty() {
            let mut permission = match self.layer.table.remove("permission") {
                Some(toml::Value::Table(table)) => table,
                _ => toml::Table::new(),
            };
            let denies = std::mem::take(&mut self.tool_denies);
            self.apply_tool_denies(&mut permission, &["permission".into()], denies);
            self.layer
                .table
                .insert("permission".into(), toml::Value::Table(permission));
        }
        self.layer
    }

    fn at(&self, offset: usize) -> Located {
        Located::from_offset_in(self.file, self.text, &self.newlines, offset)
    }

    fn record(&mut self, path: &[String], offset: usize) {
        let at = self.at(offset);
        self.layer.origins.push((path.to_vec(), at));
    }

    fn warn(&mut self, offset: usize, message: String) {
        let at = self.at(offset);
        self.layer
            .warnings
            .push(Warning::at(self.file, at.line, at.column, message));
    }

    fn wrong_shape(&self, offset: usize, path: &str, expected: &str) -> ConfigError {
        ConfigError::Invalid {
            at: self.at(offset),
            path: path.to_owned(),
            message: format!("expected {expected}"),
        }
    }

    /// The whole document: an object of top-level keys.
    pub(super) fn document(&mut self, root: &Value<'_>) -> Result<(), ConfigError> {
        let Value::Object(object) = root else {
            return Err(self.wrong_shape(
                root_start(root),
                "the top level",
                "an object of settings",
            ));
        };
        for prop in &object.properties {
            let key = prop.name.as_str();
            let offset = prop.range.start;
            let path = vec![key.to_owned()];
            match key {
                "$schema" => {}
                k if SAME_KEYS.contains(&k) => self.copy(&path, prop)?,
                "permission" => {
                    let rules = self.permission(&prop.value, "permission")?;
                    self.put(&path, offset, toml::Value::Table(rules));
                }
                "tools" => {
                    let denies = self.tools(&prop.value, "tools")?;
                    self.tool_denies.extend(denies);
                }
                "agent" => self.agents(prop)?,
                "command" => self.commands(prop)?,
                "mcp" => self.mcps(prop)?,
                "provider" => self.providers(prop)?,
                "compaction" => self.compaction(prop)?,
                "share" => {
                    if prop.value.as_string_lit().map(|s| s.value.as_ref()) != Some("disabled") {
                        self.warn(
                            offset,
                            "\"share\" publishes sessions in OpenCode; Ward never shares sessions, so only \"disabled\" has a meaning (the one it always has)".into(),
                        );
                    }
                }
                other => match UNSUPPORTED.iter().find(|(k, _)| *k == other) {
                    Some((_, what)) => self.warn(offset, format!("\"{other}\" {what}")),
                    None => self.warn(
                        offset,
                        format!(
                            "unknown key \"{other}\" (not an OpenCode setting Ward knows); ignored"
                        ),
                    ),
                },
            }
        }
        Ok(())
    }

    /// Inserts `value` at `path` (parents created), recording where it was written.
    fn put(&mut self, path: &[String], offset: usize, value: toml::Value) {
        let Some((last, parents)) = path.split_last() else {
            return;
        };
        let mut table = &mut self.layer.table;
        for key in parents {
            let entry = table
                .entry(key.clone())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            if !entry.is_table() {
                *entry = toml::Value::Table(toml::Table::new());
            }
            let toml::Value::Table(inner) = entry else {
                return;
            };
            table = inner;
        }
        table.insert(last.clone(), value);
        self.record(path, offset);
    }

    /// Copies `prop`'s value as it is to `path`.
    fn copy(&mut self, path: &[String], prop: &ObjectProp<'_>) -> Result<(), ConfigError> {
        if let Some(value) = self.plain(&prop.value, path)? {
            self.put(path, prop.range.start, value);
        }
        Ok(())
    }

    /// A JSON value as TOML, recording the location of every nested key under
    /// `path`; `null` (which TOML lacks) is left out, as if unset.
    pub(super) fn plain(
        &mut self,
        value: &Value<'_>,
        path: &[String],
    ) -> Result<Option<toml::Value>, ConfigError> {
        Ok(Some(match value {
            Value::NullKeyword(_) => return Ok(None),
            Value::BooleanLit(b) => toml::Value::Boolean(b.value),
            Value::NumberLit(n) => match n.value.parse::<i64>() {
                Ok(int) => toml::Value::Integer(int),
                Err(_) => match n.value.parse::<f64>() {
                    Ok(float) => toml::Value::Float(float),
                    Err(_) => {
                        return Err(self.wrong_shape(n.range.start, &path.join("."), "a number"));
                    }
                },
            },
            Value::StringLit(s) => {
                if has_token(&s.value) {
                    self.layer.substituted.push(path.to_vec());
                }
                let at = self.at(s.range.start);
                toml::Value::String(substitute_value(
                    &s.value,
                    self.base_dir,
                    self.env,
                    self.tokens,
                    || at.clone(),
                )?)
            }
            Value::Array(array) => {
                let mut items = Vec::new();
                for element in &array.elements {
                    let marked = self.layer.substituted.len();
                    // A string element is marked by its index, as the merged
                    // configuration will reach it; a substituted value deeper in
                    // an element marks the whole array (over-hiding, never under).
                    let item = match element {
                        Value::StringLit(_) => {
                            let mut at = path.to_vec();
                            at.push(items.len().to_string());
                            self.plain(element, &at)?
                        }
                        _ => self.plain(element, path)?,
                    };
                    if !matches!(element, Value::StringLit(_))
                        && self.layer.substituted.len() > marked
                    {
                        self.layer.substituted.truncate(marked);
                        self.layer.substituted.push(path.to_vec());
                    }
                    items.extend(item);
                }
                toml::Value::Array(items)
            }
            Value::Object(object) => {
                let mut table = toml::Table::new();
                for prop in &object.properties {
                    let mut inner = path.to_vec();
                    inner.push(prop.name.as_str().to_owned());
                    if let Some(value) = self.plain(&prop.value, &inner)? {
                        table.insert(prop.name.as_str().to_owned(), value);
                        self.record(&inner, prop.range.start);
                    }
                }
                toml::Value::Table(table)
            }
        }))
    }

    /// OpenCode's `permission`: one action for everything, or per key an action
    /// or an object of pattern → action — Ward's `[permission]` shape.
    pub(super) fn permission(
        &mut self,
        value: &Value<'_>,
        name: &str,
    ) -> Result<toml::Table, ConfigError> {
        let path: Vec<String> = name.split('.').map(str::to_owned).collect();
        match value {
            Value::StringLit(_) => {
                let mut table = toml::Table::new();
                if let Some(action) = self.plain(value, &path)? {
                    table.insert("*".into(), action);
                    let mut key = path.clone();
                    key.push("*".into());
                    self.record(&key, root_start(value));
                }
                Ok(table)
            }
            Value::Object(_) => match self.plain(value, &path)? {
                Some(toml::Value::Table(table)) => Ok(table),
                _ => Ok(toml::Table::new()),
            },
            other => Err(self.wrong_shape(
                root_start(other),
                name,
                "\"allow\", \"ask\", \"deny\" or an object of permission keys",
            )),
        }
    }

    /// OpenCode's `tools` switches: `false` removes a tool (a deny for its
    /// permission key); `true` is the default and changes nothing.
    pub(super) fn tools(
        &mut self,
        value: &Value<'_>,
        name: &str,
    ) -> Result<Vec<(String, usize)>, ConfigError> {
        let Value::Object(object) = value else {
            return Err(self.wrong_shape(
                root_start(value),
                name,
                "an object of tool name → true/false",
            ));
        };
        let mut denies = Vec::new();
        for prop in &object.properties {
            match &prop.value {
                Value::BooleanLit(b) if !b.value => {
                    let tool = prop.name.as_str();
                    // OpenCode rules its file-writing tools under one permission,
                    // `edit`, as Ward's declare they are: switching one off switches
                    // off all three, as OpenCode does.
                    let key = if FILE_WRITERS.contains(&tool) {
                        if tool != "edit" {
                            self.warn(
                                prop.range.start,
                                format!("\"{name}.{tool}\": Ward checks write, edit and apply_patch under the one `edit` permission, so all three are switched off"),
                            );
                        }
                        "edit"
                    } else {
                        tool
                    };
                    denies.push((key.to_owned(), prop.range.start));
                }
                Value::BooleanLit(_) => {}
                _ => self.warn(
                    prop.range.start,
                    format!(
                        "\"{name}.{}\" should be true or false; ignored",
                        prop.name.as_str()
                    ),
                ),
            }
        }
        Ok(denies)
    }

    /// Appends `deny` rules for switched-off tools to `permission` (moving a
    /// key already there to the end, so the switch wins as the last rule).
    pub(super) fn apply_tool_denies(
        &mut self,
        permission: &mut toml::Table,
        path: &[String],
        denies: Vec<(String, usize)>,
    ) {
        for (tool, offset) in denies {
            permission.remove(&tool);
            permission.insert(tool.clone(), toml::Value::String("deny".into()));
            let mut key = path.to_vec();
            key.push(tool);
            self.record(&key, offset);
        }
    }

    /// Iterates an object-valued top-level key, or errors naming what it must be.
    pub(super) fn entries<'v>(
        &self,
        prop: &'v ObjectProp<'v>,
        what: &str,
    ) -> Result<&'v Object<'v>, ConfigError> {
        match &prop.value {
            Value::Object(object) => Ok(object),
            other => Err(self.wrong_shape(
                root_start(other),
                prop.name.as_str(),
                &format!("an object of {what} by name"),
            )),
        }
    }

    pub(super) fn warn_key(&mut self, prop: &ObjectProp<'_>, path: &str, what: &str) {
        self.warn(
            prop.range.start,
            format!("\"{path}.{}\" {what}", prop.name.as_str()),
        );
    }
}

mod sections;

/// Where a value starts.
fn root_start(value: &Value<'_>) -> usize {
    use jsonc_parser::common::Ranged;
    value.range().start
}
