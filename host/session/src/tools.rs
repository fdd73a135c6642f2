//! The tools a session offers the model, and running one call the way the loop does:
//! name repair (else the `invalid` answer), argument parsing and checking against the
//! tool's schema ([`crate::args`]), the doom-loop check, the `tool.execute.before`
//! hooks (which may rewrite or block; a rewrite is checked again), the permission rules
//! (asking through the session's engine), the sandboxed call, truncation of its
//! output ([`ward_context::truncate`]), then the `tool.execute.after` hooks.
//! `ward tool call` uses the same path, so a tool behaves the same from the CLI.
//! A failure is a [`ToolCallError`]: text for the model, and a variant for the loop.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::Value;
use ward_permission::Ruleset;
use ward_plugin::{CallScope, Plugin, PluginHost, ToolInfo, ToolOutput, tool_rules};
use ward_provider::ToolSpec;

use crate::args::{ArgChecks, ArgumentError};
use crate::doom::is_doom_loop;
use crate::repair::{Resolved, resolve};
use crate::tool_error::ToolCallError;
use ward_context::truncate::OutputPolicy;

/// A finished tool call.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSuccess {
    /// Short title.
    pub title: String,
    /// What the model reads.
    pub output: String,
    /// Details for user interfaces.
    pub metadata: Value,
    /// Files the tool returned, as it returned them (`data:` URLs; any other is refused);
    /// the loop checks and stores them ([`crate::attach`]).
    pub attachments: Vec<ward_provider::Attachment>,
}

impl ToolSuccess {
    /// A result of text alone (no files): what host tools answer.
    pub fn text(title: impl Into<String>, output: impl Into<String>, metadata: Value) -> Self {
        ToolSuccess {
            title: title.into(),
            output: output.into(),
            metadata,
            attachments: Vec::new(),
        }
    }
}

/// A tool the host implements itself, because what it does belongs to the host:
/// `skill` reads skill directories wherever they are installed, `task` runs a
/// subagent's loop. It goes through the same name repair, hooks, permission rules,
/// truncation and after-hooks as a plugin's tool.
pub trait HostTool: Send + Sync {
    /// The tool's name (cheap: looked up on every call, unlike [`HostTool::spec`]).
    fn name(&self) -> &str;
    /// What the model is told about the tool.
    fn spec(&self) -> ToolSpec;
    /// What the host should know about its calls (default: nothing; it needs its
    /// own name's permission before each call).
    fn traits(&self) -> ward_config::ToolTraits {
        ward_config::ToolTraits::default()
    }
    /// Whether a call may change the project's files, so the step that runs it is
    /// snapshotted for undo (default: it may — an MCP server or a subagent can do
    /// anything its own rights allow).
    fn may_write_files(&self) -> bool {
        true
    }
    /// Runs one call with arguments already parsed and checked against the rules.
    fn run<'a>(
        &'a self,
        args: Value,
        scope: &'a CallScope,
    ) -> BoxFuture<'a, Result<ToolSuccess, ToolCallError>>;
}

/// Host tools whose set changes while a session runs (an MCP server's tools, refreshed
/// when it says its list changed): asked for the current set each time the toolbox is.
pub trait ToolSource: Send + Sync {
    /// The tools on offer now.
    fn tools(&self) -> Vec<Arc<dyn HostTool>>;
}

/// What a question about a call carries for interfaces to show: its arguments, and
/// under OpenCode's `filepath` the path its tool declares it acts on, so no interface
/// need know which argument that is.
fn ask_metadata(traits: &ward_config::ToolTraits, args: &Value) -> Value {
    let path = traits
        .path
        .as_deref()
        .and_then(|key| args.get(key))
        .and_then(Value::as_str);
    match (args, path) {
        (Value::Object(fields), Some(path)) if !fields.contains_key("filepath") => {
            let mut fields = fields.clone();
            fields.insert("filepath".to_string(), Value::String(path.to_string()));
            Value::Object(fields)
        }
        _ => args.clone(),
    }
}

/// What a call with `input` of a tool declared as `traits` acts on: the path, else
/// the search pattern, else the command it runs. Interfaces show it as the call's
/// title until the tool gives one.
pub fn subject(traits: &ward_config::ToolTraits, input: &Value) -> Option<String> {
    [&traits.path, &traits.pattern, &traits.command]
        .into_iter()
        .flatten()
        .find_map(|key| input.get(key).and_then(Value::as_str))
        .map(str::to_string)
}

/// The permission key a tool declared as `traits` is ruled under.
fn ruled_as<'a>(name: &'a str, traits: &'a ward_config::ToolTraits) -> &'a str {
    traits.permission.as_deref().unwrap_or(name)
}

