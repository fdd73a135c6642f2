//! The plugin host: loads components lazily, runs each call in a fresh sandboxed store,
//! and turns every way a plugin can misbehave into a clear error for the model.
//!
//! Start-up only reads manifests. A component is compiled on first use (or read from
//! the artifact cache), its imports resolved once into an `InstancePre`, and each call
//! instantiates it into a new `Store`, so nothing leaks between calls or sessions.
//! Consecutive crashes, timeouts and limit breaches count as strikes; at
//! [`MAX_STRIKES`] the plugin is disabled with the reason shown in `ward plugin list`.
//! Tool calls live here, over the path every call into a component takes
//! ([`crate::instance`]); hook calls, which share the loading and the strikes, live in
//! [`crate::hooks`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use tokio::sync::OnceCell;
use wasmtime::component::Linker;

use ward_config::{HookCaps, Kind, ToolTraits};

use crate::bindings::guest::ToolIndices;
use crate::bindings::{CallContext, ToolInfo, ToolOutput};
use crate::cache::ArtifactCache;
use crate::discovery::{ComponentBytes, PluginSource};
use crate::engine::SharedEngine;
pub use crate::error::tool_error_text;
use crate::error::{CallError, tool_failure};
use crate::hooks::{EventQueues, HookRegistration};
use crate::load::Loaded;
use crate::load_error::LoadError;
use crate::meta;
use crate::names::RefusedTool;
use crate::sandbox::SandboxSettings;
use crate::state::{CallLimits, CallScope, StoreState};
use ward_grants::{Audit, PluginEvent};
use ward_grants::{Ceiling, Effective, IgnoredGrant};

/// Every tool on offer with its plugin, the plugins that failed to load (plugin,
/// reason), and the tools refused for their names.
pub type ToolTable = (
    Vec<(Arc<Plugin>, ToolInfo)>,
    Vec<(String, String)>,
    Vec<RefusedTool>,
);

/// Consecutive failures after which a plugin is disabled.
pub const MAX_STRIKES: u32 = 3;

/// How the host is set up for one project.
#[derive(Clone, Debug, Default)]
pub struct HostOptions {
    /// The project root (`$WORKSPACE`).
    pub project: PathBuf,
    /// Compiled-artifact cache directory; `None` compiles every time.
    pub cache_dir: Option<PathBuf>,
    /// Audit log file.
    pub audit_log: Option<PathBuf>,
    /// Grants per plugin name from config or the install lock. Built-in plugins without
    /// an entry get their whole ceiling; other plugins without one get nothing.
    pub grants: BTreeMap<String, Vec<String>>,
    /// Plugins switched off in config.
    pub disabled: Vec<String>,
    /// How the processes plugins start are confined.
    pub sandbox: SandboxSettings,
    /// Per plugin, the standard tools the user lets it replace (`[plugins.NAME]
    /// replaces`); without an entry a standard tool keeps its name.
    pub replaces: BTreeMap<String, Vec<String>>,
    /// Where plugin events (loaded, failed, denied) also go as they happen.
    pub events: Option<ward_grants::EventSink>,
}

/// A discovered plugin and its state in this host.
pub struct Plugin {
    /// Where it came from and what its manifest says.
    pub source: PluginSource,
    /// What the manifest asks for, resolved for the project.
    pub ceiling: Ceiling,
    /// The grants as written.
    pub grants: Vec<String>,
    /// What it actually gets.
    pub effective: Arc<Effective>,
    /// Grants that were ignored, with reasons.
    pub ignored_grants: Vec<IgnoredGrant>,
    /// Per-call limits.
    pub limits: CallLimits,
    /// The load, once tried: its failure is kept too (a component that cannot load
    /// will not load on the next call either).
    pub(crate) loaded: OnceCell<Result<Arc<Loaded>, LoadError>>,
    /// The tool list, once known (from the cache or the component).
    pub(crate) tools: OnceLock<Vec<ToolInfo>>,
    /// The hook registration, once known (from the cache or the component).
    pub(crate) registration: OnceLock<HookRegistration>,
    strikes: AtomicU32,
    disabled: Mutex<Option<String>>,
}

impl Plugin {
    /// The plugin's name.
    pub fn name(&self) -> &str {
        &self.source.manifest.name
    }

    /// Why the plugin is disabled, if it is.
    pub fn disabled_reason(&self) -> Option<String> {
        self.disabled.lock().ok().and_then(|d| d.clone())
    }

    /// Whether the manifest says the plugin provides `kind`.
    pub fn is(&self, kind: Kind) -> bool {
        self.source.manifest.kinds.contains(&kind)
    }

