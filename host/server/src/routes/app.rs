//! What the project offers: health, configuration, providers and models, agents,
//! commands.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::App;
use crate::error::ApiError;

/// `GET /global/health`.
#[derive(Serialize, ToSchema)]
pub struct Health {
    /// Always `true` when it answers.
    healthy: bool,
    /// Ward's version.
    version: String,
}

/// Whether the server answers (no token needed).
#[utoipa::path(get, path = "/global/health", tag = "global",
    responses((status = 200, body = Health)))]
pub async fn health() -> Json<Health> {
    Json(Health {
        healthy: true,
        version: crate::VERSION.to_string(),
    })
}

/// The merged configuration with every secret — API keys, header and MCP
/// environment values, whatever `{env:…}`/`{file:…}` substitution wrote, URL
/// credentials — replaced by `***` (strings stay strings: the shape is the same).
#[utoipa::path(get, path = "/config", tag = "config",
    responses((status = 200, description = "The configuration", body = Object)))]
pub async fn config(State(app): State<App>) -> Result<Json<Value>, ApiError> {
    app.engine
        .config_json()
        .map(Json)
        .map_err(|e| ApiError::internal(e.to_string()))
}

/// A provider (OpenCode's `Provider`).
#[derive(Serialize, ToSchema)]
pub struct ProviderOut {
    /// Its id.
    id: String,
    /// Its name.
    name: String,
    /// The environment variables its key is read from.
    env: Vec<String>,
    /// Its models, by id.
    models: BTreeMap<String, ModelOut>,
}

/// A model of a provider.
#[derive(Serialize, ToSchema)]
pub struct ModelOut {
    /// Its id.
    id: String,
    /// Its name.
    name: String,
    /// Its limits in tokens (0: unknown).
    limit: ModelLimit,
    /// Dollars per million tokens.
    cost: ModelCost,
}

/// A model's limits.
#[derive(Serialize, ToSchema)]
pub struct ModelLimit {
    /// The context window.
    context: u64,
    /// The most output tokens.
    output: u64,
}

/// A model's prices.
#[derive(Serialize, ToSchema)]
pub struct ModelCost {
    /// Per million input tokens.
    input: f64,
    /// Per million output tokens.
    output: f64,
}

/// `GET /config/providers`.
#[derive(Serialize, ToSchema)]
pub struct Providers {
    /// The providers that can be called (a key is set, or none is needed).
    providers: Vec<ProviderOut>,
    /// The default model of each provider listed, by provider id.
    default: BTreeMap<String, String>,
}

/// `GET /provider`.
#[derive(Serialize, ToSchema)]
pub struct ProviderList {
    /// Every provider Ward knows.
    all: Vec<ProviderOut>,
    /// The configured model's provider and model.
    default: BTreeMap<String, String>,
    /// The providers that can be called.
    connected: Vec<String>,
}

/// What the registry knows, with which providers are callable.
fn registry(app: &App) -> Result<(Vec<ProviderOut>, Vec<String>), ApiError> {
    let providers = app
        .engine
        .providers()
        .map_err(|e| ApiError::internal(format!("models: {e}")))?;
    let mut all = Vec::new();
    let mut connected = Vec::new();
    for provider in providers {
        if provider.callable {
            connected.push(provider.id.clone());
        }
        all.push(ProviderOut {
            name: provider.id.clone(),
            id: provider.id,
            env: provider.env,
            models: provider
                .models
                .into_iter()
                .map(|m| {
                    let model = ModelOut {
                        id: m.id.clone(),
                        name: m.name,
                        limit: ModelLimit {
                            context: m.context.unwrap_or(0),
                            output: m.output.unwrap_or(0),
                        },
                        cost: ModelCost {
                            input: m.input_price,
                            output: m.output_price,
                        },
                    };
                    (m.id, model)
                })
                .collect(),
        });
    }
    Ok((all, connected))
}

/// The configured default model, as `{provider: model}`.
fn default_model(app: &App) -> BTreeMap<String, String> {
    app.engine
        .default_model()
        .as_deref()
        .and_then(|m| m.split_once('/'))
        .map(|(p, m)| BTreeMap::from([(p.to_string(), m.to_string())]))
        .unwrap_or_default()
}

/// The providers that can be called, with their models.
#[utoipa::path(get, path = "/config/providers", tag = "config",
    responses((status = 200, body = Providers)))]
pub async fn config_providers(State(app): State<App>) -> Result<Json<Providers>, ApiError> {
    let (all, connected) = registry(&app)?;
    Ok(Json(Providers {
        providers: all
            .into_iter()
            .filter(|p| connected.contains(&p.id))
            .collect(),
        default: default_model(&app),
    }))
}

/// Every provider Ward knows, and which can be called.
#[utoipa::path(get, path = "/provider", tag = "provider",
    responses((status = 200, body = ProviderList)))]
pub async fn providers(State(app): State<App>) -> Result<Json<ProviderList>, ApiError> {
    let (all, connected) = registry(&app)?;
    Ok(Json(ProviderList {
        all,
        default: default_model(&app),
        connected,
    }))
}

/// An agent (OpenCode's `Agent`).
#[derive(Serialize, ToSchema)]
pub struct AgentOut {
    /// Its name.
    name: String,
    /// What it is for.
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    /// `primary`, `subagent` or `all`.
    mode: String,
    /// Whether Ward defines it.
    #[serde(rename = "builtIn")]
    built_in: bool,
    /// Hidden from pickers.
    hidden: bool,
    /// Its model, `provider/model`.
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<String>,
    /// Its colour in a user interface.
    #[serde(skip_serializing_if = "Option::is_none")]
    color: Option<String>,
}

/// The agents: primary ones lead sessions, subagents run through the `task` tool.
#[utoipa::path(get, path = "/agent", tag = "app",
    responses((status = 200, body = Vec<AgentOut>)))]
pub async fn agents(State(app): State<App>) -> Json<Vec<AgentOut>> {
    let agents = app.engine.agents().into_iter().map(|a| AgentOut {
        mode: a.mode.as_str().to_string(),
        name: a.name,
        description: a.description,
        built_in: a.built_in,
        hidden: a.hidden,
        model: a.model,
        color: a.color,
    });
    Json(agents.collect())
}

/// A command (OpenCode's `Command`).
#[derive(Serialize, ToSchema)]
pub struct CommandOut {
    /// Its name (typed as `/name`).
    name: String,
    /// What it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    /// The agent it runs with.
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<String>,
    /// The model it runs with.
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<String>,
    /// Its prompt template.
    template: String,
    /// Whether it runs as a subagent's task.
    subtask: bool,
}

/// The `/commands` a prompt can start with.
#[utoipa::path(get, path = "/command", tag = "app",
    responses((status = 200, body = Vec<CommandOut>)))]
pub async fn commands(State(app): State<App>) -> Json<Vec<CommandOut>> {
    let commands = app.engine.commands().into_iter().map(|c| CommandOut {
        name: c.name,
        description: c.description,
        agent: c.agent,
        model: c.model,
        template: c.template,
        subtask: c.subtask,
    });
    Json(commands.collect())
}
