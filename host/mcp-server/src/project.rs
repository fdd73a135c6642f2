//! The project being served: its engine, the served agent's tools (called through
//! the engine, whose one permission engine their questions go through), and what
//! its plugin directories held when it was opened — so a plugin installed or removed
//! is noticed and the project reopened with it.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use ward_engine::{CallIds, DirectCalls, Engine};

use crate::asks::Router;
use crate::catalog::Catalog;
use crate::{McpServeError, ServeOptions};

/// One opening of the project. Calls in flight keep the one they started in.
pub struct Project {
    /// The engine.
    pub engine: Engine,
    /// The served agent's tools.
    pub tools: DirectCalls,
    /// What is served of them.
    pub catalog: Catalog,
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
        if !engine.agents().iter().any(|a| a.name == options.agent) {
            return Err(McpServeError::UnknownAgent(options.agent.clone()));
        }
        let (tools, failed) = engine.direct_calls(&options.agent).await?;
        for warning in failed {
            tracing::warn!("{warning}");
        }
        let catalog = Catalog::new(tools.tools(), options.standard_tools);
        let asks = Router::start(engine.clone());
        let dirs = engine.plugin_dirs();
        let fingerprint = Fingerprint::of(&dirs);
        Ok(Project {
            engine,
            tools,
            catalog,
            asks,
            fingerprint,
            dirs,
        })
    }

    /// A fresh call's ids: its own session and call id.
    pub fn call_ids(&self) -> CallIds {
        let n = CALLS.fetch_add(1, Ordering::Relaxed);
        CallIds {
            session: format!("mcp_{n}"),
            call: format!("mcp_call_{n}"),
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
