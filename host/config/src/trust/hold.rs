//! The tightening filter over one untrusted project layer.
//!
//! Owns the rule for each key of `ward.toml`: kept (it can only tighten, or is not a
//! boundary: limits, compaction, the model named), held (it would loosen or reach
//! outside: it becomes a [`TrustItem`] and leaves the layer), or set aside as
//! narrowing-only ([`Held`]: permission rules, agents, commands). A key this filter
//! does not know is held, so a setting added to Ward later fails closed here.

use std::collections::BTreeSet;
use std::path::{Component, Path};

use toml::{Table, Value};

use super::{TrustItem, plain, short};
use crate::show::redact::mask_url_credentials;
use crate::substitute::HELD;

/// The filter for one layer, collecting what it holds.
pub(crate) struct Holder<'a> {
    /// The layer's file, as items name it.
    file: &'a Path,
    /// The user's own layers, merged: what the project is compared against.
    user: &'a Table,
    /// What was held, in order.
    pub(crate) items: Vec<TrustItem>,
    /// `permission`, `agent` and `command` set aside to apply narrowed.
    pub(crate) narrowed: Table,
}

impl<'a> Holder<'a> {
    pub(crate) fn new(file: &'a Path, user: &'a Table) -> Self {
        Holder {
            file,
            user,
            items: Vec::new(),
            narrowed: Table::new(),
        }
    }

    /// What of `table` an untrusted project gets; the rest becomes items, or is set
    /// aside in `narrowed`.
    pub(crate) fn tighten(&mut self, table: Table) -> Table {
        let mut table = self.hold_substitutions(table);
        let mut kept = Table::new();
        // Providers first: a model named through a held endpoint is held with it.
        let mut held_providers = BTreeSet::new();
        if let Some(Value::Table(providers)) = table.remove("provider") {
            let mut out = Table::new();
            for (id, provider) in providers {
                if let Some(provider) = self.provider(&id, provider, &mut held_providers) {
                    out.insert(id, provider);
                }
            }
            if !out.is_empty() {
                kept.insert("provider".into(), Value::Table(out));
            }
        }
        for (key, value) in table {
            match key.as_str() {
                "compaction" | "tool_output" | "retry" | "default_agent" => {
                    kept.insert(key, value);
                }
                "model" | "small_model" => {
                    let through = value
                        .as_str()
                        .and_then(|m| m.split_once('/'))
                        .map(|(provider, _)| provider.to_owned());
                    match through.filter(|p| held_providers.contains(p)) {
                        Some(provider) => self.hold(
                            &key,
                            &value,
                            format!(
                                "uses model `{}` through provider `{provider}`, whose endpoint \
                                 is held back",
                                value.as_str().unwrap_or_default()
                            ),
                        ),
                        None => {
                            kept.insert(key, value);
                        }
                    }
                }
                "snapshot" if value.as_bool() == Some(true) => {
                    kept.insert(key, value);
                }
                "snapshot" => self.hold(&key, &value, "turns off the snapshots undo needs".into()),
                "instructions" => {
                    if let Some(list) = self.instructions(value) {
                        kept.insert(key, list);
                    }
                }
                "plugin_paths" => {
                    for path in value.as_array().into_iter().flatten() {
                        let dir = path.as_str().unwrap_or_default();
                        self.hold(&key, path, format!("loads plugins from {dir}"));
                    }
                }
                "plugins" => {
                    if let Some(plugins) = self.plugins(value) {
                        kept.insert(key, plugins);
                    }
                }
                "sandbox" => {
                    if let Some(sandbox) = self.sandbox(value) {
                        kept.insert(key, sandbox);
                    }
                }
                "mcp" => {
                    if let Some(mcp) = self.mcp(value) {
                        kept.insert(key, mcp);
                    }
                }
                "permission" => {
                    self.allow_rules("permission", &value, "");
                    self.narrow(key, value);
                }
                "agent" => {
                    for (name, agent) in value.as_table().into_iter().flatten() {
                        if let Some(rules) = agent.get("permission") {
                            let path = format!("agent.{name}.permission");
                            self.allow_rules(&path, rules, &format!("lets agent `{name}` "));
                        }
                    }
                    self.narrow(key, value);
                }
                "command" => self.narrow(key, value),
                "marketplace" => self.hold(
                    &key,
                    &value,
                    "adds plugin marketplace sources or trusted signing keys".into(),
                ),
                _ => self.hold(&key, &value, format!("sets `{key}`")),
            }
        }
        kept
    }

