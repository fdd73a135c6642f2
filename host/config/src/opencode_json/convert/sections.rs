//! The object-valued sections of an OpenCode file: `agent`, `command`, `mcp`,
//! `provider` and `compaction`, each entry converted key by key so a key Ward
//! does not know is warned about at its own line.

use jsonc_parser::ast::{ObjectProp, Value};

use super::Converter;
use crate::error::ConfigError;

/// Agent keys that carry over as they are.
const AGENT_KEYS: &[&str] = &[
    "description",
    "mode",
    "model",
    "prompt",
    "temperature",
    "top_p",
    "hidden",
    "disable",
    "color",
    "variant",
    "steps",
];

/// Command keys that carry over as they are.
const COMMAND_KEYS: &[&str] = &["template", "description", "agent", "model", "subtask"];

/// MCP server keys that carry over as they are (Ward's `[mcp]` is OpenCode's shape).
const MCP_KEYS: &[&str] = &[
    "type",
    "command",
    "environment",
    "url",
    "headers",
    "enabled",
    "timeout",
];

/// Model keys that carry over as they are.
const MODEL_KEYS: &[&str] = &[
    "name",
    "tool_call",
    "reasoning",
    "attachment",
    "temperature",
    "variants",
];

/// OpenCode model `limit` and `cost` keys Ward knows.
const LIMIT_KEYS: &[&str] = &["context", "output", "input"];
const COST_KEYS: &[&str] = &["input", "output", "cache_read", "cache_write"];

fn path(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|p| (*p).to_owned()).collect()
}

