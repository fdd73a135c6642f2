//! One tool called by name outside a session's loop, for `ward tool call` and
//! `ward mcp serve`: the agent's tool box and rules, the engine's one permission
//! engine (so a question is answered with [`Engine::reply`] like any other, and an
//! "always" is remembered where the loop finds it), and the same path a loop's call
//! takes — name repair, argument checks, rules, hooks, the sandboxed call.

use std::sync::Arc;

use ward_permission::Ruleset;
use ward_plugin::CallScope;
use ward_protocol::{ToolFailure, ToolOutput, ToolSummary};
use ward_session::{ToolBox, ToolCallError};

use crate::Engine;
use crate::error::{AgentError, EngineError};
use crate::offers::summary;

/// An agent's tools, ready to be called one at a time. Cheap to share behind an `Arc`.
pub struct DirectCalls {
    engine: Engine,
    tools: ToolBox,
    rules: Arc<Vec<Ruleset>>,
    agent: String,
    summaries: Vec<ToolSummary>,
}

/// Which call a direct call is, for the permission engine: a rejection cascades to
/// the other questions of the same `session`, never to another's.
#[derive(Clone, Debug, Default)]
pub struct CallIds {
    /// The session the call counts as (`ward mcp serve` gives each call its own).
    pub session: String,
    /// The call's id, carried by its questions.
    pub call: String,
}

impl Engine {
    /// The tools agent `agent` may call, under its rules, with the warnings of the
    /// plugins and MCP servers that failed to load.
    pub async fn direct_calls(
        &self,
        agent: &str,
    ) -> Result<(DirectCalls, Vec<String>), EngineError> {
        let ws = &self.shared.ws;
        let info = ws.agents.get(agent).ok_or_else(|| AgentError::Unknown {
            name: agent.to_string(),
            primary: ws
                .agents
                .list()
                .filter(|a| a.is_primary() && !a.hidden)
                .map(|a| a.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })?;
        let rules = ws.rules_for(info);
        let (tools, warnings) = ws.tool_box(&rules).await;
        let (all, _) = ws.host.all_tools().await;
        let summaries = tools
            .specs()
            .into_iter()
            .map(|spec| {
                let plugin = all.iter().find(|(_, tool)| tool.name == spec.name);
                let traits = tools.traits(&spec.name);
                let plugin = plugin.map(|(p, _)| p.as_ref());
                summary(spec.name, spec.description, spec.parameters, plugin, traits)
            })
            .collect();
        let calls = DirectCalls {
            engine: self.clone(),
            tools,
            rules,
            agent: info.name.clone(),
            summaries,
        };
        Ok((calls, warnings))
    }
}

impl DirectCalls {
    /// The tools on offer, in the tool box's order.
    pub fn tools(&self) -> &[ToolSummary] {
        &self.summaries
    }

    /// The agent the calls run as.
    pub fn agent(&self) -> &str {
        &self.agent
    }

    /// Calls `name` with `arguments` (a JSON object, as text). Its questions are
    /// published on the engine's bus and answered with [`Engine::reply`].
    pub async fn call(
        &self,
        name: &str,
        arguments: &str,
        ids: CallIds,
    ) -> Result<ToolOutput, ToolFailure> {
        let scope = CallScope {
            session_id: ids.session,
            message_id: String::new(),
            call_id: ids.call,
            agent: self.agent.clone(),
            project: self.engine.project_root().to_path_buf(),
            rules: self.rules.clone(),
            permissions: self.engine.shared.permissions.clone(),
            progress: None,
            approved: Default::default(),
        };
        match self.tools.execute(name, arguments, scope, &[]).await {
            Ok(done) => Ok(ToolOutput {
                title: done.title,
                output: done.output,
                metadata: done.metadata,
            }),
            Err(ToolCallError::Rejected { feedback, message }) => {
                Err(ToolFailure::Rejected { feedback, message })
            }
            Err(e @ ToolCallError::RespondToModel(_)) => Err(ToolFailure::Failed(e.to_string())),
        }
    }
}
