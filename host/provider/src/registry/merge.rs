//! Laying config's `[provider.…]` tables over the bundled catalogue, field by
//! field, and the checks that only make sense on the result (a config-only
//! provider needs a base URL; an overridden limit must still fit the context
//! window).

use std::collections::{BTreeMap, BTreeSet};

use ward_config::{Cost, ModelConfig, Origins, ProviderConfig, ProviderKind};

use super::{Capabilities, Limits, ModelInfo, Origin, Prices, ProviderInfo, RegistryError};
use crate::protocol::Protocol;

/// Every provider of `bundled` and `configured`, merged.
pub(super) fn providers(
    bundled: &BTreeMap<String, ProviderConfig>,
    configured: &BTreeMap<String, ProviderConfig>,
    origins: &Origins,
) -> Result<BTreeMap<String, ProviderInfo>, RegistryError> {
    let ids: BTreeSet<&String> = bundled.keys().chain(configured.keys()).collect();
    ids.into_iter()
        .map(|id| {
            let info = provider(id, bundled.get(id), configured.get(id), origins)?;
            Ok((id.clone(), info))
        })
        .collect()
}

fn provider(
    id: &str,
    bundled: Option<&ProviderConfig>,
    configured: Option<&ProviderConfig>,
    origins: &Origins,
) -> Result<ProviderInfo, RegistryError> {
    let none = ProviderConfig::default();
    let (base, over) = (bundled.unwrap_or(&none), configured.unwrap_or(&none));
    let Some(base_url) = over.base_url.clone().or_else(|| base.base_url.clone()) else {
        return Err(RegistryError::Config {
            at: origins.get(&["provider", id]).cloned(),
            path: format!("provider.{}", quote(id)),
            message: format!(
                "provider `{id}` is not in the bundled catalogue, so it needs a `base_url`"
            ),
        });
    };
    let mut headers = base.headers.clone();
    headers.extend(over.headers.clone());

    let model_ids: BTreeSet<&String> = base.models.keys().chain(over.models.keys()).collect();
    let mut models = BTreeMap::new();
    for model_id in model_ids {
        let (b, o) = (base.models.get(model_id), over.models.get(model_id));
        let info = ModelInfo {
            provider: id.to_owned(),
            id: model_id.clone(),
            origin: origin(b.is_some(), o.is_some()),
            ..model(model_id, &overlay(b, o))
        };
        check_limits(&info, origins)?;
        models.insert(model_id.clone(), info);
    }

    Ok(ProviderInfo {
        id: id.to_owned(),
        protocol: protocol(
            over.kind
                .or(base.kind)
                .unwrap_or(ProviderKind::OpenaiCompatible),
        ),
        base_url,
        env: over
            .env
            .clone()
            .or_else(|| base.env.clone())
            .unwrap_or_default(),
        api_key: over.api_key.clone(),
        headers: headers.into_iter().collect(),
        origin: origin(bundled.is_some(), configured.is_some()),
        models,
    })
}

fn origin(bundled: bool, configured: bool) -> Origin {
    match (bundled, configured) {
        (true, false) => Origin::Bundled,
        (true, true) => Origin::Overridden,
        _ => Origin::Config,
    }
}

fn protocol(kind: ProviderKind) -> Protocol {
    match kind {
        ProviderKind::OpenaiCompatible => Protocol::OpenaiChat,
        ProviderKind::OpenaiResponses => Protocol::OpenaiResponses,
        ProviderKind::Anthropic => Protocol::AnthropicMessages,
    }
}

