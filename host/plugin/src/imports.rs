//! The `ward:plugin/host` imports, as the sandbox sees them. Each checks the plugin's
//! effective capabilities first and the session's permission rules second; every
//! refusal is audited and returned to the plugin as an error string, never a trap.
//! `ask` may only ask about what is the plugin's own ([`crate::asks`]).

use crate::bindings::host::{self, ExecOutput, ExecRequest, HttpRequest, HttpResponse, LogLevel};
use crate::bindings::ward::plugin::types;
use crate::state::StoreState;

impl types::Host for StoreState {}

impl host::Host for StoreState {
    async fn log(&mut self, level: LogLevel, message: String) {
        // Cut and counted per call: see `crate::budget`.
        self.log.write(level, &message);
    }

    async fn progress(&mut self, title: Option<String>, metadata: String) {
        // Capped and coalesced per call: see `crate::budget`.
        self.progress.send(title, metadata);
    }

    async fn ask(
        &mut self,
        permission: String,
        patterns: Vec<String>,
        metadata: String,
    ) -> Result<(), String> {
        let env = self.env.clone();
        let target = patterns.join(" ");
        // Only about what is the plugin's own; the question then names it, and an
        // "always" answer is stored for it alone.
        if let Err(e) =
            crate::asks::may_ask(&env.plugin, &env.caps, &env.tools, &permission, &patterns)
        {
            env.audit.deny(&env.plugin, &permission, &target, &e);
            return Err(e);
        }
        let outcome = env
            .check(
                &permission,
                patterns.clone(),
                patterns.clone(),
                serde_json::from_str(&metadata).unwrap_or(serde_json::Value::Null),
            )
            .await
            .map_err(|e| e.to_string());
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
