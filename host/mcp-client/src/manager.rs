//! Every configured server of a project: started together in the background, never
//! holding up Ward's start; their tools awaited (each within its own timeout) when a
//! tool list is first needed, and offered as a [`ToolSource`].
//!
//! Two servers can offer tools under one name (server `a_b`'s tool `c` and server
//! `a`'s tool `b_c` are both `a_b_c`; names are compared ignoring ASCII case, as a
//! model's call is matched). Such a name is offered by neither — whichever won, a
//! call meant for one would reach the other — and each server involved is reported:
//! among the warnings and in its problems.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use futures_util::future::join_all;
use ward_config::McpConfig;
use ward_sandbox::Launcher;
use ward_session::ToolSource;
use ward_session::tools::HostTool;

use crate::server::{Server, ServerStatus};

/// What starting servers takes besides their configuration.
#[derive(Clone)]
pub struct McpContext {
    /// The project (a local server's working directory, and what it may write).
    pub project: PathBuf,
    /// Paths every confined process keeps read-only (Ward's configuration and state).
    pub protected: Vec<PathBuf>,
    /// Where confined processes are started (`None`: local servers cannot start).
    pub launcher: Option<Arc<Launcher>>,
    /// The HTTP client remote servers are reached with (`None`: it could not be
    /// built, and remote servers fail to start saying so).
    pub http: Option<reqwest::Client>,
}

impl McpContext {
    /// The context for `project` (its HTTP client is built by [`McpClients::new`] when
    /// a remote server needs one: a TLS setup costs start-up time otherwise spent for
    /// nothing).
    pub fn new(
        project: PathBuf,
        protected: Vec<PathBuf>,
        launcher: Option<Arc<Launcher>>,
    ) -> McpContext {
        McpContext {
            project,
            protected,
            launcher,
            http: None,
        }
    }
}

/// The project's MCP servers.
pub struct McpClients {
    servers: Vec<Arc<Server>>,
    ctx: Arc<McpContext>,
    /// Failures and collisions already reported (server names, colliding names).
    reported: std::sync::Mutex<Vec<String>>,
}

/// One tool offered under a name another server's tool also takes.
struct Claim {
    server: String,
    tool: String,
}

impl McpClients {
    /// The servers `configs` describe (none started yet).
    pub fn new(configs: &BTreeMap<String, McpConfig>, mut ctx: McpContext) -> Arc<McpClients> {
        let remote = configs
            .values()
            .any(|c| c.enabled && matches!(c.server, ward_config::McpServer::Remote { .. }));
        if remote && ctx.http.is_none() {
            ctx.http = reqwest::Client::builder().build().ok();
        }
        Arc::new(McpClients {
            servers: configs
                .iter()
                .map(|(name, config)| Arc::new(Server::new(name.clone(), config.clone())))
                .collect(),
            ctx: Arc::new(ctx),
            reported: std::sync::Mutex::new(Vec::new()),
        })
    }

    /// The names (lowercased) more than one server's tools are offered under, with
    /// every tool that claims each.
    fn collisions(&self) -> BTreeMap<String, Vec<Claim>> {
        let mut claims: BTreeMap<String, Vec<Claim>> = BTreeMap::new();
        for server in &self.servers {
            for tool in server.tools() {
                claims
                    .entry(tool.offered_name().to_ascii_lowercase())
                    .or_default()
                    .push(Claim {
                        server: server.name().to_string(),
                        tool: tool.remote_name().to_string(),
                    });
            }
        }
        claims.retain(|_, c| c.iter().any(|x| x.server != c[0].server));
        claims
    }

    /// The warning for the name `name` the tools `claims` collide on.
    fn collision_warning(name: &str, claims: &[Claim]) -> String {
        let who: Vec<String> = claims
            .iter()
            .map(|c| {
                format!(
                    "server `{}` (its tool `{}`)",
                    crate::names::sanitize(&c.server),
                    crate::names::sanitize(&c.tool)
                )
            })
            .collect();
        format!(
            "MCP tool name `{name}` is taken by more than one server: {}; neither is offered under it (rename a server to tell them apart)",
            who.join(" and ")
        )
    }

    /// A warning for each name two servers' tools collide on.
    fn collision_warnings(&self) -> Vec<(String, String)> {
        self.collisions()
            .iter()
            .map(|(name, claims)| (name.clone(), Self::collision_warning(name, claims)))
            .collect()
    }