    /// Records `value` at `key` as held.
    fn hold(&mut self, key: &str, value: &Value, what: String) {
        self.items.push(TrustItem {
            what: plain(&what),
            source: format!("{} {key}", self.file.display()),
            content: value.to_string(),
        });
    }

    /// Sets `value` aside to apply narrowed, merged over what earlier layers set.
    fn narrow(&mut self, key: String, value: Value) {
        let mut layer = Table::new();
        layer.insert(key, value);
        crate::merge::merge(&mut self.narrowed, layer);
    }

    /// Holds every definition (or top-level key) with a `{env:…}`/`{file:…}` token:
    /// nothing was read for it, and its value is not the one written.
    fn hold_substitutions(&mut self, table: Table) -> Table {
        const DEFINITIONS: &[&str] = &["provider", "mcp", "agent", "command", "plugins"];
        let mut kept = Table::new();
        for (key, value) in table {
            match value {
                Value::Table(entries) if DEFINITIONS.contains(&key.as_str()) => {
                    let mut out = Table::new();
                    for (name, entry) in entries {
                        let tokens = held_tokens(&entry);
                        if tokens.is_empty() {
                            out.insert(name, entry);
                        } else {
                            let at = format!("{key}.{name}");
                            let what = format!("reads {} into `{at}`", tokens.join(", "));
                            self.hold(&at, &entry, what);
                        }
                    }
                    kept.insert(key, Value::Table(out));
                }
                value => {
                    let tokens = held_tokens(&value);
                    if tokens.is_empty() {
                        kept.insert(key, value);
                    } else {
                        let what = format!("reads {} into `{key}`", tokens.join(", "));
                        self.hold(&key, &value, what);
                    }
                }
            }
        }
        kept
    }

