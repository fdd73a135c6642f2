//! The `ward:plugin/host` imports, as the sandbox sees them. Each checks the plugin's
//! effective capabilities first and the session's permission rules second; every
//! refusal is audited and returned to the plugin as an error string, never a trap.

use ward_permission::AskRequest;

use crate::bindings::host::{self, ExecOutput, ExecRequest, HttpRequest, HttpResponse, LogLevel};
use crate::bindings::ward::plugin::types;
use crate::state::StoreState;

impl types::Host for StoreState {}

impl host::Host for StoreState {
    async fn log(&mut self, level: LogLevel, message: String) {
        let plugin = self.env.plugin.as_str();
        match level {
            LogLevel::Trace => tracing::trace!(plugin, "{message}"),
            LogLevel::Debug => tracing::debug!(plugin, "{message}"),
            LogLevel::Info => tracing::info!(plugin, "{message}"),
            LogLevel::Warn => tracing::warn!(plugin, "{message}"),
            LogLevel::Error => tracing::error!(plugin, "{message}"),
        }
    }

    async fn progress(&mut self, title: Option<String>, metadata: String) {
        if let Some(sink) = &self.env.scope.progress {
            sink(title, metadata);
        }
    }

    async fn ask(
        &mut self,
        permission: String,
        patterns: Vec<String>,
        metadata: String,
    ) -> Result<(), String> {
        let env = self.env.clone();
        let request = AskRequest {
            session_id: env.scope.session_id.clone(),
            project: env.scope.project.to_string_lossy().into_owned(),
            agent: env.scope.agent.clone(),
            permission: permission.clone(),
            always: patterns.clone(),
            patterns: patterns.clone(),
            metadata: serde_json::from_str(&metadata).unwrap_or(serde_json::Value::Null),
            call_id: Some(env.scope.call_id.clone()).filter(|c| !c.is_empty()),
        };
        let outcome = env
            .scope
            .permissions
            .check(request, &env.scope.rules)
            .await
            .map_err(|e| e.to_string());
        let target = patterns.join(" ");
        match &outcome {
            Ok(()) => {
                // The plugin asked this itself (e.g. `edit` with the diff): its own file
                // accesses for the same need are not asked about again in this call.
                if let Ok(mut approved) = env.scope.approved.lock() {
                    approved.extend(patterns.iter().map(|p| (permission.clone(), p.clone())));
                }
                env.audit.allow(&env.plugin, &permission, &target, "ask")
            }
            Err(e) => env.audit.deny(&env.plugin, &permission, &target, e),
        }
        outcome
    }

    async fn exec(&mut self, request: ExecRequest) -> Result<ExecOutput, String> {
        crate::exec::run(self.env.clone(), request).await
    }

    async fn http_fetch(&mut self, request: HttpRequest) -> Result<HttpResponse, String> {
        crate::net::fetch(self.env.clone(), request).await
    }
}
