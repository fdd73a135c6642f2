//! The model registry: every provider and model Ward can call, with each
//! model's limits, prices and capabilities.
//!
//! It starts from the bundled catalogue (`catalogue.toml`, written in the
//! shape of `[provider.ID]` in `ward.toml`) and lays the user's configuration
//! over it field by field: config can change one price of a bundled model,
//! point a bundled provider at a proxy, or describe a provider and models the
//! catalogue does not know (a local vLLM or Ollama server).
//!
//! Submodules: `merge` (catalogue + config → [`ProviderInfo`]s, with the
//! checks that need both), `error` ([`RegistryError`]).

mod error;
mod merge;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use ward_config::{Config, Origins};

use crate::client::Endpoint;
use crate::protocol::Protocol;

pub use error::RegistryError;

/// The catalogue's text, compiled in so `ward` works without any config.
const CATALOGUE: &str = include_str!("catalogue.toml");

/// The file name catalogue errors are reported under.
const CATALOGUE_NAME: &str = "host/provider/src/registry/catalogue.toml";

/// Token limits of a model; `None` where unknown (a model described in
/// config without them). Every bundled model has a context and output limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    /// The context window: input and output together.
    pub context: Option<u64>,
    /// The most input tokens, when the vendor caps input below the context.
    pub input: Option<u64>,
    /// The most output tokens one reply may have.
    pub output: Option<u64>,
}

/// Prices in USD per million tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Prices {
    /// Uncached input tokens.
    pub input: f64,
    /// Output tokens (reasoning included).
    pub output: f64,
    /// Input tokens read from the prompt cache.
    pub cache_read: f64,
    /// Input tokens written to the prompt cache.
    pub cache_write: f64,
}

impl Prices {
    /// `[input, output, cache read, cache write]`, the order the loop's cost
    /// accounting takes them in.
    pub fn as_array(&self) -> [f64; 4] {
        [self.input, self.output, self.cache_read, self.cache_write]
    }
}

/// What a model can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// It can call tools.
    pub tool_call: bool,
    /// It reasons (thinks) before answering.
    pub reasoning: bool,
    /// It accepts images and files.
    pub attachment: bool,
    /// Its API accepts a sampling temperature.
    pub temperature: bool,
}

/// The defaults for a model nobody described: an ordinary chat model.
impl Default for Capabilities {
    fn default() -> Self {
        Self {
            tool_call: true,
            reasoning: false,
            attachment: false,
            temperature: true,
        }
    }
}

/// Where a provider's or model's description came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The bundled catalogue, unchanged.
    Bundled,
    /// The bundled catalogue with fields overridden in config.
    Overridden,
    /// Config alone.
    Config,
    /// Nowhere: a model a configured provider serves but config does not
    /// list, so its limits are unknown and its prices zero.
    Unlisted,
}

/// One model, with the catalogue and config merged.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelInfo {
    /// The provider id (`anthropic`, `local`, …).
    pub provider: String,
    /// The model id as written in `provider/model`.
    pub id: String,
    /// The id sent on the wire (a dated snapshot for Anthropic models).
    pub api_id: String,
    /// Display name.
    pub name: String,
    /// Token limits.
    pub limits: Limits,
    /// Prices.
    pub prices: Prices,
    /// Capabilities.
    pub capabilities: Capabilities,
    /// The tokenizer config chose; `None` lets token counting pick by model family.
    pub tokenizer: Option<ward_config::Tokenizer>,
    /// The model's own compaction threshold (fraction of the context window).
    pub compaction_threshold: Option<f64>,
    /// Its variants by name: the request body fields each sets (`--variant`).
    pub variants: BTreeMap<String, serde_json::Value>,
    /// Where the description came from.
    pub origin: Origin,
}

impl ModelInfo {
    /// The body fields of variant `name`, or an error naming the variants there are.
    pub fn variant(&self, name: &str) -> Result<&serde_json::Value, RegistryError> {
        self.variants
            .get(name)
            .ok_or_else(|| RegistryError::UnknownVariant {
                model: format!("{}/{}", self.provider, self.id),
                variant: name.to_owned(),
                known: self.variants.keys().cloned().collect(),
            })
    }
}

