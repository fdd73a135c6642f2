//! From `model = "provider/model"` and `[provider.…]` in config to a model the loop can
//! call: the wire protocol, the endpoint with its key, prices and output limit.

use std::time::Duration;

use anyhow::{Context, Result, bail};
use ward_config::{Config, ProviderKind};
use ward_provider::{Endpoint, Protocol};
use ward_session::ModelSetup;

/// Resolves `choice` (or the config's `model`) to a [`ModelSetup`].
pub fn resolve(config: &Config, choice: Option<&str>) -> Result<ModelSetup> {
    let full = choice
        .map(str::to_string)
        .or_else(|| config.model.clone())
        .context(
            "no model chosen: set `model = \"provider/model\"` in ward.toml or pass --model",
        )?;
    let (provider, model) = full
        .split_once('/')
        .with_context(|| format!("model `{full}` must be written provider/model"))?;
    let Some(p) = config.provider.get(provider) else {
        bail!("model `{full}`: there is no [provider.{provider}] in the configuration");
    };
    let kind = p.kind.unwrap_or(match provider {
        "anthropic" => ProviderKind::Anthropic,
        _ => ProviderKind::OpenaiCompatible,
    });
    let (protocol, default_url, key_var) = match kind {
        ProviderKind::OpenaiCompatible => (
            Protocol::OpenaiChat,
            "https://api.openai.com/v1",
            "OPENAI_API_KEY",
        ),
        ProviderKind::OpenaiResponses => (
            Protocol::OpenaiResponses,
            "https://api.openai.com/v1",
            "OPENAI_API_KEY",
        ),
        ProviderKind::Anthropic => (
            Protocol::AnthropicMessages,
            "https://api.anthropic.com/v1",
            "ANTHROPIC_API_KEY",
        ),
    };
    let mut endpoint = Endpoint::new(
        p.base_url
            .clone()
            .unwrap_or_else(|| default_url.to_string()),
    );
    endpoint.api_key = p.api_key.clone().or_else(|| std::env::var(key_var).ok());
    endpoint.headers = p
        .headers
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if let Some(secs) = std::env::var("WARD_IDLE_TIMEOUT_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        endpoint.idle_timeout = Duration::from_secs(secs);
    }
    let m = p.models.get(model);
    let cost = m.and_then(|m| m.cost).unwrap_or_default();
    Ok(ModelSetup {
        provider: provider.to_string(),
        model: model.to_string(),
        protocol,
        endpoint,
        prices: [cost.input, cost.output, cost.cache_read, cost.cache_write],
        max_tokens: m
            .and_then(|m| m.output)
            .map(|o| o.min(u64::from(u32::MAX)) as u32),
    })
}
