//! The bridge from the permission engine to the plugins' `permission.ask` hooks: every
//! question the rules leave to the user is first put to the hook plugins, which may
//! allow or deny it (a deny from any of them wins) or leave it to the user.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;

use ward_permission::protected::marks_config_change;
use ward_permission::{AskHook, AskRequest, HookAnswer};
use ward_plugin::{CallScope, HookVerdict, PermissionRequest, PluginHost};

/// Asks the hook plugins of `host` first.
pub struct PluginAskHook {
    host: Arc<PluginHost>,
    project: PathBuf,
}

impl PluginAskHook {
    /// A hook over `host`'s plugins for `project`.
    pub fn new(host: Arc<PluginHost>, project: PathBuf) -> Self {
        PluginAskHook { host, project }
    }
}

impl AskHook for PluginAskHook {
    fn decide<'a>(
        &'a self,
        request: &'a AskRequest,
    ) -> Pin<Box<dyn Future<Output = HookAnswer> + Send + 'a>> {
        Box::pin(async move {
            // The hook decides on the question; anything it asks in turn is denied,
            // so a hook can never recurse into another question.
            let mut scope = CallScope::detached(&self.project);
            scope.session_id = request.session_id.clone();
            scope.agent = request.agent.clone();
            let question = PermissionRequest {
                session_id: request.session_id.clone(),
                permission: request.permission.clone(),
                patterns: request.patterns.clone(),
                metadata: request.metadata.to_string(),
            };
            match self.host.permission_ask(&question, &scope).await {
                // A change to Ward's configuration is a person's to allow, never a hook's.
                Some(HookVerdict::Allow { .. }) if marks_config_change(&request.metadata) => {
                    HookAnswer::Ask
                }
                Some(HookVerdict::Allow { .. }) => HookAnswer::Allow,
                Some(HookVerdict::Deny { plugin }) => HookAnswer::Deny { by: plugin },
                None => HookAnswer::Ask,
            }
        })
    }
}
