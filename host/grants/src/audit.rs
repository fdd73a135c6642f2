//! The audit trail: every capability decision a plugin triggers, allowed or denied,
//! appended as one JSON line to `audit.log` in the data directory and published as a
//! `plugin.denied` event when it is a denial.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use tokio::sync::broadcast;

/// One decision.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct AuditEntry {
    /// Milliseconds since the Unix epoch.
    pub time: u128,
    /// The plugin that asked.
    pub plugin: String,
    /// `fs`, `exec`, `net`, `env`, `load`, `limit`, …
    pub capability: String,
    /// What was asked for: a path, a command, a URL.
    pub target: String,
    /// `allow` or `deny`.
    pub decision: String,
    /// Why.
    pub reason: String,
}

/// Plugin events published on the bus.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(tag = "type")]
pub enum PluginEvent {
    /// A plugin was refused something.
    #[serde(rename = "plugin.denied")]
    Denied(AuditEntry),
    /// A plugin failed to load or was disabled.
    #[serde(rename = "plugin.failed")]
    Failed {
        /// The plugin.
        plugin: String,
        /// Why.
        reason: String,
    },
    /// A plugin was compiled (or loaded from cache) and is ready.
    #[serde(rename = "plugin.loaded")]
    Loaded {
        /// The plugin.
        plugin: String,
    },
}

/// Where plugin events also go, synchronously, as they happen (an engine's bus).
#[derive(Clone)]
pub struct EventSink(pub std::sync::Arc<dyn Fn(&PluginEvent) + Send + Sync>);

impl std::fmt::Debug for EventSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EventSink")
    }
}

/// Writes the audit log and publishes plugin events.
pub struct Audit {
    file: Option<Mutex<std::fs::File>>,
    path: Option<PathBuf>,
    events: broadcast::Sender<PluginEvent>,
    sink: Option<EventSink>,
}

impl Audit {
    /// An audit trail appending to `path` (created if missing). If the file cannot be
    /// opened the trail still publishes events, and says so in the log.
    pub fn new(path: Option<&Path>, events: broadcast::Sender<PluginEvent>) -> Self {
        let file = path.and_then(|p| {
            if let Some(dir) = p.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            match std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
            {
                Ok(f) => Some(Mutex::new(f)),
                Err(e) => {
                    tracing::warn!("cannot open audit log {}: {e}", p.display());
                    None
                }
            }
        });
        Audit {
            file,
            path: path.map(Path::to_path_buf),
            events,
            sink: None,
        }
    }

    /// The same trail, also handing every event to `sink` as it is published.
    pub fn with_sink(mut self, sink: Option<EventSink>) -> Self {
        self.sink = sink;
        self
    }

    /// Where the log is written.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The event channel.
    pub fn events(&self) -> &broadcast::Sender<PluginEvent> {
        &self.events
    }

    /// Records an allowed access.
    pub fn allow(&self, plugin: &str, capability: &str, target: &str, reason: &str) {
        self.write(entry(plugin, capability, target, "allow", reason));
    }

    /// Records a denied access and publishes it.
    pub fn deny(&self, plugin: &str, capability: &str, target: &str, reason: &str) {
        let e = entry(plugin, capability, target, "deny", reason);
        tracing::info!(plugin, capability, target, reason, "plugin access denied");
        self.write(e.clone());
        self.publish(PluginEvent::Denied(e));
    }

    /// Publishes an event.
    pub fn publish(&self, event: PluginEvent) {
        if let Some(sink) = &self.sink {
            (sink.0)(&event);
        }
        let _ = self.events.send(event);
    }

    fn write(&self, e: AuditEntry) {
        let Some(file) = &self.file else { return };
        let Ok(mut line) = serde_json::to_vec(&e) else {
            return;
        };
        line.push(b'\n');
        if let Ok(mut f) = file.lock()
            && let Err(err) = f.write_all(&line)
        {
            tracing::warn!("cannot write the audit log: {err}");
        }
    }
}

fn entry(plugin: &str, capability: &str, target: &str, decision: &str, reason: &str) -> AuditEntry {
    AuditEntry {
        time: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis()),
        plugin: plugin.to_string(),
        capability: capability.to_string(),
        target: target.to_string(),
        decision: decision.to_string(),
        reason: reason.to_string(),
    }
}
