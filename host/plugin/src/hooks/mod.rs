//! Hook plugins: which plugins a hook point reaches, and what their answers may change.
//!
//! A hook plugin declares its hooks once (`register`, called when the component loads,
//! its answer cached next to the compiled artifact); the host then calls, in discovery
//! order, every enabled plugin that registered the hook point — for the tool hooks,
//! only when the tool's name matches both a glob the plugin registered and a glob its
//! granted `hooks` capability covers. Every call runs in a fresh store under the
//! plugin's own grants and limits, like a tool call, and its crashes count as strikes
//! against the same [`MAX_STRIKES`](crate::MAX_STRIKES).
//!
//! What an answer may change depends on the capability's mode: a `mutate` plugin may
//! rewrite, block and decide; an `observe` plugin is called all the same, but anything
//! it tries to change is ignored and the attempt written to the audit log.
//!
//! The hook points themselves are in [`tool`] (before and after a tool call),
//! [`chat`] (messages, parameters, permissions, prompts, commands) and [`events`].

mod chat;
mod events;
mod invoke;
mod tool;

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use ward_config::Kind;

use crate::bindings::hooks as wit;
use crate::error::CallError;
use crate::load_error::LoadError;
use crate::meta;
use crate::runtime::{Plugin, PluginHost};
use ward_grants::HookGrant;

pub use chat::HookVerdict;
pub(crate) use events::EventQueues;
pub use tool::HookBlock;
pub use wit::{CompactingOutcome, PermissionRequest, SamplingParams};

/// A point in the agent loop where hooks run (the WIT `hook-point`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HookPoint {
    /// Before a tool runs: may rewrite its arguments or block it.
    ToolExecuteBefore,
    /// After a tool ran: may rewrite its title, output and metadata.
    ToolExecuteAfter,
    /// A user message arrived: may append text parts.
    ChatMessage,
    /// Before a model call: may change the sampling parameters.
    ChatParams,
    /// A permission question is about to be asked: may answer it.
    PermissionAsk,
    /// Any bus event; observe only.
    Event,
    /// Before a model call: may rewrite the system prompt blocks.
    SystemTransform,
    /// Before a compaction: may add context or replace the prompt.
    SessionCompacting,
    /// Before a slash command expands: may replace its arguments.
    CommandBefore,
}

impl HookPoint {
    /// The WIT name, e.g. `tool-execute-before`.
    pub fn as_str(self) -> &'static str {
        match self {
            HookPoint::ToolExecuteBefore => "tool-execute-before",
            HookPoint::ToolExecuteAfter => "tool-execute-after",
            HookPoint::ChatMessage => "chat-message",
            HookPoint::ChatParams => "chat-params",
            HookPoint::PermissionAsk => "permission-ask",
            HookPoint::Event => "event",
            HookPoint::SystemTransform => "system-transform",
            HookPoint::SessionCompacting => "session-compacting",
            HookPoint::CommandBefore => "command-before",
        }
    }

    /// Whether the hook is about one tool call, so tool globs apply to it.
    pub fn is_tool_hook(self) -> bool {
        matches!(
            self,
            HookPoint::ToolExecuteBefore | HookPoint::ToolExecuteAfter
        )
    }
}

impl std::fmt::Display for HookPoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<wit::HookPoint> for HookPoint {
    fn from(p: wit::HookPoint) -> Self {
        match p {
            wit::HookPoint::ToolExecuteBefore => HookPoint::ToolExecuteBefore,
            wit::HookPoint::ToolExecuteAfter => HookPoint::ToolExecuteAfter,
            wit::HookPoint::ChatMessage => HookPoint::ChatMessage,
            wit::HookPoint::ChatParams => HookPoint::ChatParams,
            wit::HookPoint::PermissionAsk => HookPoint::PermissionAsk,
            wit::HookPoint::Event => HookPoint::Event,
            wit::HookPoint::SystemTransform => HookPoint::SystemTransform,
            wit::HookPoint::SessionCompacting => HookPoint::SessionCompacting,
            wit::HookPoint::CommandBefore => HookPoint::CommandBefore,
        }
    }
}

/// What a hook plugin declared with `register`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookRegistration {
    /// The hook points it implements.
    pub hooks: Vec<HookPoint>,
    /// Tool-name globs its tool hooks want (`*` for all); an empty list means none.
    pub tools: Vec<String>,
}

impl HookRegistration {
    /// Whether the plugin wants `point` — for a tool hook, for `tool`.
    pub fn wants(&self, point: HookPoint, tool: Option<&str>) -> bool {
        if !self.hooks.contains(&point) {
            return false;
        }
        match tool {
            Some(tool) if point.is_tool_hook() => self
                .tools
                .iter()
                .any(|glob| ward_permission::wildcard::matches(glob, tool)),
            _ => true,
        }
    }
}

impl From<wit::Registration> for HookRegistration {
    fn from(r: wit::Registration) -> Self {
        let mut hooks: Vec<HookPoint> = Vec::new();
        for point in r.hooks.into_iter().map(HookPoint::from) {
            if !hooks.contains(&point) {
                hooks.push(point);
            }
        }
        HookRegistration {
            hooks,
            tools: r.tools,
        }
    }
}

