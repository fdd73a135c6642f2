//! What one plugin call carries: the per-call [`Store`](wasmtime::Store) data, the
//! sandboxed WASI context built from the plugin's effective capabilities, and the
//! session scope the host imports check against.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use wasmtime::component::ResourceTable;
use wasmtime_wasi::{FsPerms, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

use ward_permission::{AskRequest, PermissionEngine, PermissionError, Ruleset};

use crate::budget::{LogBudget, ProgressGate};
use crate::fsguard::Descriptors;
use crate::limiter::Limiter;
use crate::sandbox::{Confinement, SandboxSettings};
use ward_grants::Audit;
use ward_grants::Effective;

/// Receives `progress` updates from a running tool: new title (if any) and metadata JSON.
pub type ProgressSink = Arc<dyn Fn(Option<String>, String) + Send + Sync>;

/// Who is calling, where, and under which rules. Supplied by the caller (the agent loop,
/// `ward tool call`, …) for every call.
#[derive(Clone)]
pub struct CallScope {
    /// Session id, or empty.
    pub session_id: String,
    /// Assistant message id, or empty.
    pub message_id: String,
    /// Tool call id, or empty.
    pub call_id: String,
    /// The agent on whose behalf the call runs.
    pub agent: String,
    /// The project root; `$WORKSPACE` in manifests.
    pub project: PathBuf,
    /// The permission layers in force (defaults → agent → config → session).
    pub rules: Arc<Vec<Ruleset>>,
    /// Where asks go.
    pub permissions: PermissionEngine,
    /// Live progress of the running tool.
    pub progress: Option<ProgressSink>,
    /// (permission, pattern) pairs the user already approved for this call, e.g. at
    /// tool level by the caller. A filesystem access whose rule says *ask* and whose
    /// need is listed here goes through without asking the same question twice;
    /// answers given during the call are added.
    pub approved: Arc<Mutex<Vec<(String, String)>>>,
}

/// Per-call resource limits, from the manifest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallLimits {
    /// Linear memory, bytes: all of the component's memories together.
    pub memory_bytes: usize,
    /// Wall time for the whole call.
    pub time: Duration,
    /// Largest result (tool output, exec output, HTTP body), bytes.
    pub output_bytes: usize,
}

/// The environment host imports see during a call.
pub struct CallEnv {
    /// The plugin being called.
    pub plugin: String,
    /// The tools it declares: the keys, besides its capabilities', its `ask` may use.
    pub tools: Vec<String>,
    /// Its effective capabilities for this project.
    pub caps: Arc<Effective>,
    /// The caller's scope.
    pub scope: CallScope,
    /// Its limits.
    pub limits: CallLimits,
    /// When the call must be over.
    pub deadline: Instant,
    /// Where decisions are recorded.
    pub audit: Arc<Audit>,
    /// How processes are confined on this host.
    pub sandbox: Arc<SandboxSettings>,
    /// Starts the confined processes (`None`: no helper, so no process is started).
    pub launcher: Option<Arc<ward_sandbox::Launcher>>,
    /// Which confinement this call's processes get.
    pub confinement: Confinement,
    /// Ward's configuration and state, which no grant lets a plugin write.
    pub protected: Arc<ward_permission::protected::ProtectedPaths>,
    /// Whether the plugin is one of Ward's own (embedded in the binary), whose writes
    /// to a protected path a person may approve; any other plugin's are refused.
    pub config_writer: bool,
    /// The last rejection the user gave a question of this call ([`CallEnv::rejection`]).
    pub(crate) rejected: Mutex<Option<PermissionError>>,
}

impl CallEnv {
    /// Checks a need of this plugin's call with the session (see [`CallScope::check`]),
    /// as a question of this plugin's.
    pub async fn check(
        &self,
        permission: &str,
        patterns: Vec<String>,
        always: Vec<String>,
        metadata: serde_json::Value,
    ) -> Result<(), PermissionError> {
        self.check_in(&self.scope, permission, patterns, always, metadata)
            .await
    }

