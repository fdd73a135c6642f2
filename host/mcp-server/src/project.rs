//! The project being served: its engine, its tool box under the served agent's
//! rules, the permission engine its calls ask through, and what its plugin
//! directories held when it was opened — so a plugin installed or removed is noticed
//! and the project reopened with it.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use ward_engine::Engine;
use ward_permission::{PermissionEngine, Ruleset};
use ward_plugin::CallScope;
use ward_plugin::discovery::Origin;
use ward_session::ToolBox;
use ward_store::Store;

use crate::asks::Router;
use crate::catalog::Catalog;
use crate::{McpServeError, ServeOptions};

/// One opening of the project. Calls in flight keep the one they started in.
pub struct Project {
    /// The engine.
    pub engine: Engine,
    /// The tools, under the served agent's rules.
    pub tools: ToolBox,
    /// What is served of them.
    pub catalog: Catalog,
    /// Where the calls' permission questions go.
    pub permissions: PermissionEngine,
    /// The served agent's permission layers.
    pub rules: Arc<Vec<Ruleset>>,
    /// The agent calls run as.
    pub agent: String,
    /// Routes each question to the call it belongs to.
    pub asks: Arc<Router>,
    /// What the plugin directories held.
    pub fingerprint: Fingerprint,
    dirs: Vec<PathBuf>,
}

/// Numbers the calls: each is a session of its own for the permission engine, so a
/// rejection in one never cascades to another client's question.
static CALLS: AtomicU64 = AtomicU64::new(0);

impl Project {
    /// Opens the project `options` name; `recover` repairs what a crash left in the
    /// store (the first opening only: later ones would take a live process's running
    /// tools for crashed ones).
    pub async fn open(options: &ServeOptions, recover: bool) -> Result<Project, McpServeError> {
        let engine = Engine::open((options.engine)().recover(recover)).await?;
        for warning in engine.take_warnings() {
            tracing::warn!("{warning}");
        }
        let ws = engine.workspace();
        let agent = ws
            .agents
            .get(&options.agent)
            .ok_or_else(|| McpServeError::UnknownAgent(options.agent.clone()))?;
        let rules = ws.rules_for(agent);
        let store = engine.store();
        let permissions = ws.permission_engine(store.clone(), store.bus());
        let (tools, failed) = ws.tool_box(&rules).await;
        for warning in failed {
            tracing::warn!("{warning}");
        }
        let (all, _) = ws.host.all_tools().await;
        let origins: Vec<(String, String, Origin)> = all
            .iter()
            .map(|(plugin, tool)| {
                (
                    tool.name.clone(),
                    plugin.name().to_string(),
                    plugin.source.origin,
                )
            })
            .collect();
        let catalog = Catalog::new(&tools, &origins, options.standard_tools);
        let asks = Router::start(engine.subscribe(), permissions.clone());
        let dirs = ws.plugin_dirs();
        let fingerprint = Fingerprint::of(&dirs);
        Ok(Project {
            agent: agent.name.clone(),
            engine,
            tools,
            catalog,
            permissions,
            rules,
            asks,
            fingerprint,
            dirs,
        })
    }

    /// A fresh call's scope: its own session and call id.
    pub fn scope(&self) -> CallScope {
        let n = CALLS.fetch_add(1, Ordering::Relaxed);
        CallScope {
            session_id: format!("mcp_{n}"),
            message_id: String::new(),
            call_id: format!("mcp_call_{n}"),
            agent: self.agent.clone(),
            project: self.engine.workspace().config.project_root.clone(),
            rules: self.rules.clone(),
            permissions: self.permissions.clone(),
            progress: None,
            approved: Default::default(),
        }
    }

    /// The plugin directories watched.
    pub fn plugin_dirs(&self) -> Vec<PathBuf> {
        self.dirs.clone()
    }

    /// Whether the plugin directories changed since the project was opened.
    pub fn plugins_changed(&self) -> bool {
        Fingerprint::of(&self.dirs) != self.fingerprint
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        self.asks.stop();
    }
}

/// What a set of plugin directories holds, cheaply: every entry two levels down
/// (`plugins/NAME/FILE`) with its size and modification time. Polled rather than
/// watched through inotify: two `read_dir` levels every half second cost next to
/// nothing, work the same for a directory that does not exist yet, and need no
/// watcher crate (and its thread) in the binary.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Fingerprint(Vec<(PathBuf, u64, Option<SystemTime>)>);

impl Fingerprint {
    /// The fingerprint of `dirs` now.
    pub fn of(dirs: &[PathBuf]) -> Fingerprint {
        let mut seen = Vec::new();
        for dir in dirs {
            for entry in read(dir) {
                let meta = std::fs::metadata(&entry).ok();
                seen.push((
                    entry.clone(),
                    meta.as_ref().map_or(0, std::fs::Metadata::len),
                    meta.and_then(|m| m.modified().ok()),
                ));
                if entry.is_dir() {
                    for inner in read(&entry) {
                        let meta = std::fs::metadata(&inner).ok();
                        seen.push((
                            inner,
                            meta.as_ref().map_or(0, std::fs::Metadata::len),
                            meta.and_then(|m| m.modified().ok()),
                        ));
                    }
                }
            }
        }
        seen.sort();
        Fingerprint(seen)
    }
}

/// The entries of `dir` (none if it cannot be read).
fn read(dir: &std::path::Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}
