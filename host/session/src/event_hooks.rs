//! Bus events → the plugins' `event` hooks: a task that forwards every event the store
//! publishes (session, message, part, permission, todo) to the hook plugins, which
//! observe only. Forwarding never waits for a plugin: the host queues per plugin.
//!
//! One kind is held back: a `plugin.denied` of a hook plugin. A hook that is refused
//! something while handling an event would otherwise get its own refusal as the next
//! event, and two such hooks would feed each other forever.

use std::path::Path;
use std::sync::Arc;

use tokio::sync::broadcast;
use ward_config::Kind;
use ward_plugin::{CallScope, PluginHost};
use ward_store::Event;

/// Forwards `events` to `host`'s hook plugins until the bus closes or `stop` fires;
/// on `stop`, what the bus still holds is forwarded first, so the last events of a
/// run are not lost to its end. The hooks run under the project's `rules` with no one
/// to answer a question ([`CallScope::unattended`]). Returns `None` (and spawns nothing) when no plugin
/// could take events, so a session without hook plugins pays nothing per event.
pub fn forward_events(
    mut events: ward_store::Subscription,
    host: Arc<PluginHost>,
    project: &Path,
    rules: Arc<Vec<ward_permission::Ruleset>>,
    mut stop: tokio::sync::oneshot::Receiver<()>,
) -> Option<tokio::task::JoinHandle<()>> {
    let any = host
        .plugins()
        .iter()
        .any(|p| p.is(Kind::Hook) && p.effective.hooks.is_some());
    if !any {
        return None;
    }
    let scope = CallScope::unattended(project, rules);
    Some(tokio::spawn(async move {
        loop {
            let event = tokio::select! {
                biased;
                event = events.recv() => match event {
                    Ok(event) => event,
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        tracing::warn!(missed, "event hooks fell behind the bus");
                        continue;
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                },
                _ = &mut stop => {
                    while let Ok(event) = events.try_recv() {
                        forward(&host, &event, &scope);
                    }
                    return;
                }
            };
            forward(&host, &event, &scope);
        }
    }))
}

/// Hands `event` to the hook plugins, unless it is a hook plugin's own refusal.
fn forward(host: &Arc<PluginHost>, event: &Event, scope: &CallScope) {
    if let Event::PluginDenied { plugin, .. } = event
        && host
            .plugins()
            .iter()
            .any(|p| p.name() == plugin && p.is(Kind::Hook))
    {
        return;
    }
    if let Ok(payload) = serde_json::to_string(event) {
        host.event(event.name(), &payload, scope);
    }
}