    /// [`CallEnv::check`] under `scope` instead of the call's own (e.g. with an extra
    /// guard layer). A rejection is remembered for [`CallEnv::rejection`].
    pub async fn check_in(
        &self,
        scope: &CallScope,
        permission: &str,
        patterns: Vec<String>,
        always: Vec<String>,
        metadata: serde_json::Value,
    ) -> Result<(), PermissionError> {
        let outcome = scope
            .check_for(Some(&self.plugin), permission, patterns, always, metadata)
            .await;
        if let Err(refusal) = &outcome
            && refusal.is_rejection()
            && let Ok(mut rejected) = self.rejected.lock()
        {
            *rejected = Some(refusal.clone());
        }
        outcome
    }

    /// The last rejection the user gave a question of this call, if any. The plugin
    /// gets the refusal as text through the WIT boundary and reports what it likes; a
    /// tool error after a rejection is the user's refusal all the same
    /// ([`crate::CallError::Rejected`]), and no text a plugin writes can pass for one.
    pub fn rejection(&self) -> Option<PermissionError> {
        self.rejected.lock().ok().and_then(|r| r.clone())
    }
}

/// The data in each call's `Store`.
pub struct StoreState {
    pub(crate) wasi: WasiCtx,
    pub(crate) table: ResourceTable,
    pub(crate) limits: Limiter,
    pub(crate) env: Arc<CallEnv>,
    /// The host path behind each filesystem descriptor, for the guard.
    pub(crate) fs: Descriptors,
    /// What the call may still log.
    pub(crate) log: LogBudget,
    /// Between the call's `progress` updates and the caller's sink.
    pub(crate) progress: ProgressGate,
}

impl WasiView for StoreState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl StoreState {
    /// Builds the sandbox for one call: preopens of the granted directories only (at
    /// their real absolute paths, so paths mean the same inside and out), read-only
    /// unless granted `fs-write`; only the granted environment variables (never Ward's
    /// own secrets); no arguments, no stdin, output discarded; no sockets and no name
    /// lookups.
    pub fn new(env: Arc<CallEnv>) -> Self {
        let mut b = WasiCtxBuilder::new();
        // Not `allow_blocking_current_thread`: what wasmtime-wasi does on the filesystem
        // runs on tokio's blocking pool, so an operation that waits (a FIFO, a device, a
        // slow disk) holds up neither the executor nor the other calls of the step. The
        // guard opens regular files and directories itself, whose I/O stays on the
        // calling thread, where a hop would cost more than the operation
        // (`crate::fsguard::direct`).
        b.allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false);
        for dir in &env.caps.fs_write {
            preopen(&mut b, &env, dir, FsPerms::ReadWrite);
        }
        for dir in &env.caps.fs_read {
            if env.caps.fs_write.iter().any(|w| w == dir) {
                continue;
            }
            preopen(&mut b, &env, dir, FsPerms::ReadOnly);
        }
        // Ward's own secrets (its servers' tokens) are no grant's to give.
        let private = ward_permission::protected::PRIVATE_ENV;
        for name in env
            .caps
            .env
            .iter()
            .filter(|n| !private.contains(&n.as_str()))
        {
            if let Ok(value) = std::env::var(name) {
                b.env(name, value);
            }
        }
        let limits = Limiter::new(env.limits.memory_bytes);
        StoreState {
            wasi: b.build(),
            table: ResourceTable::new(),
            limits,
            fs: Descriptors::new(&env.scope.project),
            log: LogBudget::new(&env.plugin),
            progress: ProgressGate::new(env.scope.progress.clone()),
            env,
        }
    }
}

fn preopen(b: &mut WasiCtxBuilder, env: &CallEnv, dir: &std::path::Path, perms: FsPerms) {
    let guest = dir.to_string_lossy();
    if let Err(e) = b.preopened_dir(dir, guest.as_ref(), perms) {
        // A granted directory that does not exist is simply not there for the plugin.
        tracing::debug!(plugin = %env.plugin, "cannot preopen {}: {e}", dir.display());
    }
}

