//! The `event` hook: every bus event, delivered to the plugins that registered it
//! without making the publisher wait.
//!
//! Each plugin has its own bounded queue and one task draining it, so a plugin sees
//! events in the order they were published, a slow plugin delays only itself, and at
//! most one of its calls is in flight. When a queue is full the event is dropped for
//! that plugin (and logged) rather than buffered without bound. Events are observe
//! only: the hook returns nothing the host could use.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use tokio::sync::mpsc;
use ward_config::Kind;

use super::HookPoint;
use crate::runtime::{Plugin, PluginHost};
use crate::state::CallScope;

/// Events waiting for one plugin before it falls behind and events are dropped.
const QUEUE_LEN: usize = 256;

/// One published event.
struct Event {
    name: String,
    payload: String,
    scope: CallScope,
}

/// The event queue of every hook plugin that has been sent an event, by plugin name,
/// and the tasks draining them.
#[derive(Default)]
pub(crate) struct EventQueues {
    senders: Mutex<HashMap<String, mpsc::Sender<Event>>>,
    drains: Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

impl PluginHost {
    /// Publishes bus event `name` (with `payload`, its JSON) to every enabled hook
    /// plugin that registered the `event` hook, and returns at once; delivery happens
    /// on background tasks, under `scope`'s rules. Outside a Tokio runtime, nothing is
    /// delivered.
    pub fn event(self: &Arc<Self>, name: &str, payload: &str, scope: &CallScope) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::debug!("event {name} not delivered to plugins: no async runtime");
            return;
        };
        let Ok(mut senders) = self.events.senders.lock() else {
            return;
        };
        for plugin in self.plugins() {
            if !plugin.is(Kind::Hook)
                || plugin.effective.hooks.is_none()
                || plugin.disabled_reason().is_some()
                // Unknown registrations are resolved by the plugin's task.
                || plugin
                    .registration
                    .get()
                    .is_some_and(|r| !r.wants(HookPoint::Event, None))
            {
                continue;
            }
            let sender = senders.entry(plugin.name().to_string()).or_insert_with(|| {
                let (tx, rx) = mpsc::channel(QUEUE_LEN);
                let task = runtime.spawn(drain(Arc::downgrade(self), plugin.clone(), rx));
                if let Ok(mut drains) = self.events.drains.lock() {
                    drains.retain(|d| !d.is_finished());
                    drains.push(task);
                }
                tx
            });
            let event = Event {
                name: name.to_string(),
                payload: payload.to_string(),
                scope: scope.clone(),
            };
            if sender.try_send(event).is_err() {
                tracing::warn!(
                    plugin = plugin.name(),
                    "event {name} dropped: the plugin is behind"
                );
            }
        }
    }

    /// Closes the event queues and waits, at most `limit`, for every plugin to be
    /// handed what was already queued: the last events of a process that is about to
    /// exit (`session.status` idle, say) still reach the hooks. An event published
    /// afterwards opens a new queue.
    pub async fn finish_events(&self, limit: std::time::Duration) {
        if let Ok(mut senders) = self.events.senders.lock() {
            senders.clear();
        }
        let drains: Vec<_> = self
            .events
            .drains
            .lock()
            .map(|mut d| d.drain(..).collect())
            .unwrap_or_default();
        let all = async {
            for drain in drains {
                let _ = drain.await;
            }
        };
        let _ = tokio::time::timeout(limit, all).await;
    }

    async fn deliver(&self, plugin: &Plugin, event: Event) {
        if plugin.disabled_reason().is_some() {
            return;
        }
        match self.hooks_of(plugin).await {
            Ok(r) if r.wants(HookPoint::Event, None) => {}
            Ok(_) => return,
            Err(e) => {
                tracing::debug!(plugin = plugin.name(), "event hook skipped: {e}");
                return;
            }
        }
        let result = async {
            let mut i = self.hook_instance(plugin, &event.scope).await?;
            let out = i
                .guest
                .call_event(&mut i.store, &event.name, &event.payload)
                .await;
            self.settle(plugin, &i, out)
        }
        .await;
        if let Err(e) = result {
            tracing::warn!(plugin = plugin.name(), "event hook failed: {e}");
        }
    }
}

/// Delivers `plugin`'s events one at a time until the host is gone. Holds the host
/// only while delivering, so the queue never keeps it alive.
async fn drain(host: Weak<PluginHost>, plugin: Arc<Plugin>, mut rx: mpsc::Receiver<Event>) {
    while let Some(event) = rx.recv().await {
        let Some(host) = host.upgrade() else {
            return;
        };
        host.deliver(&plugin, event).await;
    }
}
