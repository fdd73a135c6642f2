//! `[provider.ID]` and `[provider.ID.models.MODEL]`: model endpoints and the
//! per-model limits, costs and tokenizers that override the built-in registry.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// `[provider.ID]`: one model endpoint.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProviderConfig {
    /// The wire protocol; unset lets the provider layer choose from the
    /// provider id (falling back to [`ProviderKind::OpenaiCompatible`]).
    pub kind: Option<ProviderKind>,
    /// Base URL of the API, e.g. `http://127.0.0.1:8080/v1`.
    pub base_url: Option<String>,
    /// API key; usually `"{env:NAME}"` or `"{file:~/.keys/name}"` so the
    /// secret itself stays out of the file.
    pub api_key: Option<String>,
    /// Extra HTTP headers sent with every request.
    pub headers: BTreeMap<String, String>,
    /// Models offered by this provider, by model id.
    pub models: BTreeMap<String, ModelConfig>,
}

/// The wire protocol of a provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProviderKind {
    /// OpenAI Chat Completions and compatible servers (vLLM, llama.cpp, Ollama).
    OpenaiCompatible,
    /// The OpenAI Responses API.
    OpenaiResponses,
    /// The Anthropic Messages API.
    Anthropic,
}

/// `[provider.ID.models.MODEL]`: what Ward needs to know about one model.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ModelConfig {
    /// Display name, e.g. `Qwen 3`.
    pub name: Option<String>,
    /// Context window in tokens.
    pub context: Option<u64>,
    /// Input limit in tokens, when lower than the context window.
    pub input: Option<u64>,
    /// Maximum output tokens.
    pub output: Option<u64>,
    /// Prices in USD per million tokens.
    pub cost: Option<Cost>,
    /// Tokenizer used to count tokens; unset means the registry's choice.
    pub tokenizer: Option<Tokenizer>,
}

/// Prices in USD per million tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Cost {
    /// Uncached input tokens.
    pub input: f64,
    /// Output tokens.
    pub output: f64,
    /// Input tokens read from the prompt cache.
    pub cache_read: f64,
    /// Input tokens written to the prompt cache.
    pub cache_write: f64,
}

/// How tokens are counted for a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tokenizer {
    /// OpenAI's `o200k_base` encoding.
    O200k,
    /// OpenAI's `cl100k_base` encoding.
    Cl100k,
    /// A CJK-aware character-based estimate.
    Estimate,
}