/// One provider, with the catalogue and config merged.
#[derive(Clone, PartialEq)]
pub struct ProviderInfo {
    /// The provider id, the `provider` of `provider/model`.
    pub id: String,
    /// The wire protocol.
    pub protocol: Protocol,
    /// API root the protocol path is appended to.
    pub base_url: String,
    /// Environment variables tried, in order, for the API key.
    pub env: Vec<String>,
    /// The API key written in config (after `{env:…}` substitution).
    pub api_key: Option<String>,
    /// Extra HTTP headers.
    pub headers: Vec<(String, String)>,
    /// Where the description came from.
    pub origin: Origin,
    /// Models by id.
    pub models: BTreeMap<String, ModelInfo>,
}

// By hand so the API key, and credentials in the base URL, never reach a log line.
impl std::fmt::Debug for ProviderInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderInfo")
            .field("id", &self.id)
            .field("protocol", &self.protocol)
            .field(
                "base_url",
                &ward_config::show::redact::mask_url_credentials(&self.base_url),
            )
            .field("env", &self.env)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("origin", &self.origin)
            .field("models", &self.models.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl ProviderInfo {
    /// The model `id`, matched against model ids first and wire ids second
    /// (so `claude-sonnet-4-20250514` finds `claude-sonnet-4`).
    pub fn model(&self, id: &str) -> Option<&ModelInfo> {
        self.models
            .get(id)
            .or_else(|| self.models.values().find(|m| m.api_id == id))
    }

    /// The API key: config's `api_key`, else the first of [`Self::env`] that
    /// `env` finds set and non-empty.
    pub fn api_key(&self, env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
        self.api_key.clone().or_else(|| {
            self.env
                .iter()
                .find_map(|var| env(var).filter(|key| !key.is_empty()))
        })
    }

    /// Where and how to reach this provider, the key read through `env`.
    pub fn endpoint(&self, env: &dyn Fn(&str) -> Option<String>) -> Endpoint {
        let mut endpoint = Endpoint::new(self.base_url.clone());
        endpoint.api_key = self.api_key(env);
        endpoint.headers = self.headers.clone();
        endpoint
    }
}

/// Every provider and model Ward knows, bundled and configured.
#[derive(Debug, Clone)]
pub struct ModelRegistry {
    providers: BTreeMap<String, ProviderInfo>,
}

/// The bundled catalogue, parsed once per process with one plain TOML pass. The
/// checked path (`ward_config::load_from_str`: substitutions, a validating pass, every
/// key located) is for files people write and took four passes, ~3 ms of every start;
/// this file is Ward's own, and a unit test holds the two readings equal.
fn catalogue() -> Result<&'static Config, RegistryError> {
    static PARSED: std::sync::OnceLock<Config> = std::sync::OnceLock::new();
    if let Some(parsed) = PARSED.get() {
        return Ok(parsed);
    }
    let parsed = match toml::from_str::<Config>(CATALOGUE) {
        Ok(parsed) => parsed,
        // Never for the bundled file; the checked path says where it is wrong.
        Err(_) => ward_config::load_from_str(CATALOGUE_NAME, CATALOGUE)
            .map_err(RegistryError::Catalogue)?,
    };
    Ok(PARSED.get_or_init(|| parsed))
}

impl ModelRegistry {
    /// The bundled catalogue alone.
    pub fn bundled() -> Result<Self, RegistryError> {
        Self::from_config(&Config::default(), &Origins::default())
    }

    /// The bundled catalogue with `config`'s `[provider.…]` tables laid over
    /// it. `origins` (from `LoadedConfig`) lets errors name the file, line and
    /// column that set the offending key; pass `Origins::default()` without.
    pub fn from_config(config: &Config, origins: &Origins) -> Result<Self, RegistryError> {
        let providers = merge::providers(&catalogue()?.provider, &config.provider, origins)?;
        let mut registry = Self { providers };
        registry.list_referenced(config);
        Ok(registry)
    }