impl Converter<'_> {
    /// `agent`: OpenCode agent objects onto `[agent.NAME]`.
    pub(super) fn agents(&mut self, prop: &ObjectProp<'_>) -> Result<(), ConfigError> {
        for agent in &self.entries(prop, "agents")?.properties {
            let name = agent.name.as_str();
            let Value::Object(fields) = &agent.value else {
                return Err(self.wrong_shape(
                    agent.range.start,
                    &format!("agent.{name}"),
                    "an object",
                ));
            };
            self.put(
                &path(&["agent", name]),
                agent.range.start,
                toml::Value::Table(toml::Table::new()),
            );
            let mut denies = Vec::new();
            let mut permission = None;
            for field in &fields.properties {
                let key = field.name.as_str();
                match key {
                    k if AGENT_KEYS.contains(&k) => self.copy(&path(&["agent", name, k]), field)?,
                    "maxSteps" => self.copy(&path(&["agent", name, "steps"]), field)?,
                    "permission" => {
                        let rules = self.permission(&field.value, &format!("agent.{name}.permission"))?;
                        permission = Some((rules, field.range.start));
                    }
                    "tools" => denies = self.tools(&field.value, &format!("agent.{name}.tools"))?,
                    _ => self.warn_key(
                        field,
                        &format!("agent.{name}"),
                        "is not an agent setting Ward knows (OpenCode passes such keys to the model as options); ignored",
                    ),
                }
            }
            if permission.is_some() || !denies.is_empty() {
                let (mut rules, offset) =
                    permission.unwrap_or((toml::Table::new(), agent.range.start));
                let at = path(&["agent", name, "permission"]);
                self.apply_tool_denies(&mut rules, &at, denies);
                self.put(&at, offset, toml::Value::Table(rules));
            }
        }
        Ok(())
    }

    /// `command`: OpenCode command objects onto `[command.NAME]`.
    pub(super) fn commands(&mut self, prop: &ObjectProp<'_>) -> Result<(), ConfigError> {
        for command in &self.entries(prop, "commands")?.properties {
            let name = command.name.as_str();
            let Value::Object(fields) = &command.value else {
                return Err(self.wrong_shape(
                    command.range.start,
                    &format!("command.{name}"),
                    "an object",
                ));
            };
            self.put(
                &path(&["command", name]),
                command.range.start,
                toml::Value::Table(toml::Table::new()),
            );
            for field in &fields.properties {
                let key = field.name.as_str();
                if COMMAND_KEYS.contains(&key) {
                    self.copy(&path(&["command", name, key]), field)?;
                } else {
                    self.warn_key(
                        field,
                        &format!("command.{name}"),
                        "is not a command setting Ward knows; ignored",
                    );
                }
            }
        }
        Ok(())
    }

    /// `mcp`: servers onto `[mcp.NAME]`, which has OpenCode's shape.
    pub(super) fn mcps(&mut self, prop: &ObjectProp<'_>) -> Result<(), ConfigError> {
        for server in &self.entries(prop, "MCP servers")?.properties {
            let name = server.name.as_str();
            let Value::Object(fields) = &server.value else {
                return Err(self.wrong_shape(
                    server.range.start,
                    &format!("mcp.{name}"),
                    "an object",
                ));
            };
            self.put(
                &path(&["mcp", name]),
                server.range.start,
                toml::Value::Table(toml::Table::new()),
            );
            for field in &fields.properties {
                let key = field.name.as_str();
                match key {
                    k if MCP_KEYS.contains(&k) => self.copy(&path(&["mcp", name, k]), field)?,
                    "oauth" => self.warn_key(
                        field,
                        &format!("mcp.{name}"),
                        "is not supported: Ward does not run OAuth flows for MCP servers; pass a token in `headers` instead",
                    ),
                    _ => self.warn_key(field, &format!("mcp.{name}"), "is not an MCP server setting Ward knows; ignored"),
                }
            }
        }
        Ok(())
    }

    /// `provider`: `options.baseURL`/`apiKey`/`headers`, `npm` (the wire
    /// protocol) and `models` onto `[provider.ID]`.
    pub(super) fn providers(&mut self, prop: &ObjectProp<'_>) -> Result<(), ConfigError> {
        for provider in &self.entries(prop, "providers")?.properties {
            let id = provider.name.as_str();
            let Value::Object(fields) = &provider.value else {
                return Err(self.wrong_shape(
                    provider.range.start,
                    &format!("provider.{id}"),
                    "an object",
                ));
            };
            self.put(
                &path(&["provider", id]),
                provider.range.start,
                toml::Value::Table(toml::Table::new()),
            );
            let here = format!("provider.{id}");
            for field in &fields.properties {
                match field.name.as_str() {
                    "options" => self.provider_options(id, field)?,
                    "models" => self.models(id, field)?,
                    "env" => self.copy(&path(&["provider", id, "env"]), field)?,
                    "api" => self.copy(&path(&["provider", id, "base_url"]), field)?,
                    "npm" => {
                        let package = field.value.as_string_lit().map(|s| s.value.to_string());
                        let kind = match package.as_deref() {
                            Some("@ai-sdk/openai-compatible") => Some("openai-compatible"),
                            Some("@ai-sdk/openai") => Some("openai-responses"),
                            Some("@ai-sdk/anthropic") => Some("anthropic"),
                            _ => None,
                        };
                        match kind {
                            Some(kind) => self.put(
                                &path(&["provider", id, "kind"]),
                                field.range.start,
                                toml::Value::String(kind.into()),
                            ),
                            None => self.warn_key(
                                field,
                                &here,
                                "names an AI SDK package Ward has no protocol for (it speaks openai-compatible, openai and anthropic); the provider is used as openai-compatible",
                            ),
                        }
                    }
                    "name" => {}
                    _ => self.warn_key(
                        field,
                        &here,
                        "is not a provider setting Ward knows; ignored",
                    ),
                }
            }
        }
        Ok(())
    }

    fn provider_options(&mut self, id: &str, prop: &ObjectProp<'_>) -> Result<(), ConfigError> {
        let here = format!("provider.{id}.options");
        let Value::Object(options) = &prop.value else {
            return Err(self.wrong_shape(prop.range.start, &here, "an object"));
        };
        for option in &options.properties {
            let target = match option.name.as_str() {
                "baseURL" => "base_url",
                "apiKey" => "api_key",
                "headers" => "headers",
                _ => {
                    self.warn_key(
                        option,
                        &here,
                        "is not a provider option Ward knows; ignored",
                    );
                    continue;
                }
            };
            self.copy(&path(&["provider", id, target]), option)?;
        }
        Ok(())
    }

    fn models(&mut self, id: &str, prop: &ObjectProp<'_>) -> Result<(), ConfigError> {
        let Value::Object(models) = &prop.value else {
            return Err(self.wrong_shape(
                prop.range.start,
                &format!("provider.{id}.models"),
                "an object",
            ));
        };
        for model in &models.properties {
            let name = model.name.as_str();
            let here = format!("provider.{id}.models.{name}");
            let Value::Object(fields) = &model.value else {
                return Err(self.wrong_shape(model.range.start, &here, "an object"));
            };
            let base = ["provider", id, "models", name];
            self.put(
                &path(&base),
                model.range.start,
                toml::Value::Table(toml::Table::new()),
            );
            for field in &fields.properties {
                let key = field.name.as_str();
                match key {
                    k if MODEL_KEYS.contains(&k) => {
                        self.copy(&path(&[&base[..], &[k]].concat()), field)?
                    }
                    "id" => self.copy(&path(&[&base[..], &["api_id"]].concat()), field)?,
                    "limit" | "cost" => {
                        let known = if key == "limit" {
                            LIMIT_KEYS
                        } else {
                            COST_KEYS
                        };
                        let Value::Object(inner) = &field.value else {
                            return Err(self.wrong_shape(
                                field.range.start,
                                &format!("{here}.{key}"),
                                "an object",
                            ));
                        };
                        if key == "cost" {
                            self.put(
                                &path(&[&base[..], &["cost"]].concat()),
                                field.range.start,
                                toml::Value::Table(toml::Table::new()),
                            );
                        }
                        for item in &inner.properties {
                            let item_key = item.name.as_str();
                            if !known.contains(&item_key) {
                                self.warn_key(
                                    item,
                                    &format!("{here}.{key}"),
                                    "is not known to Ward; ignored",
                                );
                                continue;
                            }
                            let target = if key == "limit" {
                                path(&[&base[..], &[item_key]].concat())
                            } else {
                                path(&[&base[..], &["cost", item_key]].concat())
                            };
                            self.copy(&target, item)?;
                        }
                    }
                    _ => self.warn_key(field, &here, "is not a model setting Ward knows; ignored"),
                }
            }
        }
        Ok(())
    }

    /// `compaction`: `auto` and `prune` mean the same in Ward.
    pub(super) fn compaction(&mut self, prop: &ObjectProp<'_>) -> Result<(), ConfigError> {
        let Value::Object(fields) = &prop.value else {
            return Err(self.wrong_shape(prop.range.start, "compaction", "an object"));
        };
        for field in &fields.properties {
            let key = field.name.as_str();
            if key == "auto" || key == "prune" {
                self.copy(&path(&["compaction", key]), field)?;
            } else {
                self.warn_key(
                    field,
                    "compaction",
                    "is not a compaction setting Ward knows; ignored",
                );
            }
        }
        Ok(())
    }
}