/// A plugin a hook point reaches, with the hook rights it was granted. `failed` is set
/// when its registration could not be read, so the caller can fail closed.
pub(crate) struct Subscriber {
    plugin: Arc<Plugin>,
    grant: HookGrant,
    failed: Option<LoadError>,
}

impl PluginHost {
    /// The hooks `plugin` registered: from memory, else the cache, else by loading it
    /// (which calls `register`, once per process). Plugins that are not hook plugins
    /// register nothing.
    pub async fn hooks_of<'p>(
        &self,
        plugin: &'p Plugin,
    ) -> Result<&'p HookRegistration, CallError> {
        self.registration(plugin)
            .await
            .map_err(|reason| CallError::Load {
                plugin: plugin.name().to_string(),
                reason,
            })
    }

    /// [`PluginHost::hooks_of`], with the reason alone when it cannot be read.
    async fn registration<'p>(
        &self,
        plugin: &'p Plugin,
    ) -> Result<&'p HookRegistration, LoadError> {
        if !plugin.is(Kind::Hook) {
            return Ok(plugin.registration.get_or_init(HookRegistration::default));
        }
        if let Some(r) = plugin.registration.get() {
            return Ok(r);
        }
        let registration = match meta::hooks(self.cache.as_ref(), plugin) {
            Some(r) => r,
            None => self.loaded(plugin).await?.registration.clone(),
        };
        Ok(plugin.registration.get_or_init(|| registration))
    }

    /// The plugins `point` reaches (for `tool`, when a tool hook), in discovery order.
    ///
    /// A plugin whose registration cannot be read is included, marked failed, only for
    /// `tool-execute-before` — where a guard that cannot run must stop the call — and
    /// only when its capability covers the tool; elsewhere it is skipped.
    pub(crate) async fn subscribers(
        &self,
        point: HookPoint,
        tool: Option<&str>,
    ) -> Vec<Subscriber> {
        let mut out = Vec::new();
        for plugin in self.plugins() {
            if !plugin.is(Kind::Hook) || plugin.disabled_reason().is_some() {
                continue;
            }
            let Some(grant) = &plugin.effective.hooks else {
                continue;
            };
            if let Some(tool) = tool
                && point.is_tool_hook()
                && !grant.covers(tool)
            {
                continue;
            }
            let (wanted, failed) = match self.registration(plugin).await {
                Ok(r) => (r.wants(point, tool), None),
                Err(e) if point == HookPoint::ToolExecuteBefore => (true, Some(e)),
                Err(e) => {
                    tracing::debug!(plugin = plugin.name(), "hook {point} skipped: {e}");
                    (false, None)
                }
            };
            if wanted {
                out.push(Subscriber {
                    plugin: plugin.clone(),
                    grant: grant.clone(),
                    failed,
                });
            }
        }
        out
    }

    /// Whether `sub`'s attempt to change something takes effect: yes in mutate mode
    /// (audited as allowed), no in observe mode (audited as refused, and ignored).
    /// `target` names what it touched (a tool, a session); `what` the change.
    pub(crate) fn may_change(
        &self,
        sub: &Subscriber,
        point: HookPoint,
        target: &str,
        what: &str,
    ) -> bool {
        let name = sub.plugin.name();
        let target = format!("{point} {target}");
        if sub.grant.may_mutate() {
            self.audit().allow(name, "hooks", &target, what);
            true
        } else {
            let reason = format!("observe-only hook plugin {what}; ignored");
            self.audit().deny(name, "hooks", &target, &reason);
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registration_globs_apply_to_tool_hooks_only() {
        let r = HookRegistration {
            hooks: vec![HookPoint::ToolExecuteBefore, HookPoint::ChatParams],
            tools: vec!["bash".into(), "web*".into()],
        };
        assert!(r.wants(HookPoint::ToolExecuteBefore, Some("bash")));
        assert!(r.wants(HookPoint::ToolExecuteBefore, Some("webfetch")));
        assert!(!r.wants(HookPoint::ToolExecuteBefore, Some("read")));
        assert!(
            !r.wants(HookPoint::ToolExecuteAfter, Some("bash")),
            "not registered"
        );
        assert!(r.wants(HookPoint::ChatParams, None));
        let none = HookRegistration {
            hooks: vec![HookPoint::ToolExecuteBefore],
            tools: vec![],
        };
        assert!(!none.wants(HookPoint::ToolExecuteBefore, Some("bash")));
    }

    #[test]
    fn hook_points_use_their_wit_names() {
        let json = serde_json::to_string(&HookPoint::ToolExecuteBefore).unwrap_or_default();
        assert_eq!(json, "\"tool-execute-before\"");
        assert_eq!(HookPoint::CommandBefore.to_string(), "command-before");
        assert!(HookPoint::ToolExecuteAfter.is_tool_hook());
        assert!(!HookPoint::Event.is_tool_hook());
    }
}