    /// `[provider.ID]`: its models are kept; where requests go and with which
    /// credentials is held.
    fn provider(
        &mut self,
        id: &str,
        provider: Value,
        held_providers: &mut BTreeSet<String>,
    ) -> Option<Value> {
        let Value::Table(fields) = provider else {
            return Some(provider);
        };
        let mut kept = Table::new();
        for (field, value) in fields {
            let key = format!("provider.{id}.{field}");
            let what = match field.as_str() {
                "models" => {
                    kept.insert(field, value);
                    continue;
                }
                "base_url" => format!(
                    "sends provider `{id}`'s requests, with your credentials, to {}",
                    short(&mask_url_credentials(value.as_str().unwrap_or_default()))
                ),
                "api_key" => format!("sets provider `{id}`'s API key"),
                "env" => format!(
                    "sends your {} as provider `{id}`'s key",
                    string_list(&value)
                        .iter()
                        .map(|v| format!("${v}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                "headers" => format!(
                    "sends headers {} to provider `{id}`",
                    table_keys(&value).join(", ")
                ),
                "kind" => format!("changes provider `{id}`'s protocol"),
                _ => format!("sets `{key}`"),
            };
            self.hold(&key, &value, what);
            if !self.user_has(&["provider", id]) {
                held_providers.insert(id.to_owned());
            }
        }
        (!kept.is_empty()).then_some(Value::Table(kept))
    }

    /// `instructions`: paths inside the project are kept; one that is absolute,
    /// under `~` or climbs out of the project is held.
    fn instructions(&mut self, value: Value) -> Option<Value> {
        let Value::Array(list) = value else {
            return Some(value);
        };
        let mut kept = Vec::new();
        for entry in list {
            let path = entry.as_str().unwrap_or_default();
            if inside(path) {
                kept.push(entry);
            } else {
                let what = format!("reads {} into the prompt", short(path));
                self.hold("instructions", &entry, what);
            }
        }
        (!kept.is_empty()).then_some(Value::Array(kept))
    }

    /// `[plugins.NAME]`: switching a plugin off is kept; grants, locations and
    /// replacements are held.
    fn plugins(&mut self, value: Value) -> Option<Value> {
        let Value::Table(plugins) = value else {
            return Some(value);
        };
        let mut kept = Table::new();
        for (name, plugin) in plugins {
            let Value::Table(fields) = plugin else {
                continue;
            };
            let mut out = Table::new();
            for (field, value) in fields {
                let key = format!("plugins.{name}.{field}");
                let what = match field.as_str() {
                    "enabled" => {
                        out.insert(field, value);
                        continue;
                    }
                    "grant" => {
                        format!("grants plugin `{name}`: {}", string_list(&value).join(", "))
                    }
                    "path" => format!(
                        "loads plugin `{name}` from {}",
                        value.as_str().unwrap_or_default()
                    ),
                    "replaces" => format!(
                        "lets plugin `{name}` replace {}",
                        string_list(&value).join(", ")
                    ),
                    _ => format!("sets `{key}`"),
                };
                self.hold(&key, &value, what);
            }
            if !out.is_empty() {
                kept.insert(name, Value::Table(out));
            }
        }
        (!kept.is_empty()).then_some(Value::Table(kept))
    }

    /// `[sandbox]`: a mode at least as strict as the user's and `network = false`
    /// are kept; anything that opens the sandbox is held.
    fn sandbox(&mut self, value: Value) -> Option<Value> {
        let Value::Table(fields) = value else {
            return Some(value);
        };
        let user_mode = self
            .user
            .get("sandbox")
            .and_then(|s| s.get("mode"))
            .and_then(Value::as_str)
            .unwrap_or("workspace-write");
        let mut kept = Table::new();
        for (field, value) in fields {
            let key = format!("sandbox.{field}");
            let what = match field.as_str() {
                "mode" => {
                    let mode = value.as_str().unwrap_or_default();
                    if strictness(mode) >= strictness(user_mode) {
                        kept.insert(field, value);
                        continue;
                    }
                    if mode == "full" {
                        "turns the process sandbox off".to_owned()
                    } else {
                        format!("sets the sandbox mode to {mode}")
                    }
                }
                "network" if value.as_bool() == Some(false) => {
                    kept.insert(field, value);
                    continue;
                }
                "network" => "lets commands use the network".to_owned(),
                "writable" => format!("lets commands write {}", string_list(&value).join(", ")),
                "hidden" => format!(
                    "replaces the secrets hidden from commands with [{}]",
                    string_list(&value).join(", ")
                ),
                _ => format!("sets `{key}`"),
            };
            self.hold(&key, &value, what);
        }
        (!kept.is_empty()).then_some(Value::Table(kept))
    }

    /// `[mcp.NAME]`: switching off one of the user's servers is kept; starting or
    /// reaching a server is held.
    fn mcp(&mut self, value: Value) -> Option<Value> {
        let Value::Table(servers) = value else {
            return Some(value);
        };
        let mut kept = Table::new();
        for (name, server) in servers {
            let only_off = server.as_table().is_some_and(|t| {
                t.len() == 1 && t.get("enabled").and_then(Value::as_bool) == Some(false)
            });
            if only_off && self.user_has(&["mcp", &name]) {
                kept.insert(name, server);
                continue;
            }
            if server.get("enabled").and_then(Value::as_bool) == Some(false) {
                continue;
            }
            let what = match (server.get("command"), server.get("url")) {
                (Some(command), _) => {
                    let mut what = format!(
                        "starts MCP server `{name}`: `{}`",
                        short(&mask_url_credentials(&string_list(command).join(" ")))
                    );
                    if let Some(grant) = server.get("grant") {
                        what.push_str(&format!(", with {}", string_list(grant).join(", ")));
                    }
                    what
                }
                (None, Some(url)) => format!(
                    "connects to MCP server `{name}` at {}",
                    short(&mask_url_credentials(url.as_str().unwrap_or_default()))
                ),
                (None, None) => format!("sets MCP server `{name}`"),
            };
            self.hold(&format!("mcp.{name}"), &server, what);
        }
        (!kept.is_empty()).then_some(Value::Table(kept))
    }

    /// Names every `allow` rule of a permission table (it does nothing narrowed,
    /// and acts once the project is trusted).
    fn allow_rules(&mut self, at: &str, rules: &Value, whose: &str) {
        let Some(rules) = rules.as_table() else {
            return;
        };
        for (permission, rule) in rules {
            let allowed: Vec<String> = match rule {
                Value::String(action) if action == "allow" => vec!["*".to_owned()],
                Value::Table(patterns) => patterns
                    .iter()
                    .filter(|(_, action)| action.as_str() == Some("allow"))
                    .map(|(pattern, _)| pattern.clone())
                    .collect(),
                _ => Vec::new(),
            };
            for pattern in allowed {
                let what = if whose.is_empty() {
                    format!("allows `{permission} {pattern}` without asking")
                } else {
                    format!("{whose}run `{permission} {pattern}` without asking")
                };
                let content = Value::String(format!("{permission} {pattern} = allow"));
                self.hold(&format!("{at}.{permission}"), &content, what);
            }
        }
    }

    /// Whether the user's own layers define `path`.
    fn user_has(&self, path: &[&str]) -> bool {
        let mut at = Some(self.user);
        for (i, key) in path.iter().enumerate() {
            let Some(value) = at.and_then(|t| t.get(*key)) else {
                return false;
            };
            if i + 1 == path.len() {
                return true;
            }
            at = value.as_table();
        }
        false
    }
}

/// The `{env:…}`/`{file:…}` tokens held anywhere in `value`.
fn held_tokens(value: &Value) -> Vec<String> {
    let mut found = Vec::new();
    collect_held(value, &mut found);
    found
}

fn collect_held(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::String(s) => {
            let mut parts = s.split(HELD);
            // Markers come in pairs: the odd parts are the tokens.
            parts.next();
            while let Some(token) = parts.next() {
                found.push(token.to_owned());
                parts.next();
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_held(v, found)),
        Value::Table(table) => table.values().for_each(|v| collect_held(v, found)),
        _ => {}
    }
}

/// How strict a sandbox mode is: `full` least, `read-only` most.
fn strictness(mode: &str) -> u8 {
    match mode {
        "full" => 0,
        "workspace-write" => 1,
        _ => 2,
    }
}

/// Whether the instruction path or glob `path` stays inside the project, read as the
/// prompt builder reads it (relative to the project root). Lexical: a symlink that
/// leads out is the prompt builder's to refuse.
pub(crate) fn inside(path: &str) -> bool {
    if path.starts_with('~') || Path::new(path).is_absolute() {
        return false;
    }
    let mut depth: usize = 0;
    for part in Path::new(path).components() {
        match part {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            Component::RootDir | Component::Prefix(_) => return false,
        }
    }
    true
}

fn string_list(value: &Value) -> Vec<String> {
    match value {
        Value::Array(items) => items
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
            .collect(),
        Value::String(s) => vec![s.clone()],
        other => vec![other.to_string()],
    }
}

fn table_keys(value: &Value) -> Vec<String> {
    value
        .as_table()
        .map(|t| t.keys().cloned().collect())
        .unwrap_or_default()
}
