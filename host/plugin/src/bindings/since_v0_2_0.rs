//! `ward:plugin@0.2.0`, the latest version: its generated types are the host's own,
//! and its `host` imports hand the host's typed [`HostError`] over case for case.

// Generated code: the WIT contract's own comments come through as docs, and the
// scaffolding around them (linkers, indices, constructors) is wasmtime's to document.
#![allow(missing_docs)]

use crate::host_error::HostError;
use crate::state::StoreState;

wasmtime::component::bindgen!({
    path: "../../wit/since_v0.2.0",
    world: "full-plugin",
    imports: { default: async },
    exports: { default: async },
});

use ward::plugin::host::{self, ExecOutput, ExecRequest, HttpRequest, HttpResponse, LogLevel};
use ward::plugin::types;

impl types::Host for StoreState {}

impl From<HostError> for types::HostError {
    fn from(e: HostError) -> Self {
        match e {
            HostError::Denied(m) => types::HostError::Denied(m),
            HostError::Invalid(m) => types::HostError::Invalid(m),
            HostError::Failed(m) => types::HostError::Failed(m),
            HostError::Timeout(m) => types::HostError::Timeout(m),
        }
    }
}

impl host::Host for StoreState {
    async fn log(&mut self, level: LogLevel, message: String) {
        self.host_log(level, message);
    }

    async fn progress(&mut self, title: Option<String>, metadata: String) {
        self.host_progress(title, metadata);
    }

    async fn ask(
        &mut self,
        permission: String,
        patterns: Vec<String>,
        metadata: String,
    ) -> Result<(), types::HostError> {
        self.host_ask(permission, patterns, metadata)
            .await
            .map_err(Into::into)
    }

    async fn exec(&mut self, request: ExecRequest) -> Result<ExecOutput, types::HostError> {
        self.host_exec(request).await.map_err(Into::into)
    }

    async fn http_fetch(&mut self, request: HttpRequest) -> Result<HttpResponse, types::HostError> {
        self.host_http_fetch(request).await.map_err(Into::into)
    }
}
