//! The plugin host: loads components lazily, runs each call in a fresh sandboxed store,
//! and turns every way a plugin can misbehave into a clear error for the model.
//!
//! Start-up only reads manifests. A component is compiled on first use (or read from
//! the artifact cache), its imports resolved once into an `InstancePre`, and each call
//! instantiates it into a new `Store`, so nothing leaks between calls or sessions.
//! Consecutive crashes, timeouts and limit breaches count as strikes; at
//! [`MAX_STRIKES`] the plugin is disabled with the reason shown in `ward plugin list`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::OnceCell;
use wasmtime::component::{Component, HasSelf, Linker};
use wasmtime::{Store, Trap, UpdateDeadline};

use crate::audit::{Audit, PluginEvent};
use crate::bindings::{CallContext, ToolError, ToolInfo, ToolOutput, ToolPlugin, ToolPluginPre};
use crate::cache::{ArtifactCache, Lookup, artifact_name, sha256_hex};
use crate::discovery::PluginSource;
use crate::engine::SharedEngine;
use crate::grants::{Ceiling, Effective, IgnoredGrant};
use crate::state::{CallEnv, CallLimits, CallScope, StoreState};
use crate::{compat, error::CallError};

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
    loaded: OnceCell<Result<Arc<Loaded>, String>>,
    /// The tool list, once known (from the cache or the component).
    tools: std::sync::OnceLock<Vec<ToolInfo>>,
    strikes: AtomicU32,
    disabled: Mutex<Option<String>>,
}

struct Loaded {
    pre: ToolPluginPre<StoreState>,
    tools: Vec<ToolInfo>,
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

    fn disable(&self, reason: String) {
        if let Ok(mut d) = self.disabled.lock() {
            *d = Some(reason);
        }
    }
}

/// Runs plugins for one project.
pub struct PluginHost {
    engine: SharedEngine,
    linker: Linker<StoreState>,
    cache: Option<ArtifactCache>,
    audit: Arc<Audit>,
    project: PathBuf,
    plugins: Vec<Arc<Plugin>>,
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
        ToolPlugin::add_to_linker::<StoreState, HasSelf<StoreState>>(&mut linker, |s| s)
            .map_err(|e| CallError::Host(e.to_string()))?;
        let cache = options.cache_dir.as_deref().and_then(|dir| {
            ArtifactCache::open(dir)
                .map_err(|e| tracing::warn!("compiled cache {} unusable: {e}", dir.display()))
                .ok()
        });
        let (tx, _) = tokio::sync::broadcast::channel(256);
        let audit = Arc::new(Audit::new(options.audit_log.as_deref(), tx));
        let project = options.project.clone();
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

    /// The audit trail (and its event channel).
    pub fn audit(&self) -> &Arc<Audit> {
        &self.audit
    }

    /// The tools `plugin` provides, compiling it if needed (or reading its tool list from
    /// the cache, which needs no compile).
    pub async fn tools_of(&self, plugin: &Plugin) -> Result<Vec<ToolInfo>, CallError> {
        if let Some(tools) = plugin.tools.get() {
            return Ok(tools.clone());
        }
        let tools = match self.cached_tools(plugin) {
            Some(tools) => tools,
            None => self.load(plugin).await?.tools.clone(),
        };
        Ok(plugin.tools.get_or_init(|| tools).clone())
    }

    /// Every tool of every enabled plugin, with the plugin providing it. Plugins that fail
    /// to load are reported in the second list.
    pub async fn all_tools(&self) -> (Vec<(Arc<Plugin>, ToolInfo)>, Vec<(String, String)>) {
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
        (tools, failed)
    }

    /// Finds the plugin providing `tool`.
    pub async fn find_tool(&self, tool: &str) -> Result<(Arc<Plugin>, ToolInfo), CallError> {
        // A plugin named after the tool is the likely provider: try it first so a single
        // call compiles at most one component.
        let mut order: Vec<&Arc<Plugin>> = self.plugins.iter().collect();
        order.sort_by_key(|p| p.name() != tool);
        let mut known = Vec::new();
        // Disabled plugins are searched too, so calling one says why it is disabled.
        for p in order {
            let Ok(list) = self.tools_of(p).await else {
                continue;
            };
            if let Some(info) = list.iter().find(|t| t.name == tool) {
                return Ok((p.clone(), info.clone()));
            }
            known.extend(list.into_iter().map(|t| t.name));
        }
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
        if let Some(reason) = plugin.disabled_reason() {
            return Err(CallError::Disabled {
                plugin: plugin.name().to_string(),
                reason,
            });
        }
        let loaded = self.load(plugin).await?;
        let context = CallContext {
            session_id: scope.session_id.clone(),
            message_id: scope.message_id.clone(),
            call_id: scope.call_id.clone(),
            agent: scope.agent.clone(),
            directory: scope.project.to_string_lossy().into_owned(),
        };
        let env = Arc::new(CallEnv {
            plugin: plugin.name().to_string(),
            caps: plugin.effective.clone(),
            scope,
            limits: plugin.limits,
            deadline: Instant::now() + plugin.limits.time,
            audit: self.audit.clone(),
        });
        let mut store = self.new_store(env.clone());
        let outcome = async {
            let instance = loaded.pre.instantiate_async(&mut store).await?;
            instance
                .ward_plugin_tool()
                .call_execute(&mut store, tool, args, &context)
                .await
        }
        .await;
        let result = match outcome {
            Ok(Ok(out)) => check_size(plugin, out),
            Ok(Err(e)) => Err(CallError::Tool(e)),
            Err(trap) => Err(classify(plugin, &trap, store.data().limits.memory_refused)),
        };
        self.strike(plugin, &result);
        result
    }