/// Whether `rules` switch the host tool `tool` off outright.
fn is_disabled(tool: &dyn HostTool, rules: &[Ruleset]) -> bool {
    let traits = tool.traits();
    let name = tool.name();
    !ward_permission::disabled_tools(&[(name, ruled_as(name, &traits))], rules).is_empty()
}

/// A tool source and the rules its tools are filtered by.
type Source = (Arc<dyn ToolSource>, Arc<Vec<Ruleset>>);

/// The tools on offer in one session.
pub struct ToolBox {
    host: Arc<PluginHost>,
    tools: Vec<(Arc<Plugin>, ToolInfo)>,
    natives: Vec<Arc<dyn HostTool>>,
    sources: Vec<Source>,
    output: OutputPolicy,
    checks: Arc<ArgChecks>,
}

impl ToolBox {
    /// Every tool of every working plugin, minus those the rules deny outright
    /// (`"*" = "deny"` for the tool's permission): the model is not offered what it can
    /// never use. Returns plugins that failed to load, with the reason.
    pub async fn load(
        host: Arc<PluginHost>,
        rules: &[Ruleset],
    ) -> (ToolBox, Vec<(String, String)>) {
        let (mut tools, failed) = host.all_tools().await;
        let traits: Vec<_> = tools
            .iter()
            .map(|(plugin, t)| plugin.tool_traits(&t.name))
            .collect();
        let keys: Vec<(&str, &str)> = tools
            .iter()
            .zip(&traits)
            .map(|((_, t), traits)| (t.name.as_str(), ruled_as(&t.name, traits)))
            .collect();
        let disabled = ward_permission::disabled_tools(&keys, rules);
        tools.retain(|(_, t)| !disabled.contains(&t.name));
        let output = OutputPolicy::default();
        (
            ToolBox {
                host,
                tools,
                natives: Vec::new(),
                sources: Vec::new(),
                output,
                checks: ArgChecks::ahead(),
            },
            failed,
        )
    }

    /// Offers `tool` too, unless `rules` deny it outright (it replaces a plugin's tool
    /// of the same name: the host's own tools are not overridable by a plugin).
    pub fn with_host_tool(mut self, tool: Arc<dyn HostTool>, rules: &[Ruleset]) -> Self {
        let name = tool.name().to_string();
        if is_disabled(tool.as_ref(), rules) {
            return self;
        }
        self.tools.retain(|(_, t)| t.name != name);
        self.natives.retain(|n| n.name() != name);
        self.natives.push(tool);
        self
    }

    /// Offers the tools `source` has at each moment, but those `rules` deny outright and
    /// those named like a tool already on offer (a source cannot replace one).
    pub fn with_tool_source(
        mut self,
        source: Arc<dyn ToolSource>,
        rules: Arc<Vec<Ruleset>>,
    ) -> Self {
        self.sources.push((source, rules));
        self
    }

    /// The host's own tools and the sources' current ones.
    fn hosted(&self) -> Vec<Arc<dyn HostTool>> {
        let mut all = self.natives.clone();
        for (source, rules) in &self.sources {
            for tool in source.tools() {
                let name = tool.name();
                let taken = self.tools.iter().any(|(_, t)| t.name == name)
                    || all.iter().any(|n| n.name() == name);
                if !taken && !is_disabled(tool.as_ref(), rules) {
                    all.push(tool);
                }
            }
        }
        all
    }

    /// Bounds tool output with `policy` instead of the default limits (which keep no
    /// copy of what they cut).
    pub fn with_output(mut self, policy: OutputPolicy) -> Self {
        self.output = policy;
        self
    }

    /// The plugin host the tools (and the hook plugins) run in.
    pub fn host(&self) -> &Arc<PluginHost> {
        &self.host
    }

    /// The tool names on offer.
    pub fn names(&self) -> Vec<String> {
        let plugins = self.tools.iter().map(|(_, t)| t.name.clone());
        plugins
            .chain(self.hosted().iter().map(|n| n.name().to_string()))
            .collect()
    }

    /// Whether a tool named `name` is on offer (a plugin's or the host's own).
    pub fn offers(&self, name: &str) -> bool {
        self.tools.iter().any(|(_, t)| t.name == name)
            || self.hosted().iter().any(|n| n.name() == name)
    }