    /// Lists the models config names (`model`, `small_model`, an agent's or a
    /// command's) that a provider of config's own serves without declaring them, as
    /// [`Origin::Unlisted`]: limits unknown, prices zero. Every list of models (the
    /// API's, the pickers', `ward models`) then shows what `model =` can use.
    fn list_referenced(&mut self, config: &Config) {
        let named = [config.model.as_deref(), config.small_model.as_deref()]
            .into_iter()
            .chain(config.agent.values().map(|a| a.model.as_deref()))
            .chain(config.command.values().map(|c| c.model.as_deref()))
            .flatten();
        for reference in named {
            let Some((provider_id, model)) = reference.split_once('/') else {
                continue;
            };
            let Some(provider) = self.providers.get_mut(provider_id) else {
                continue;
            };
            if provider.origin == Origin::Config && provider.model(model).is_none() {
                provider
                    .models
                    .insert(model.to_owned(), unlisted(provider_id, model));
            }
        }
    }

    /// Every provider, by id.
    pub fn providers(&self) -> impl Iterator<Item = &ProviderInfo> {
        self.providers.values()
    }

    /// The provider `id`.
    pub fn provider(&self, id: &str) -> Option<&ProviderInfo> {
        self.providers.get(id)
    }

    /// The model `model` of provider `provider` (by model id or wire id).
    pub fn get(&self, provider: &str, model: &str) -> Option<&ModelInfo> {
        self.providers.get(provider)?.model(model)
    }

    /// The model `reference` names: `provider/model`, or a bare model id that
    /// exactly one provider offers.
    ///
    /// A provider that exists only in config may serve models it does not
    /// list (a local server's whole library); those resolve with unknown
    /// limits and zero prices. A bundled provider's unknown model is an error,
    /// since it is far more likely a typo than a model newer than Ward.
    pub fn resolve(&self, reference: &str) -> Result<ModelInfo, RegistryError> {
        if let Some((provider_id, model)) = reference.split_once('/')
            && let Some(provider) = self.providers.get(provider_id)
        {
            return match provider.model(model) {
                Some(info) => Ok(info.clone()),
                None if provider.origin == Origin::Config => Ok(unlisted(provider_id, model)),
                None => Err(RegistryError::UnknownModel {
                    provider: provider_id.to_owned(),
                    model: model.to_owned(),
                }),
            };
        }
        // Model ids may contain `/` themselves (OpenRouter's `vendor/model`),
        // so an unknown provider prefix is first tried as part of a bare id.
        let matches: Vec<&ModelInfo> = self
            .providers
            .values()
            .filter_map(|p| p.model(reference))
            .collect();
        match matches.as_slice() {
            [one] => Ok((*one).clone()),
            [] => match reference.split_once('/') {
                Some((provider, _)) => Err(RegistryError::UnknownProvider {
                    provider: provider.to_owned(),
                    known: self.providers.keys().cloned().collect(),
                }),
                None => Err(RegistryError::NoSuchModel(reference.to_owned())),
            },
            many => Err(RegistryError::Ambiguous {
                id: reference.to_owned(),
                candidates: many
                    .iter()
                    .map(|m| format!("{}/{}", m.provider, m.id))
                    .collect(),
            }),
        }
    }
}

/// A model a config-only provider serves without describing it.
fn unlisted(provider: &str, model: &str) -> ModelInfo {
    ModelInfo {
        provider: provider.to_owned(),
        id: model.to_owned(),
        api_id: model.to_owned(),
        name: model.to_owned(),
        limits: Limits::default(),
        prices: Prices::default(),
        capabilities: Capabilities::default(),
        tokenizer: None,
        compaction_threshold: None,
        variants: BTreeMap::new(),
        origin: Origin::Unlisted,
    }
}
