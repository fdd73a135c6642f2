//! From `model = "provider/model"` (or `--model`) to a model the loop can call: the
//! model registry (bundled catalogue plus `[provider.…]` in config) supplies the wire
//! protocol, endpoint, key variable, limits and prices.

use std::sync::OnceLock;
use std::time::Duration;

use ward_config::LoadedConfig;
use ward_provider::ModelRegistry;
use ward_session::ModelSetup;

use crate::error::ModelError;

/// The most output tokens asked for per reply, whatever the model allows. Anthropic
/// counts `max_tokens` against the context window, so asking for a model's full 64k
/// or 128k would take that much room from the prompt; OpenCode caps at the same value.
const OUTPUT_TOKEN_MAX: u64 = 32_000;

/// Resolves `choice` (or the config's `model`) to a [`ModelSetup`], reading API keys
/// and `WARD_IDLE_TIMEOUT_SECS` from the process environment.
pub fn resolve(loaded: &LoadedConfig, choice: Option<&str>) -> Result<ModelSetup, ModelError> {
    resolve_variant(loaded, choice, None)
}

/// [`resolve`] with the model's variant `variant` chosen (`--variant`, an agent's
/// `variant`); a name the model has no variant of is an error naming those it has.
pub fn resolve_variant(
    loaded: &LoadedConfig,
    choice: Option<&str>,
    variant: Option<&str>,
) -> Result<ModelSetup, ModelError> {
    let registry = ModelRegistry::from_config(&loaded.config, &loaded.origins)?;
    resolve_in(&registry, loaded, choice, variant)
}

/// The model registry of one loaded configuration, built when a model is first
/// resolved and kept. Building it (the bundled catalogue merged with `[provider]`)
/// was a third of what `ward serve` spent storing a prompt, every prompt.
#[derive(Debug, Default)]
pub struct Models {
    registry: OnceLock<ModelRegistry>,
}

impl Models {
    /// [`resolve_variant`] with this registry; `loaded` must be the configuration
    /// it belongs to (the one beside it in the workspace).
    pub fn resolve_variant(
        &self,
        loaded: &LoadedConfig,
        choice: Option<&str>,
        variant: Option<&str>,
    ) -> Result<ModelSetup, ModelError> {
        resolve_in(self.registry(loaded)?, loaded, choice, variant)
    }

    /// The registry of `loaded` (built on first use, then kept).
    pub fn registry(&self, loaded: &LoadedConfig) -> Result<&ModelRegistry, ModelError> {
        if let Some(registry) = self.registry.get() {
            return Ok(registry);
        }
        let built = ModelRegistry::from_config(&loaded.config, &loaded.origins)?;
        Ok(self.registry.get_or_init(|| built))
    }
}

/// Resolves `choice` (or the config's `model`) with its `variant` in `registry`.
fn resolve_in(
    registry: &ModelRegistry,
    loaded: &LoadedConfig,
    choice: Option<&str>,
    variant: Option<&str>,
) -> Result<ModelSetup, ModelError> {
    let reference = choice
        .or(loaded.config.model.as_deref())
        .ok_or(ModelError::NotChosen)?;
    setup(registry, reference, variant, &|name| {
        std::env::var(name).ok()
    })
}

