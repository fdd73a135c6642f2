//! The `ward:plugin/host` imports, as the sandbox sees them, once for every API
//! version: each version's bindings ([`crate::bindings`]) call these and convert.
//! Each checks the plugin's effective capabilities first and the session's permission
//! rules second; every refusal is audited and returned to the plugin as a typed
//! [`HostError`], never a trap. `ask` may only ask about what is the plugin's own
//! ([`crate::asks`]).

use crate::bindings::host::{ExecOutput, ExecRequest, HttpRequest, HttpResponse, LogLevel};
use crate::host_error::HostError;
use crate::state::StoreState;

impl StoreState {
    /// `log`: a line in Ward's log, attributed to the plugin.
    pub(crate) fn host_log(&mut self, level: LogLevel, message: String) {
        // Cut and counted per call: see `crate::budget`.
        self.log.write(level, &message);
    }

    /// `progress`: the running tool call's live title and metadata.
    pub(crate) fn host_progress(&mut self, title: Option<String>, metadata: String) {
        // Capped and coalesced per call: see `crate::budget`.
        self.progress.send(title, metadata);
    }

    /// `ask`: a question of the plugin's own to the permission rules (and the user).
    pub(crate) async fn host_ask(
        &mut self,
        permission: String,
        patterns: Vec<String>,
        metadata: String,
    ) -> Result<(), HostError> {
        let env = self.env.clone();
        let target = patterns.join(" ");
        // Only about what is the plugin's own; the question then names it, and an
        // "always" answer is stored for it alone.
        if let Err(e) =
            crate::asks::may_ask(&env.plugin, &env.caps, &env.tools, &permission, &patterns)
        {
            env.audit
                .deny(&env.plugin, &permission, &target, &e.to_string());
            return Err(e.into());
        }
        let outcome = env
            .check(
                &permission,
                patterns.clone(),
                patterns.clone(),
                serde_json::from_str(&metadata).unwrap_or(serde_json::Value::Null),
            )
            .await
            .map_err(HostError::from);
        match &outcome {
            // `check` remembers the approval, so the plugin's own file accesses for the
            // same need (e.g. the write after an `edit` ask with the diff) are not asked
            // about again in this call.
            Ok(()) => env.audit.allow(&env.plugin, &permission, &target, "ask"),
            Err(e) => env
                .audit
                .deny(&env.plugin, &permission, &target, &e.to_string()),
        }
        outcome
    }

    /// `exec`: a process on the host ([`crate::exec`]).
    pub(crate) async fn host_exec(
        &mut self,
        request: ExecRequest,
    ) -> Result<ExecOutput, HostError> {
        crate::exec::run(self.env.clone(), request).await
    }

    /// `http-fetch`: outgoing HTTP ([`crate::net`]).
    pub(crate) async fn host_http_fetch(
        &mut self,
        request: HttpRequest,
    ) -> Result<HttpResponse, HostError> {
        crate::net::fetch(self.env.clone(), request).await
    }
}