    /// What the model is told about the tools.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools
            .iter()
            .map(|(_, t)| ToolSpec {
                name: t.name.clone(),
                description: t.description.clone(),
                parameters: serde_json::from_str(&t.parameters)
                    .unwrap_or_else(|_| serde_json::json!({"type": "object"})),
            })
            .chain(self.hosted().iter().map(|n| n.spec()))
            .collect()
    }

    /// Runs one call. `previous` holds this turn's earlier calls (tool, input), for the
    /// doom-loop check. Every failure is a message for the model; a user's rejection
    /// is [`ToolCallError::Rejected`].
    pub async fn execute(
        &self,
        name: &str,
        arguments: &str,
        scope: CallScope,
        previous: &[(String, Value)],
    ) -> Result<ToolSuccess, ToolCallError> {
        let names = self.names();
        let tool = match resolve(name, &names) {
            Resolved::Exact(t) | Resolved::Repaired(t) => t.to_string(),
            Resolved::Invalid(message) => return Err(ToolCallError::respond(message)),
        };
        crate::args::within_size(&tool, arguments)?;
        let args: Value = match serde_json::from_str(if arguments.trim().is_empty() {
            "{}"
        } else {
            arguments
        }) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) => {
                return Err(ToolCallError::respond(format!(
                    "invalid arguments for `{tool}`: expected a JSON object"
                )));
            }
            Err(e) => {
                return Err(ToolCallError::respond(format!(
                    "invalid arguments for `{tool}`: not valid JSON ({e})"
                )));
            }
        };
        self.check_args(&tool, &args).await?;
        if is_doom_loop(previous, &(tool.clone(), args.clone())) {
            scope
                .check(
                    "doom_loop",
                    vec![tool.clone()],
                    vec![tool.clone()],
                    args.clone(),
                )
                .await?;
        }
        // Hooks see the call before the rules do, so what is checked — and what the
        // user is asked about — is what will actually run, rewrites included.
        let original = args.to_string();
        let hooked = self
            .host
            .tool_execute_before(&tool, &original, &scope)
            .await
            .map_err(|block| ToolCallError::respond(block.to_string()))?;
        let rewritten = hooked != original;
        if rewritten {
            crate::args::within_size(&tool, &hooked)?;
        }
        let args: Value = serde_json::from_str(&hooked).map_err(|e| {
            ToolCallError::respond(format!(
                "a tool.execute.before hook rewrote `{tool}`'s arguments into invalid JSON ({e})"
            ))
        })?;
        if rewritten {
            self.check_args(&tool, &args).await.map_err(|e| {
                ToolCallError::respond(format!(
                    "after a tool.execute.before hook rewrote them, {e}"
                ))
            })?;
        }
        let traits = self.traits(&tool);
        let needs = tool_rules::needs(&tool, &traits, &args, &scope.project);
        if !needs.is_empty() {
            let metadata = ask_metadata(&traits, &args);
            for need in needs {
                scope
                    .check(
                        &need.permission,
                        need.patterns,
                        need.always,
                        metadata.clone(),
                    )
                    .await?;
            }
        }
        let (mut out, args, files) = self.call(&tool, args, &scope).await?;
        // A tool that bounds its own output says so with `metadata.truncated` (as
        // `read`, `grep`, `glob` and `list` do, each with its own paging hint).
        let bounds_itself = serde_json::from_str::<Value>(&out.metadata)
            .is_ok_and(|m| m.get("truncated").is_some());
        if !bounds_itself {
            // `task` is a host tool (a subagent's loop), not a plugin's.
            let delegate = self.offers(crate::task::TASK);
            let output = std::mem::take(&mut out.output);
            let keep = ward_context::truncate::Keep::for_tool(&traits);
            let bounded = self.output.apply(keep, &scope.call_id, output, delegate);
            out.output = bounded.text;
            if bounded.truncated {
                out.metadata = truncation_metadata(&out.metadata, bounded.saved.as_deref());
            }
        }
        let out = self
            .host
            .tool_execute_after(&tool, &args, out, &scope)
            .await;
        Ok(ToolSuccess {
            title: out.title,
            output: out.output,
            metadata: serde_json::from_str(&out.metadata).unwrap_or(Value::Null),
            attachments: files,
        })
    }
}

impl ToolBox {
    /// What the host may act on about `tool`: a host tool's own declaration, else
    /// what its plugin's manifest declares (as far as the host trusts that plugin).
    pub fn traits(&self, tool: &str) -> ward_config::ToolTraits {
        if let Some(native) = self.hosted().iter().find(|n| n.name() == tool) {
            return native.traits();
        }
        self.tools
            .iter()
            .find(|(_, t)| t.name == tool)
            .map(|(plugin, _)| plugin.tool_traits(tool))
            .unwrap_or_default()
    }

