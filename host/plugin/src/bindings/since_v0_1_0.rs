//! `ward:plugin@0.1.0`, frozen: what components built before typed host errors see.
//!
//! Its `types` interface is the latest's word for word, so it is mapped onto the
//! latest's types (`with`) and tool calls need no conversion. Its `host` imports run
//! the same host code as every version and give the plugin the error's message, the
//! bare string 0.1.0 promised (exactly what it got before 0.2.0 existed). The types its
//! `hooks`, `agent` and `skill` interfaces define are converted to and from the
//! host's (`From`, below), field for field.

// Generated code: the WIT contract's own comments come through as docs, and the
// scaffolding around them (linkers, indices, constructors) is wasmtime's to document.
#![allow(missing_docs)]

use wasmtime::component::{HasSelf, Linker};

use super::latest;
use crate::state::StoreState;

wasmtime::component::bindgen!({
    path: "../../wit/since_v0.1.0",
    world: "full-plugin",
    imports: { default: async },
    exports: { default: async },
    with: {
        "ward:plugin/types@0.1.0": crate::bindings::since_v0_2_0::ward::plugin::types,
    },
});

use exports::ward::plugin::{agent, hooks, skill};
use ward::plugin::host::{self, ExecOutput, ExecRequest, HttpRequest, HttpResponse, LogLevel};

/// Links the 0.1.0 imports. The `types` interface is mapped onto the latest's, whose
/// linking registers it under the latest's name only: a 0.1.0 component imports it
/// under its own, so that (types only, nothing to implement) is opened here too.
pub(super) fn add_to_linker(linker: &mut Linker<StoreState>) -> wasmtime::Result<()> {
    FullPlugin::add_to_linker::<StoreState, HasSelf<StoreState>>(linker, |s| s)?;
    linker.instance("ward:plugin/types@0.1.0")?;
    Ok(())
}

impl host::Host for StoreState {
    async fn log(&mut self, level: LogLevel, message: String) {
        self.host_log(level.into(), message);
    }

    async fn progress(&mut self, title: Option<String>, metadata: String) {
        self.host_progress(title, metadata);
    }

    async fn ask(
        &mut self,
        permission: String,
        patterns: Vec<String>,
        metadata: String,
    ) -> Result<(), String> {
        // 0.1.0 has no cases: the message is all it ever got.
        self.host_ask(permission, patterns, metadata)
            .await
            .map_err(|e| e.to_string())
    }

    async fn exec(&mut self, request: ExecRequest) -> Result<ExecOutput, String> {
        match self.host_exec(request.into()).await {
            Ok(out) => Ok(out.into()),
            Err(e) => Err(e.to_string()),
        }
    }

    async fn http_fetch(&mut self, request: HttpRequest) -> Result<HttpResponse, String> {
        match self.host_http_fetch(request.into()).await {
            Ok(out) => Ok(out.into()),
            Err(e) => Err(e.to_string()),
        }
    }
}

impl From<LogLevel> for latest::ward::plugin::host::LogLevel {
    fn from(level: LogLevel) -> Self {
        match level {
            LogLevel::Trace => Self::Trace,
            LogLevel::Debug => Self::Debug,
            LogLevel::Info => Self::Info,
            LogLevel::Warn => Self::Warn,
            LogLevel::Error => Self::Error,
        }
    }
}

impl From<ExecRequest> for latest::ward::plugin::host::ExecRequest {
    fn from(r: ExecRequest) -> Self {
        Self {
            command: r.command,
            workdir: r.workdir,
            timeout_ms: r.timeout_ms,
            stdin: r.stdin,
            env: r.env,
        }
    }
}

impl From<latest::ward::plugin::host::ExecOutput> for ExecOutput {
    fn from(o: latest::ward::plugin::host::ExecOutput) -> Self {
        ExecOutput {
            exit_code: o.exit_code,
            stdout: o.stdout,
            stderr: o.stderr,
            timed_out: o.timed_out,
            truncated: o.truncated,
        }
    }
}

impl From<HttpRequest> for latest::ward::plugin::host::HttpRequest {
    fn from(r: HttpRequest) -> Self {
        Self {
            method: r.method,
            url: r.url,
            headers: r.headers,
            body: r.body,
            timeout_ms: r.timeout_ms,
            max_bytes: r.max_bytes,
        }
    }
}

