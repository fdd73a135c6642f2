//! `[provider.ID]` and `[provider.ID.models.MODEL]`: model endpoints and the
//! per-model limits, costs and capabilities that override the built-in model
//! catalogue (or describe models it does not know).
//!
//! Every model field is an `Option` so an override can change one field of a
//! bundled model and keep the rest; the registry in `ward-provider` does the
//! field-by-field merge.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::check;

/// `[provider.ID]`: one model endpoint.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProviderConfig {
    /// The wire protocol; unset keeps the catalogue's for a bundled provider
    /// and means [`ProviderKind::OpenaiCompatible`] for any other.
    pub kind: Option<ProviderKind>,
    /// Base URL of the API, e.g. `http://127.0.0.1:8080/v1`.
    pub base_url: Option<String>,
    /// API key; usually `"{env:NAME}"` or `"{file:~/.keys/name}"` so the
    /// secret itself stays out of the file.
    pub api_key: Option<String>,
    /// Environment variables tried, in order, for the API key when `api_key`
    /// is unset (e.g. `["OPENAI_API_KEY"]`). Unlike `{env:…}`, an unset
    /// variable is not an error, so a keyless local server can list one.
    pub env: Option<Vec<String>>,
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
    /// The id sent on the wire when it differs from the model's key, e.g. a
    /// dated snapshot (`claude-sonnet-4-20250514`) or a server's long name.
    pub api_id: Option<String>,
    /// Context window in tokens.
    #[serde(deserialize_with = "check::positive")]
    pub context: Option<u64>,
    /// Input limit in tokens, when lower than the context window.
    #[serde(deserialize_with = "check::positive")]
    pub input: Option<u64>,
    /// Maximum output tokens.
    #[serde(deserialize_with = "check::positive")]
    pub output: Option<u64>,
    /// Prices in USD per million tokens.
    pub cost: Option<Cost>,
    /// Tokenizer used to count tokens; unset means the registry's choice.
    pub tokenizer: Option<Tokenizer>,
    /// Compact once this fraction of the usable context is used (0 < t ≤ 1);
    /// overrides `[compaction] threshold` for this model.
    #[serde(deserialize_with = "check::fraction")]
    pub compaction_threshold: Option<f64>,
    /// Whether the model can call tools (default `true`).
    pub tool_call: Option<bool>,
    /// Whether the model reasons (thinks) before answering (default `false`).
    pub reasoning: Option<bool>,
    /// Whether the model accepts images and files (default `false`).
    pub attachment: Option<bool>,
    /// Whether the API accepts a sampling temperature (default `true`; the
    /// OpenAI reasoning models reject one).
    pub temperature: Option<bool>,
    /// Named sets of request body fields to choose from with `--variant NAME` or an
    /// agent's `variant` (OpenCode's `variants`), e.g.
    /// `high = { reasoning = { effort = "high" } }` or
    /// `max = { thinking = { type = "enabled", budget_tokens = 31999 } }`. A
    /// variant named here replaces the catalogue's variant of that name.
    pub variants: BTreeMap<String, toml::Table>,
}

/// Prices in USD per million tokens; an unset price keeps the catalogue's
/// (or is free for a model the catalogue does not know).
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Cost {
    /// Uncached input tokens.
    #[serde(deserialize_with = "check::price")]
    pub input: Option<f64>,
    /// Output tokens.
    #[serde(deserialize_with = "check::price")]
    pub output: Option<f64>,
    /// Input tokens read from the prompt cache.
    #[serde(deserialize_with = "check::price")]
    pub cache_read: Option<f64>,
    /// Input tokens written to the prompt cache.
    #[serde(deserialize_with = "check::price")]
    pub cache_write: Option<f64>,
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
