//! Bus events → the plugins' `event` hooks: a task that forwards every event the store
//! publishes (session, message, part, permission, todo) to the hook plugins, which
//! observe only. Forwarding never waits for a plugin: the host queues per plugin.

use std::path::Path;
use std::sync::Arc;

use tokio::sync::broadcast;
use ward_config::Kind;
use ward_plugin::{CallScope, PluginHost};
use ward_store::Event;

/// Forwards `events` to `host`'s hook plugins until the bus closes. Returns `None`
/// (and spawns nothing) when no plugin could take events, so a session without hook
/// plugins pays nothing per event.
pub fn forward_events(
    mut events: broadcast::Receiver<Event>,
    host: Arc<PluginHost>,
    project: &Path,
) -> Option<tokio::task::JoinHandle<()>> {
    let any = host
        .plugins()
        .iter()
        .any(|p| p.is(Kind::Hook) && p.effective.hooks.is_some());
    if !any {
        return None;
    }
    let scope = CallScope::detached(project);
    Some(tokio::spawn(async move {
        loop {
            let event = match events.recv().await {
                Ok(event) => event,
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    tracing::warn!(missed, "event hooks fell behind the bus");
                    continue;
                }
                Err(broadcast::error::RecvError::Closed) => return,
            };
            if let Ok(payload) = serde_json::to_string(&event) {
                host.event(event.name(), &payload, &scope);
            }
        }
    }))
}