    /// The names of the tools it declares, once known (from the cache or its load).
    pub fn tool_names(&self) -> Vec<String> {
        let loaded = self
            .loaded
            .get()
            .and_then(|l| l.as_ref().ok())
            .map(|l| &l.tools);
        self.tools
            .get()
            .or(loaded)
            .map(|tools| tools.iter().map(|t| t.name.clone()).collect())
            .unwrap_or_default()
    }

    /// What its manifest declares about `tool` (`[tools.NAME]`), as far as the host
    /// may trust it: declarations that would spare a call a check, pin its output or
    /// make its processes the model's commands (`asks-itself`, `keep-output`,
    /// `command`, `unsandboxed`) count only for the plugins built into Ward, and a
    /// declared `permission` only as far as the plugin's grants reach (the rule the
    /// `ask` import follows); out of reach, the tool is ruled under its own name. A
    /// tool named like a standard one gets nothing of the standard tool's treatment
    /// from its name alone.
    pub fn tool_traits(&self, tool: &str) -> ToolTraits {
        let mut traits = self
            .source
            .manifest
            .tools
            .get(tool)
            .cloned()
            .unwrap_or_default();
        if self.source.origin != crate::discovery::Origin::Builtin {
            traits.asks_itself = false;
            traits.keep_output = false;
            traits.command = None;
            traits.unsandboxed = None;
            // The plugin's tool names are listed only for a tool declaring a key.
            if let Some(key) = &traits.permission
                && crate::asks::may_ask(self.name(), &self.effective, &self.tool_names(), key, &[])
                    .is_err()
            {
                traits.permission = None;
            }
        }
        traits
    }

    fn disable(&self, reason: String) {
        if let Ok(mut d) = self.disabled.lock() {
            *d = Some(reason);
        }
    }
}

/// Runs plugins for one project.
pub struct PluginHost {
    pub(crate) engine: SharedEngine,
    pub(crate) linker: Linker<StoreState>,
    pub(crate) cache: Option<ArtifactCache>,
    pub(crate) audit: Arc<Audit>,
    pub(crate) project: PathBuf,
    plugins: Vec<Arc<Plugin>>,
    pub(crate) events: EventQueues,
    pub(crate) sandbox: Arc<SandboxSettings>,
    /// Starts confined processes through sandbox servers kept for the host's lifetime.
    pub(crate) launcher: Option<Arc<ward_sandbox::Launcher>>,
    /// Per plugin, the standard tools it may replace.
    replaces: BTreeMap<String, Vec<String>>,
    /// Ward's configuration and state, which no plugin may write.
    pub(crate) protected: Arc<ward_permission::protected::ProtectedPaths>,
}

impl PluginHost {
    /// Creates a host for `sources` (from [`crate::discovery::discover`]). Nothing is
    /// compiled yet.
    pub fn new(sources: Vec<PluginSource>, options: HostOptions) -> Result<Self, CallError> {
        let engine = SharedEngine::new().map_err(|e| CallError::Host(e.to_string()))?;
        let mut linker = Linker::new(engine.engine());
        // WASI as wasmtime-wasi links it, but with the filesystem checked against the
        // permission rules (SPEC §2.3).
        crate::fsguard::add_to_linker(&mut linker).map_err(|e| CallError::Host(e.to_string()))?;
        // Every world imports the same `host` interface, so one linker serves them all;
        // each API version's is linked under its own name, so components of every
        // supported version load side by side.
        crate::bindings::add_to_linker(&mut linker).map_err(|e| CallError::Host(e.to_string()))?;
        let cache = options.cache_dir.as_deref().and_then(|dir| {
            ArtifactCache::open(dir)
                .map_err(|e| tracing::warn!("compiled cache {} unusable: {e}", dir.display()))
                .ok()
        });
        let (tx, _) = tokio::sync::broadcast::channel(256);
        let audit = Arc::new(
            Audit::new(options.audit_log.as_deref(), tx).with_sink(options.events.clone()),
        );
        let project = options.project.clone();
        let protected = Arc::new(crate::config_guard::protected_paths(
            &project,
            &host_state(&options, &sources),
            &options.sandbox.private,
        ));
        // Every process started through it — a command, a plugin's, an MCP server —
        // has Ward's private state kept from it.
        let launcher = options.sandbox.helper.clone().map(|helper| {
            let private = options.sandbox.private_state(&protected);
            Arc::new(ward_sandbox::Launcher::new(helper).hiding(private))
        });
        let plugins = sources
            .into_iter()
            .map(|source| Arc::new(prepare(source, &options)))
            .collect();
        Ok(PluginHost {
            engine,
            linker,
            cache,
            audit,
            project,
            plugins,
            events: EventQueues::default(),
            protected,
            launcher,
            sandbox: Arc::new(options.sandbox),
            replaces: options.replaces,
        })
    }