    fn new_store(&self, env: Arc<CallEnv>) -> Store<StoreState> {
        let deadline = env.deadline;
        let mut store = Store::new(self.engine.engine(), StoreState::new(env));
        store.limiter(|s| &mut s.limits);
        store.set_epoch_deadline(1);
        // Check the wall clock at every tick and yield to the executor in between, so a
        // busy plugin neither outlives its deadline nor starves other tasks.
        store.epoch_deadline_callback(move |_| {
            if Instant::now() >= deadline {
                Ok(UpdateDeadline::Interrupt)
            } else {
                Ok(UpdateDeadline::Yield(1))
            }
        });
        store
    }

    fn strike(&self, plugin: &Plugin, result: &Result<ToolOutput, CallError>) {
        match result {
            Ok(_) | Err(CallError::Tool(_)) => plugin.strikes.store(0, Ordering::Relaxed),
            Err(e) if e.is_plugin_fault() => {
                let n = plugin.strikes.fetch_add(1, Ordering::Relaxed) + 1;
                if n >= MAX_STRIKES {
                    let reason = format!("disabled after {n} consecutive failures; last: {e}");
                    self.audit.deny(plugin.name(), "limit", "plugin", &reason);
                    self.audit.publish(PluginEvent::Failed {
                        plugin: plugin.name().to_string(),
                        reason: reason.clone(),
                    });
                    plugin.disable(reason);
                }
            }
            Err(_) => {}
        }
    }

    fn cached_tools(&self, plugin: &Plugin) -> Option<Vec<ToolInfo>> {
        let cache = self.cache.as_ref()?;
        let sha = plugin.source.manifest.sha256.clone().or_else(|| {
            let bytes = plugin.source.component.load().ok()?;
            Some(sha256_hex(&bytes))
        })?;
        let (_, bytes) = cache.get(&format!("{sha}.tools.json"));
        serde_json::from_slice::<Vec<ToolMeta>>(&bytes?)
            .ok()
            .map(|v| v.into_iter().map(ToolInfo::from).collect())
    }

    async fn load(&self, plugin: &Plugin) -> Result<Arc<Loaded>, CallError> {
        let result = plugin
            .loaded
            .get_or_init(|| async { self.compile(plugin).await.map(Arc::new) })
            .await;
        result.clone().map_err(|reason| CallError::Load {
            plugin: plugin.name().to_string(),
            reason,
        })
    }

    async fn compile(&self, plugin: &Plugin) -> Result<Loaded, String> {
        let name = plugin.name();
        let bytes = plugin
            .source
            .component
            .load()
            .map_err(|e| format!("cannot read its component: {e}"))?;
        let sha = sha256_hex(&bytes);
        if let Some(expected) = &plugin.source.manifest.sha256
            && !expected.eq_ignore_ascii_case(&sha)
        {
            return Err(format!(
                "{}: component `{}` has sha256 {sha}, but the manifest says {expected}",
                plugin.source.manifest_path.display(),
                plugin.source.manifest.component
            ));
        }
        let imports = compat::import_names(&bytes)?;
        compat::check_imports(&imports, &plugin.ceiling)?;

        let component = self.compile_cached(name, &sha, &bytes).await?;
        let pre = self
            .linker
            .instantiate_pre(&component)
            .map_err(|e| format!("cannot link: {e}"))?;
        let pre = ToolPluginPre::new(pre).map_err(|e| {
            format!("it does not export the `ward:plugin/tool` interface it declares: {e}")
        })?;

        // The tool list comes from the component itself, once, under the same limits as
        // any call.
        let env = Arc::new(CallEnv {
            plugin: name.to_string(),
            caps: plugin.effective.clone(),
            scope: CallScope::detached(&self.project),
            limits: plugin.limits,
            deadline: Instant::now() + plugin.limits.time.min(Duration::from_secs(10)),
            audit: self.audit.clone(),
        });
        let mut store = self.new_store(env);
        let tools = async {
            let instance = pre.instantiate_async(&mut store).await?;
            instance
                .ward_plugin_tool()
                .call_list_tools(&mut store)
                .await
        }
        .await
        .map_err(|e| format!("listing its tools failed: {}", trap_message(&e)))?;
        if let Some(cache) = &self.cache {
            let meta: Vec<ToolMeta> = tools.iter().map(ToolMeta::from).collect();
            if let Ok(json) = serde_json::to_vec(&meta) {
                let _ = cache.put(&format!("{sha}.tools.json"), &json);
            }
        }
        self.audit.publish(PluginEvent::Loaded {
            plugin: name.to_string(),
        });
        Ok(Loaded { pre, tools })
    }