impl CallScope {
    /// Asks the permission engine whether `permission` may be used for every one of
    /// `patterns` in this scope (`always` is what an "always" answer allows from then
    /// on). On success the pairs are remembered as approved for the rest of the call, so
    /// the user is asked once per need, not once per layer that checks it.
    pub async fn check(
        &self,
        permission: &str,
        patterns: Vec<String>,
        always: Vec<String>,
        metadata: serde_json::Value,
    ) -> Result<(), PermissionError> {
        self.check_for(None, permission, patterns, always, metadata)
            .await
    }

    /// [`CallScope::check`] for a question `plugin`'s call asks (`None`: the host asks):
    /// the question names the plugin, and an "always" answer is stored for it alone.
    pub async fn check_for(
        &self,
        plugin: Option<&str>,
        permission: &str,
        patterns: Vec<String>,
        always: Vec<String>,
        metadata: serde_json::Value,
    ) -> Result<(), PermissionError> {
        let approved: Vec<(String, String)> = patterns
            .iter()
            .map(|p| (permission.to_string(), p.clone()))
            .collect();
        // A change to Ward's configuration is a person's question whatever the rules
        // allow, and an "always" answer never approves one for later (config_guard).
        let guarded = crate::config_guard::guard(
            &self.project,
            permission,
            &patterns,
            always,
            metadata,
            &self.rules,
        );
        let request = AskRequest {
            session_id: self.session_id.clone(),
            project: self.project.to_string_lossy().into_owned(),
            agent: self.agent.clone(),
            permission: permission.to_string(),
            patterns,
            always: guarded.always,
            metadata: guarded.metadata,
            call_id: Some(self.call_id.clone()).filter(|c| !c.is_empty()),
            message_id: Some(self.message_id.clone()).filter(|m| !m.is_empty()),
            plugin: plugin.map(str::to_string),
        };
        let layers = guarded.layers.as_deref().unwrap_or(&self.rules);
        self.permissions.check(request, layers).await?;
        if let Ok(mut list) = self.approved.lock() {
            list.extend(approved);
        }
        Ok(())
    }

    /// A scope outside any session where the project's `rules` (the defaults and
    /// `[permission]`) apply, but nobody is there to answer: what they would ask about
    /// is refused. The `event` hooks run here, so a hook granted a directory may write
    /// in it when the rules allow, and never waits for a person.
    pub fn unattended(project: &std::path::Path, rules: Arc<Vec<Ruleset>>) -> Self {
        let scope = CallScope::detached(project);
        scope.permissions.set_ask_hook(Arc::new(NoOneToAsk));
        CallScope { rules, ..scope }
    }

    /// A scope outside any session in which everything a rule could ask about is denied,
    /// since no one is there to answer. Used to list a plugin's tools at load.
    pub fn detached(project: &std::path::Path) -> Self {
        let (tx, _) = tokio::sync::broadcast::channel(1);
        CallScope {
            session_id: String::new(),
            message_id: String::new(),
            call_id: String::new(),
            agent: String::new(),
            project: project.to_path_buf(),
            rules: Arc::new(vec![ward_permission::Ruleset::new(
                "detached",
                vec![ward_permission::Rule::new(
                    "*",
                    "*",
                    ward_permission::Action::Deny,
                )],
            )]),
            permissions: PermissionEngine::new(
                Arc::new(ward_permission::MemoryApprovals::new()),
                tx,
            ),
            progress: None,
            approved: Arc::default(),
        }
    }
}

/// The answer to every question asked where nobody can answer (an unattended scope).
struct NoOneToAsk;

impl ward_permission::AskHook for NoOneToAsk {
    fn decide<'a>(
        &'a self,
        _: &'a AskRequest,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ward_permission::HookAnswer> + Send + 'a>>
    {
        Box::pin(async {
            ward_permission::HookAnswer::Deny {
                by: "Ward (nobody can answer an event hook's question)".to_string(),
            }
        })
    }
}