    /// All plugins, in discovery order.
    pub fn plugins(&self) -> &[Arc<Plugin>] {
        &self.plugins
    }

    /// The project root.
    pub fn project(&self) -> &Path {
        &self.project
    }

    /// Ward's protected paths for this project (its configuration and state, `.git`
    /// and every plugin directory): what no plugin may write, and what a process
    /// sandbox mounts read-only.
    pub fn protected(&self) -> &ward_permission::protected::ProtectedPaths {
        &self.protected
    }

    /// Where confined processes are started (shared with the MCP client's local
    /// servers); `None` when no sandbox helper is configured.
    pub fn launcher(&self) -> Option<Arc<ward_sandbox::Launcher>> {
        self.launcher.clone()
    }

    /// How the processes plugins start are confined.
    pub fn sandbox(&self) -> &SandboxSettings {
        &self.sandbox
    }

    /// The audit trail (and its event channel).
    pub fn audit(&self) -> &Arc<Audit> {
        &self.audit
    }

    /// The tools `plugin` provides, compiling it if needed (or reading its tool list from
    /// the cache, which needs no compile).
    pub async fn tools_of(&self, plugin: &Plugin) -> Result<Vec<ToolInfo>, CallError> {
        if !plugin.is(Kind::Tool) {
            return Ok(Vec::new());
        }
        if let Some(tools) = plugin.tools.get() {
            return Ok(tools.clone());
        }
        let cached = meta::tools(self.cache.as_ref(), plugin);
        let tools = match cached {
            // Measured again: the cache may predate the bounds (a fresh load measures
            // in `load`).
            Some(tools) => {
                crate::tool_schema::check_tools(&tools).map_err(|refused| CallError::Load {
                    plugin: plugin.name().to_string(),
                    reason: refused.into(),
                })?;
                tools
            }
            None => self.load(plugin).await?.tools.clone(),
        };
        Ok(plugin.tools.get_or_init(|| tools).clone())
    }

    /// Every tool of every enabled plugin, with the plugin providing it, each name once
    /// ([`crate::names`]). Plugins that fail to load, and tools refused for an invalid
    /// or clashing name, are reported in the second list as (plugin, reason).
    pub async fn all_tools(&self) -> (Vec<(Arc<Plugin>, ToolInfo)>, Vec<(String, String)>) {
        let (tools, mut failed, refused) = self.tool_table().await;
        failed.extend(refused.into_iter().map(|r| (r.plugin, r.reason)));
        (tools, failed)
    }

    /// [`PluginHost::all_tools`], with the refused tools apart.
    pub async fn tool_table(&self) -> ToolTable {
        let mut tools = Vec::new();
        let mut failed = Vec::new();
        for p in &self.plugins {
            if p.disabled_reason().is_some() {
                continue;
            }
            match self.tools_of(p).await {
                Ok(list) => tools.extend(list.into_iter().map(|t| (p.clone(), t))),
                Err(e) => failed.push((p.name().to_string(), e.to_string())),
            }
        }
        let (tools, refused) = crate::names::assign(tools, &self.replaces);
        (tools, failed, refused)
    }

    /// Finds the plugin providing `tool`: the one [`PluginHost::all_tools`] gives the
    /// name to, never another that declares it too.
    pub async fn find_tool(&self, tool: &str) -> Result<(Arc<Plugin>, ToolInfo), CallError> {
        let (tools, _) = self.all_tools().await;
        if let Some(found) = tools.iter().find(|(_, t)| t.name == tool) {
            return Ok(found.clone());
        }
        // Disabled plugins are searched too, so calling one says why it is disabled.
        for p in self
            .plugins
            .iter()
            .filter(|p| p.disabled_reason().is_some())
        {
            let Ok(list) = self.tools_of(p).await else {
                continue;
            };
            if let Some(info) = list.into_iter().find(|t| t.name == tool) {
                return Ok((p.clone(), info));
            }
        }
        let mut known: Vec<String> = tools.into_iter().map(|(_, t)| t.name).collect();
        known.sort();
        Err(CallError::UnknownTool {
            tool: tool.to_string(),
            known,
        })
    }

    /// Runs `tool` from `plugin` with `args` (a JSON object) under `scope`.
    pub async fn call(
        &self,
        plugin: &Plugin,
        tool: &str,
        args: &str,
        scope: CallScope,
    ) -> Result<ToolOutput, CallError> {
        let loaded = self.ready::<ToolIndices>(plugin).await?;
        let context = call_context(&scope);
        let unsandboxed = crate::sandbox::escape_approved(plugin, tool, args, &scope).await?;
        let env = self.call_env_confined(plugin, scope, plugin.limits.time, unsandboxed);
        self.run::<ToolIndices, _, _>(
            plugin,
            &loaded,
            env,
            async |guest, store| guest.call_execute(store, tool, args, &context).await,
            |answer, env| match answer {
                Ok(out) => check_size(plugin, out),
                Err(e) => Err(tool_failure(e, env.rejection())),
            },
        )
        .await
    }