/// `over`'s fields where set, else `base`'s; prices one by one, so an
/// override of one price keeps the others.
fn overlay(base: Option<&ModelConfig>, over: Option<&ModelConfig>) -> ModelConfig {
    let none = ModelConfig::default();
    let (b, o) = (base.unwrap_or(&none), over.unwrap_or(&none));
    let cost = match (b.cost, o.cost) {
        (Some(b), Some(o)) => Some(Cost {
            input: o.input.or(b.input),
            output: o.output.or(b.output),
            cache_read: o.cache_read.or(b.cache_read),
            cache_write: o.cache_write.or(b.cache_write),
        }),
        (b, o) => o.or(b),
    };
    ModelConfig {
        name: o.name.clone().or_else(|| b.name.clone()),
        api_id: o.api_id.clone().or_else(|| b.api_id.clone()),
        context: o.context.or(b.context),
        input: o.input.or(b.input),
        output: o.output.or(b.output),
        cost,
        tokenizer: o.tokenizer.or(b.tokenizer),
        compaction_threshold: o.compaction_threshold.or(b.compaction_threshold),
        tool_call: o.tool_call.or(b.tool_call),
        reasoning: o.reasoning.or(b.reasoning),
        attachment: o.attachment.or(b.attachment),
        temperature: o.temperature.or(b.temperature),
        variants: b
            .variants
            .iter()
            .chain(&o.variants)
            .map(|(name, fields)| (name.clone(), fields.clone()))
            .collect(),
    }
}

/// The merged description as a [`ModelInfo`] (provider and origin unset).
fn model(id: &str, m: &ModelConfig) -> ModelInfo {
    let cost = m.cost.unwrap_or_default();
    let defaults = Capabilities::default();
    ModelInfo {
        provider: String::new(),
        id: id.to_owned(),
        api_id: m.api_id.clone().unwrap_or_else(|| id.to_owned()),
        name: m.name.clone().unwrap_or_else(|| id.to_owned()),
        limits: Limits {
            context: m.context,
            input: m.input,
            output: m.output,
        },
        prices: Prices {
            input: cost.input.unwrap_or(0.0),
            output: cost.output.unwrap_or(0.0),
            cache_read: cost.cache_read.unwrap_or(0.0),
            cache_write: cost.cache_write.unwrap_or(0.0),
        },
        capabilities: Capabilities {
            tool_call: m.tool_call.unwrap_or(defaults.tool_call),
            reasoning: m.reasoning.unwrap_or(defaults.reasoning),
            attachment: m.attachment.unwrap_or(defaults.attachment),
            temperature: m.temperature.unwrap_or(defaults.temperature),
        },
        tokenizer: m.tokenizer,
        compaction_threshold: m.compaction_threshold,
        variants: m
            .variants
            .iter()
            .map(|(name, fields)| {
                let fields = serde_json::to_value(fields).unwrap_or_default();
                (name.clone(), fields)
            })
            .collect(),
        origin: Origin::Config,
    }
}

/// Input and output limits must fit the context window. Typically broken by
/// lowering a bundled model's `context` without its `output`, which would
/// leave no room for any prompt; the error points at whichever of the two
/// keys config set.
fn check_limits(info: &ModelInfo, origins: &Origins) -> Result<(), RegistryError> {
    let Some(context) = info.limits.context else {
        return Ok(());
    };
    for (key, limit) in [("input", info.limits.input), ("output", info.limits.output)] {
        let Some(limit) = limit.filter(|&limit| limit > context) else {
            continue;
        };
        let table = [
            "provider",
            info.provider.as_str(),
            "models",
            info.id.as_str(),
        ];
        let at = |last: &'static str| [table[0], table[1], table[2], table[3], last];
        let (set_key, set_context) = (at(key), at("context"));
        return Err(RegistryError::Config {
            at: origins.first(&[&set_key, &set_context, &table]).cloned(),
            path: format!(
                "provider.{}.models.{}.{key}",
                quote(&info.provider),
                quote(&info.id)
            ),
            message: format!(
                "the {key} limit of {limit} tokens exceeds the context window of {context} \
                 tokens; lower `{key}` or raise `context`"
            ),
        });
    }
    Ok(())
}

/// A key as TOML needs it written in a dotted path (`"gpt-4.1"` is quoted).
fn quote(key: &str) -> String {
    if !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        key.to_owned()
    } else {
        format!("\"{}\"", key.replace('\\', "\\\\").replace('"', "\\\""))
    }
}