    async fn compile_cached(
        &self,
        name: &str,
        sha: &str,
        bytes: &[u8],
    ) -> Result<Component, String> {
        let engine = self.engine.engine().clone();
        let entry = artifact_name(sha, &engine);
        if let Some(cache) = &self.cache {
            match cache.get(&entry) {
                (Lookup::Hit, Some(artifact)) => {
                    // SAFETY: the artifact's seal verified, so these are bytes this host
                    // serialized itself with a compatible engine (the entry name includes
                    // the engine's compatibility hash).
                    match unsafe { Component::deserialize(&engine, &artifact) } {
                        Ok(c) => return Ok(c),
                        Err(e) => tracing::warn!(plugin = name, "cached artifact unusable: {e}"),
                    }
                }
                (Lookup::Rejected, _) => {
                    tracing::warn!(
                        plugin = name,
                        "cached artifact failed its integrity check; recompiling"
                    );
                    self.audit
                        .deny(name, "cache", &entry, "artifact seal mismatch; recompiled");
                }
                _ => {}
            }
        }
        let owned = bytes.to_vec();
        let component = tokio::task::spawn_blocking(move || Component::new(&engine, &owned))
            .await
            .map_err(|e| format!("compile task failed: {e}"))?
            .map_err(|e| format!("cannot compile: {e}"))?;
        if let Some(cache) = &self.cache {
            match component.serialize() {
                Ok(artifact) => {
                    if let Err(e) = cache.put(&entry, &artifact) {
                        tracing::warn!(plugin = name, "cannot write the compiled cache: {e}");
                    }
                }
                Err(e) => tracing::warn!(plugin = name, "cannot serialize: {e}"),
            }
        }
        Ok(component)
    }
}

fn prepare(source: PluginSource, options: &HostOptions) -> Plugin {
    let m = &source.manifest;
    let ceiling = Ceiling::resolve(&m.capabilities, &options.project);
    let grants = match options.grants.get(&m.name) {
        Some(g) => g.clone(),
        None if source.origin == crate::discovery::Origin::Builtin => vec!["all".to_string()],
        None => Vec::new(),
    };
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
        tools: std::sync::OnceLock::new(),
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

fn classify(plugin: &Plugin, err: &wasmtime::Error, memory_refused: bool) -> CallError {
    let name = plugin.name().to_string();
    match err.downcast_ref::<Trap>() {
        Some(Trap::Interrupt) => CallError::Timeout {
            plugin: name,
            ms: plugin.limits.time.as_millis() as u64,
        },
        _ if memory_refused => CallError::Memory {
            plugin: name,
            mib: plugin.limits.memory_bytes >> 20,
        },
        Some(Trap::StackOverflow) => CallError::Trap {
            plugin: name,
            message: "stack overflow (unbounded recursion?)".to_string(),
        },
        _ => CallError::Trap {
            plugin: name,
            message: trap_message(err),
        },
    }
}

fn trap_message(err: &wasmtime::Error) -> String {
    match err.downcast_ref::<Trap>() {
        Some(t) => t.to_string(),
        None => format!("{err:#}")
            .lines()
            .next()
            .unwrap_or_default()
            .to_string(),
    }
}

/// The serialized form of a [`ToolInfo`] in the metadata cache.
#[derive(serde::Serialize, serde::Deserialize)]
struct ToolMeta {
    name: String,
    description: String,
    parameters: String,
}

impl From<&ToolInfo> for ToolMeta {
    fn from(t: &ToolInfo) -> Self {
        ToolMeta {
            name: t.name.clone(),
            description: t.description.clone(),
            parameters: t.parameters.clone(),
        }
    }
}

impl From<ToolMeta> for ToolInfo {
    fn from(t: ToolMeta) -> Self {
        ToolInfo {
            name: t.name,
            description: t.description,
            parameters: t.parameters,
        }
    }
}

/// Turns a plugin's typed error into the text the model reads.
pub fn tool_error_text(e: &ToolError) -> String {
    match e {
        ToolError::InvalidArguments(m) => format!("invalid arguments: {m}"),
        ToolError::Denied(m) => format!("denied: {m}"),
        ToolError::Failed(m) => m.clone(),
    }
}