    /// A call into `plugin` worked: its run of failures is over.
    pub(crate) fn clear_strikes(&self, plugin: &Plugin) {
        plugin.strikes.store(0, Ordering::Relaxed);
    }

    /// A call into `plugin` failed through its own fault (`error`); at [`MAX_STRIKES`]
    /// in a row it is disabled, audited and announced.
    pub(crate) fn strike(&self, plugin: &Plugin, error: &CallError) {
        let n = plugin.strikes.fetch_add(1, Ordering::Relaxed) + 1;
        if n >= MAX_STRIKES && plugin.disabled_reason().is_none() {
            let reason = format!("disabled after {n} consecutive failures; last: {error}");
            self.audit.deny(plugin.name(), "limit", "plugin", &reason);
            self.audit.publish(PluginEvent::Failed {
                plugin: plugin.name().to_string(),
                reason: reason.clone(),
            });
            plugin.disable(reason);
        }
    }
}

/// The plugin host's own state, protected like Ward's configuration: the compiled
/// cache, the audit log's directory (the data directory) and every plugin's own
/// directory (its manifest and component), as `(path, is a directory)`.
fn host_state(options: &HostOptions, sources: &[PluginSource]) -> Vec<(PathBuf, bool)> {
    let mut state: Vec<(PathBuf, bool)> = Vec::new();
    state.extend(options.cache_dir.iter().map(|d| (d.clone(), true)));
    let log_dir = options.audit_log.as_deref().and_then(Path::parent);
    state.extend(log_dir.map(|d| (d.to_path_buf(), true)));
    for source in sources {
        let ComponentBytes::File(component) = &source.component else {
            continue;
        };
        match source.manifest_path.parent() {
            // A plugin developed at the project root: its files, not the project.
            Some(dir) if !options.project.starts_with(dir) => {
                state.push((dir.to_path_buf(), true));
            }
            _ => {
                state.push((source.manifest_path.clone(), false));
                state.push((component.clone(), false));
            }
        }
    }
    state
}

fn prepare(source: PluginSource, options: &HostOptions) -> Plugin {
    let m = &source.manifest;
    let mut ceiling = Ceiling::resolve(&m.capabilities, &options.project);
    let grants = match options.grants.get(&m.name) {
        Some(g) => g.clone(),
        None if source.origin == crate::discovery::Origin::Builtin => vec!["all".to_string()],
        None => Vec::new(),
    };
    // A hook plugin that does not say what its hooks may do gets the least: observe
    // every tool, change nothing.
    if ceiling.hooks.is_none() && m.kinds.contains(&Kind::Hook) {
        ceiling.hooks = Some(HookCaps::default());
    }
    let (effective, ignored_grants) = ceiling.grant(&grants, &options.project);
    let limits = CallLimits {
        memory_bytes: usize::try_from(m.limits.memory_mib.saturating_mul(1 << 20))
            .unwrap_or(usize::MAX)
            .min(crate::engine::MAX_MEMORY_BYTES),
        time: Duration::from_millis(m.limits.time_ms),
        output_bytes: usize::try_from(m.limits.output_bytes).unwrap_or(usize::MAX),
    };
    let disabled = options
        .disabled
        .iter()
        .any(|d| d == &m.name)
        .then(|| "disabled in config".to_string());
    Plugin {
        ceiling,
        grants,
        effective: Arc::new(effective),
        ignored_grants,
        limits,
        loaded: OnceCell::new(),
        tools: OnceLock::new(),
        registration: OnceLock::new(),
        strikes: AtomicU32::new(0),
        disabled: Mutex::new(disabled),
        source,
    }
}

fn check_size(plugin: &Plugin, out: ToolOutput) -> Result<ToolOutput, CallError> {
    let size = out.output.len() + out.title.len() + out.metadata.len();
    if size > plugin.limits.output_bytes {
        return Err(CallError::OutputTooLarge {
            plugin: plugin.name().to_string(),
            size,
            limit: plugin.limits.output_bytes,
        });
    }
    Ok(out)
}

/// The context a guest sees for a call made under `scope`.
pub(crate) fn call_context(scope: &CallScope) -> CallContext {
    CallContext {
        session_id: scope.session_id.clone(),
        message_id: scope.message_id.clone(),
        call_id: scope.call_id.clone(),
        agent: scope.agent.clone(),
        directory: scope.project.to_string_lossy().into_owned(),
    }
}