    /// Whether no server is configured.
    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }

    /// Starts every enabled server on a task of its own and returns at once.
    pub fn start(&self) {
        for server in self.servers.iter().filter(|s| s.enabled()) {
            let (server, ctx) = (server.clone(), self.ctx.clone());
            tokio::spawn(async move {
                if let Err(e) = server.ready(&ctx).await {
                    tracing::debug!("{e}");
                }
            });
        }
    }

    /// Waits until every enabled server has started or failed (each within its own
    /// timeout, all at once); returns the failures, and the tool names servers collide
    /// on, as messages.
    pub async fn ready(&self) -> Vec<String> {
        let starts = self
            .servers
            .iter()
            .filter(|s| s.enabled())
            .map(|s| s.ready(&self.ctx));
        let mut out: Vec<String> = join_all(starts)
            .await
            .into_iter()
            .filter_map(Result::err)
            .map(|e| e.to_string())
            .collect();
        out.extend(self.collision_warnings().into_iter().map(|(_, w)| w));
        out
    }

    /// Why each server that failed did, for those not asked about before, and each
    /// tool name servers collide on not reported before (a frontend reports each
    /// once; a collision can appear when a server's tools change).
    pub fn unreported_failures(&self) -> Vec<String> {
        let statuses = self.statuses();
        let collisions = self.collision_warnings();
        let Ok(mut reported) = self.reported.lock() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for status in statuses {
            if let crate::Status::Failed(reason) = status.status
                && !reported.contains(&status.name)
            {
                reported.push(status.name.clone());
                out.push(reason);
            }
        }
        for (name, warning) in collisions {
            // Kept apart from server names, which cannot contain a space.
            let key = format!("tool name {name}");
            if !reported.contains(&key) {
                reported.push(key);
                out.push(warning);
            }
        }
        out
    }

    /// Every server's prompts, as commands: (`SERVER:PROMPT`, description).
    pub fn prompts(&self) -> Vec<(String, String)> {
        self.servers
            .iter()
            .flat_map(|s| s.prompts())
            .map(|p| (p.command, p.description))
            .collect()
    }

    /// `input` expanded when it is `/SERVER:PROMPT args` naming a server's prompt:
    /// the prompt's text, or why it could not be had; `None` for anything else.
    pub async fn expand_prompt(&self, input: &str) -> Option<Result<String, crate::McpError>> {
        let rest = input.trim_start().strip_prefix('/')?;
        let (name, arguments) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        for server in &self.servers {
            if let Some(prompt) = server.prompts().into_iter().find(|p| p.command == name) {
                return Some(server.get_prompt(&prompt, arguments).await);
            }
        }
        None
    }

    /// What an `@SERVER:URI` mention attaches: the resource's text, or why it could not
    /// be read; `None` when `mention` names no configured server's resource.
    pub async fn read_mention(&self, mention: &str) -> Option<Result<String, crate::McpError>> {
        let (server, uri) = mention.split_once(':')?;
        if !uri.contains("://") {
            return None;
        }
        let server = self
            .servers
            .iter()
            .find(|s| s.enabled() && crate::names::sanitize(s.name()) == server)?;
        Some(server.read_resource(uri).await)
    }

    /// Each server's status, by name: its tools as offered (without those whose name
    /// another server's tool takes too, each of which is among its problems).
    pub fn statuses(&self) -> Vec<ServerStatus> {
        let collisions = self.collisions();
        self.servers
            .iter()
            .map(|s| {
                let mut status = s.status();
                status
                    .tools
                    .retain(|(name, _)| !collisions.contains_key(&name.to_ascii_lowercase()));
                for (name, claims) in &collisions {
                    if claims.iter().any(|c| c.server == status.name) {
                        status.problems.push(Self::collision_warning(name, claims));
                    }
                }
                status
            })
            .collect()
    }
}

impl ToolSource for McpClients {
    fn tools(&self) -> Vec<Arc<dyn HostTool>> {
        let collisions = self.collisions();
        self.servers
            .iter()
            .flat_map(|s| s.tools())
            .filter(|t| !collisions.contains_key(&t.offered_name().to_ascii_lowercase()))
            .map(|t| t as Arc<dyn HostTool>)
            .collect()
    }
}