    /// The tool on offer that reads one file (declared `access = "read"` of a `path`
    /// that is no directory and not a search pattern), and the argument naming it:
    /// what an `@file` mention or a command's `@file` is read with. Ward's own come
    /// first, so a plugin's reader is used only where Ward's is not on offer.
    pub fn file_reader(&self) -> Option<(String, String)> {
        self.by_origin().find_map(|(plugin, tool)| {
            let traits = plugin.tool_traits(&tool.name);
            let reads_a_file = traits.access == Some(ward_config::Access::Read)
                && !traits.directory
                && traits.pattern.is_none();
            reads_a_file
                .then_some(traits.path)
                .flatten()
                .map(|path| (tool.name.clone(), path))
        })
    }

    /// The tool on offer that runs the model's shell commands (declared `command`,
    /// honoured for Ward's own tools only), and the argument holding the command: what
    /// a command template's `` !`cmd` `` runs through.
    pub fn command_runner(&self) -> Option<(String, String)> {
        self.by_origin().find_map(|(plugin, tool)| {
            plugin
                .tool_traits(&tool.name)
                .command
                .map(|arg| (tool.name.clone(), arg))
        })
    }

    /// The plugins' tools on offer, Ward's own first.
    fn by_origin(&self) -> impl Iterator<Item = &(Arc<Plugin>, ToolInfo)> {
        let builtin = |p: &Plugin| p.source.origin == ward_plugin::discovery::Origin::Builtin;
        let own = self.tools.iter().filter(move |(p, _)| builtin(p));
        own.chain(self.tools.iter().filter(move |(p, _)| !builtin(p)))
    }

    /// Whether a call of `tool` may change the project's files: a host tool says so
    /// itself; a plugin tool may only if its plugin was granted a writable directory
    /// or commands to run (the sandbox gives it no other way to write). A name the
    /// box does not know may still be repaired to one that writes, so it counts as
    /// writing.
    pub fn may_write_files(&self, tool: &str) -> bool {
        if let Some(native) = self.hosted().iter().find(|n| n.name() == tool) {
            return native.may_write_files();
        }
        match self.tools.iter().find(|(_, t)| t.name == tool) {
            Some((plugin, _)) => {
                !plugin.effective.fs_write.is_empty() || !plugin.effective.exec.is_empty()
            }
            None => true,
        }
    }

    /// Checks `args` against plugin tool `tool`'s schema (host tools check their own),
    /// within the plugin's time limit for a call.
    async fn check_args(&self, tool: &str, args: &Value) -> Result<(), ArgumentError> {
        match self.tools.iter().find(|(_, t)| t.name == tool) {
            Some((plugin, info)) => {
                self.checks
                    .check(tool, &info.parameters, args, plugin.limits.time)
                    .await
            }
            None => Ok(()),
        }
    }

    /// The call itself, by a plugin or the host; also returns the arguments as JSON
    /// text, which the after-hooks see, and the files the tool returned (taken out
    /// of the output: hooks rewrite text, not files).
    async fn call(
        &self,
        tool: &str,
        args: Value,
        scope: &CallScope,
    ) -> Result<(ToolOutput, String, Vec<ward_provider::Attachment>), ToolCallError> {
        let text = args.to_string();
        let native = self.hosted().into_iter().find(|n| n.name() == tool);
        if let Some(native) = native {
            let done = native.run(args, scope).await?;
            let out = ToolOutput {
                title: done.title,
                output: done.output,
                metadata: done.metadata.to_string(),
                attachments: Vec::new(),
            };
            return Ok((out, text, done.attachments));
        }
        let (plugin, _) = self
            .tools
            .iter()
            .find(|(_, t)| t.name == tool)
            .ok_or_else(|| ToolCallError::respond(format!("unknown tool `{tool}`")))?;
        let mut out = self.host.call(plugin, tool, &text, scope.clone()).await?;
        let files = std::mem::take(&mut out.attachments)
            .into_iter()
            .map(|a| ward_provider::Attachment {
                mime: a.mime,
                url: a.url,
                filename: a.filename,
            })
            .collect();
        Ok((out, text, files))
    }
}

/// The tool's metadata with `truncated` (and `outputPath`, where the full output went)
/// added, so an interface can offer the whole text.
fn truncation_metadata(metadata: &str, saved: Option<&std::path::Path>) -> String {
    let mut value: Value = serde_json::from_str(metadata).unwrap_or(Value::Null);
    if !value.is_object() {
        value = serde_json::json!({});
    }
    if let Some(map) = value.as_object_mut() {
        map.insert("truncated".into(), Value::Bool(true));
        if let Some(path) = saved {
            map.insert(
                "outputPath".into(),
                Value::String(path.display().to_string()),
            );
        }
    }
    value.to_string()
}

#[cfg(test)]
mod tests;
