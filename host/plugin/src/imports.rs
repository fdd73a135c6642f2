//! The `ward:plugin/host` imports, as the sandbox sees them. Each checks the plugin's
//! effective capabilities first and the session's permission rules second; every
//! refusal is audited and returned to the plugin as an error string, never a trap.

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
        let outcome = env
            .scope
            .check(
                &permission,
                patterns.clone(),
                patterns.clone(),
                serde_json::from_str(&metadata).unwrap_or(serde_json::Value::Null),
            )
            .await
            .map_err(|e| e.to_string());
        let target = patterns.join(" ");
        match &outcome {
            // `check` remembers the approval, so the plugin's own file accesses for the
            // same need (e.g. the write after an `edit` ask with the diff) are not asked
            // about again in this call.
            Ok(()) => env.audit.allow(&env.plugin, &permission, &target, "ask"),
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
