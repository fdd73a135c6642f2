//! One event stream for every frontend: the store's bus carries what the loop
//! records (sessions, messages, parts, status, todos) and, through the sinks made
//! here, the permission engine's asks and replies and the plugin host's events, each
//! published on the thread that caused it, so a subscriber sees them in order with
//! the parts around them.

use std::sync::Arc;

use ward_grants::{EventSink, PluginEvent};
use ward_permission::PermissionEvent;
use ward_store::{Bus, Event};

/// The bus event for a permission event.
pub(crate) fn permission_event(event: &PermissionEvent) -> Event {
    match event.clone() {
        PermissionEvent::Asked { id, request } => Event::PermissionAsked {
            id,
            request: *request,
        },
        PermissionEvent::Replied {
            session_id,
            id,
            reply,
        } => Event::PermissionReplied {
            session_id,
            id,
            reply,
        },
    }
}

/// The bus event for a plugin event.
pub(crate) fn plugin_event(event: &PluginEvent) -> Event {
    match event.clone() {
        PluginEvent::Loaded { plugin } => Event::PluginLoaded { plugin },
        PluginEvent::Failed { plugin, reason } => Event::PluginFailed { plugin, reason },
        PluginEvent::Denied(entry) => Event::PluginDenied {
            plugin: entry.plugin,
            capability: entry.capability,
            target: entry.target,
            reason: entry.reason,
        },
    }
}

/// A plugin host's sink publishing on `bus`.
pub(crate) fn plugin_sink(bus: &Bus) -> EventSink {
    let bus = bus.clone();
    EventSink(Arc::new(move |event| bus.publish(plugin_event(event))))
}