/// Resolves `reference` in `registry`, reading the environment through `env`.
fn setup(
    registry: &ModelRegistry,
    reference: &str,
    variant: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ModelSetup, ModelError> {
    let model = registry.resolve(reference)?;
    let variant = match variant {
        Some(name) => Some((name.to_string(), model.variant(name)?.clone())),
        None => None,
    };
    let provider =
        registry
            .provider(&model.provider)
            .ok_or_else(|| ModelError::ProviderVanished {
                reference: reference.to_string(),
                provider: model.provider.clone(),
            })?;
    let mut endpoint = provider.endpoint(env);
    // A provider that names key variables needs a key; failing here beats a 401 later.
    if endpoint.api_key.is_none() && !provider.env.is_empty() {
        return Err(ModelError::NoKey {
            reference: reference.to_string(),
            provider: provider.id.clone(),
            vars: provider.env.join(" or "),
        });
    }
    if let Some(secs) = env("WARD_IDLE_TIMEOUT_SECS").and_then(|s| s.parse().ok()) {
        endpoint.idle_timeout = Duration::from_secs(secs);
    }
    let counter = counter(model.tokenizer, &model.provider, &model.api_id);
    Ok(ModelSetup {
        provider: model.provider,
        model: model.api_id,
        protocol: provider.protocol,
        endpoint,
        prices: model.prices.as_array(),
        max_tokens: model
            .limits
            .output
            .map(|o| o.min(OUTPUT_TOKEN_MAX).min(u64::from(u32::MAX)) as u32),
        limits: model.limits,
        counter,
        compaction_threshold: model.compaction_threshold,
        temperature: model.capabilities.temperature,
        attachment: model.capabilities.attachment,
        reasoning: model.capabilities.reasoning,
        variant,
    })
}

/// The tokenizer config chose for the model, else the one of its family.
fn counter(
    chosen: Option<ward_config::Tokenizer>,
    provider: &str,
    model: &str,
) -> ward_tokens::TokenCounter {
    use ward_tokens::{Encoding, TokenCounter};
    match chosen {
        Some(ward_config::Tokenizer::O200k) => TokenCounter::new(Encoding::O200k),
        Some(ward_config::Tokenizer::Cl100k) => TokenCounter::new(Encoding::Cl100k),
        Some(ward_config::Tokenizer::Estimate) => TokenCounter::new(Encoding::Estimate),
        None => TokenCounter::for_model(provider, model),
    }
}

#[cfg(test)]
mod tests {
    use ward_config::{Origins, load_from_str};
    use ward_provider::{Limits, Protocol};

    use super::*;

    fn registry(config: &str) -> ModelRegistry {
        let config = load_from_str("ward.toml", config).unwrap();
        ModelRegistry::from_config(&config, &Origins::default()).unwrap()
    }

    #[test]
    fn a_provider_key_alone_gets_the_catalogues_protocol_endpoint_and_limits() {
        let registry = registry("[provider.anthropic]\napi_key = \"sk-test\"\n");
        let setup = setup(&registry, "anthropic/claude-sonnet-4", None, &|_| None).unwrap();
        assert_eq!(setup.protocol, Protocol::AnthropicMessages);
        assert_eq!(setup.model, "claude-sonnet-4-20250514");
        assert_eq!(setup.endpoint.base_url, "https://api.anthropic.com/v1");
        assert_eq!(setup.endpoint.api_key.as_deref(), Some("sk-test"));
        assert_eq!(
            setup.limits,
            Limits {
                context: Some(200_000),
                input: None,
                output: Some(64_000)
            }
        );
        assert_eq!(setup.max_tokens, Some(32_000), "capped below the 64k limit");
        assert_eq!(setup.prices, [3.0, 15.0, 0.3, 3.75]);
    }

    #[test]
    fn the_key_comes_from_the_environment_and_its_absence_is_explained() {
        let registry = registry("");
        let env = |name: &str| (name == "OPENAI_API_KEY").then(|| "sk-env".to_owned());
        let setup = setup(&registry, "gpt-4o-mini", None, &env).unwrap();
        assert_eq!(setup.protocol, Protocol::OpenaiResponses);
        assert_eq!(setup.endpoint.api_key.as_deref(), Some("sk-env"));
        assert_eq!(setup.max_tokens, Some(16_384));

        let err = super::setup(&registry, "anthropic/claude-opus-4", None, &env)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "model `anthropic/claude-opus-4`: no API key for provider `anthropic`: set \
             ANTHROPIC_API_KEY or `api_key` in [provider.anthropic]"
        );
    }

    #[test]
    fn a_keyless_local_server_needs_no_key() {
        let registry = registry("[provider.local]\nbase_url = \"http://127.0.0.1:8080/v1\"\n");
        let setup = setup(&registry, "local/qwen", None, &|_| None).unwrap();
        assert_eq!(setup.protocol, Protocol::OpenaiChat);
        assert_eq!((setup.endpoint.api_key, setup.max_tokens), (None, None));
        assert_eq!(setup.limits, Limits::default());
    }

    #[test]
    fn a_variant_is_chosen_by_name_and_an_unknown_one_names_the_rest() {
        let registry = registry("[provider.openai]\napi_key = \"k\"\n");
        let setup = setup(&registry, "openai/gpt-5", Some("high"), &|_| None).unwrap();
        let (name, fields) = setup.variant.unwrap();
        assert_eq!(name, "high");
        assert_eq!(fields, serde_json::json!({"reasoning": {"effort": "high"}}));
        let err = super::setup(&registry, "openai/gpt-5", Some("ultra"), &|_| None)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(
                "model `openai/gpt-5` has no variant `ultra`; its variants are: high, low, medium"
            ),
            "{err}"
        );
    }
}