impl From<latest::ward::plugin::host::HttpResponse> for HttpResponse {
    fn from(r: latest::ward::plugin::host::HttpResponse) -> Self {
        HttpResponse {
            status: r.status,
            url: r.url,
            headers: r.headers,
            body: r.body,
            truncated: r.truncated,
        }
    }
}

// The host's hook types are the latest version's.
use super::hooks as host_hooks;

impl From<hooks::HookPoint> for host_hooks::HookPoint {
    fn from(p: hooks::HookPoint) -> Self {
        use hooks::HookPoint as P;
        match p {
            P::ToolExecuteBefore => Self::ToolExecuteBefore,
            P::ToolExecuteAfter => Self::ToolExecuteAfter,
            P::ChatMessage => Self::ChatMessage,
            P::ChatParams => Self::ChatParams,
            P::PermissionAsk => Self::PermissionAsk,
            P::Event => Self::Event,
            P::SystemTransform => Self::SystemTransform,
            P::SessionCompacting => Self::SessionCompacting,
            P::CommandBefore => Self::CommandBefore,
        }
    }
}

impl From<hooks::Registration> for host_hooks::Registration {
    fn from(r: hooks::Registration) -> Self {
        Self {
            hooks: r.hooks.into_iter().map(Into::into).collect(),
            tools: r.tools,
        }
    }
}

impl From<hooks::BeforeOutcome> for host_hooks::BeforeOutcome {
    fn from(o: hooks::BeforeOutcome) -> Self {
        match o {
            hooks::BeforeOutcome::Proceed => Self::Proceed,
            hooks::BeforeOutcome::Rewrite(args) => Self::Rewrite(args),
            hooks::BeforeOutcome::Block(reason) => Self::Block(reason),
        }
    }
}

impl From<hooks::AfterRewrite> for host_hooks::AfterRewrite {
    fn from(r: hooks::AfterRewrite) -> Self {
        Self {
            title: r.title,
            output: r.output,
            metadata: r.metadata,
        }
    }
}

impl From<hooks::SamplingParams> for host_hooks::SamplingParams {
    fn from(p: hooks::SamplingParams) -> Self {
        Self {
            temperature: p.temperature,
            top_p: p.top_p,
            max_tokens: p.max_tokens,
            options: p.options,
        }
    }
}

impl From<&host_hooks::SamplingParams> for hooks::SamplingParams {
    fn from(p: &host_hooks::SamplingParams) -> Self {
        Self {
            temperature: p.temperature,
            top_p: p.top_p,
            max_tokens: p.max_tokens,
            options: p.options.clone(),
        }
    }
}

impl From<&host_hooks::PermissionRequest> for hooks::PermissionRequest {
    fn from(r: &host_hooks::PermissionRequest) -> Self {
        Self {
            session_id: r.session_id.clone(),
            permission: r.permission.clone(),
            patterns: r.patterns.clone(),
            metadata: r.metadata.clone(),
        }
    }
}

impl From<hooks::CompactingOutcome> for host_hooks::CompactingOutcome {
    fn from(o: hooks::CompactingOutcome) -> Self {
        Self {
            context: o.context,
            prompt: o.prompt,
        }
    }
}

impl From<agent::AgentMode> for super::agent::AgentMode {
    fn from(m: agent::AgentMode) -> Self {
        match m {
            agent::AgentMode::Primary => Self::Primary,
            agent::AgentMode::Subagent => Self::Subagent,
            agent::AgentMode::All => Self::All,
        }
    }
}

impl From<agent::AgentInfo> for super::agent::AgentInfo {
    fn from(a: agent::AgentInfo) -> Self {
        Self {
            name: a.name,
            description: a.description,
            mode: a.mode.into(),
            hidden: a.hidden,
            prompt: a.prompt,
            model: a.model,
            temperature: a.temperature,
            top_p: a.top_p,
            steps: a.steps,
            permission: a.permission,
        }
    }
}

impl From<skill::SkillInfo> for super::skill::SkillInfo {
    fn from(s: skill::SkillInfo) -> Self {
        Self {
            name: s.name,
            description: s.description,
        }
    }
}

impl From<skill::SkillContent> for super::skill::SkillContent {
    fn from(s: skill::SkillContent) -> Self {
        Self {
            content: s.content,
            files: s.files,
        }
    }
}
