//! What can go wrong building the model registry or looking a model up.

use ward_config::{ConfigError, Located};

/// A registry or lookup failure. `Display` is one line a person can act on.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    /// The bundled catalogue does not load: a defect of the build, which the
    /// catalogue's own test catches first.
    #[error("bundled model catalogue: {0}")]
    Catalogue(#[source] ConfigError),

    /// A provider or model as configured (alone or merged with the catalogue)
    /// cannot be used.
    #[error("{}{message} ({path})", at.as_ref().map(|at| format!("{at}: ")).unwrap_or_default())]
    Config {
        /// Where the configuration set the offending key, when a file did.
        at: Option<Located>,
        /// Dotted key path, e.g. `provider.local.models.qwen.output`.
        path: String,
        /// What is wrong and how to fix it.
        message: String,
    },

    /// `provider/model` names a provider that is neither bundled nor configured.
    #[error(
        "unknown provider `{provider}` (known: {}); add [provider.{provider}] with a base_url",
        known.join(", ")
    )]
    UnknownProvider {
        /// The provider as written.
        provider: String,
        /// The providers there are.
        known: Vec<String>,
    },

    /// A bundled provider has no model of that id.
    #[error(
        "unknown model `{model}` for provider `{provider}` (see `ward models {provider}`, or \
         describe it under [provider.{provider}.models.\"{model}\"])"
    )]
    UnknownModel {
        /// The provider.
        provider: String,
        /// The model id as written.
        model: String,
    },

    /// A bare model id no provider offers.
    #[error("no provider offers a model `{0}` (see `ward models`); write it as provider/model")]
    NoSuchModel(String),

    /// A bare model id more than one provider offers.
    #[error("model `{id}` is offered by several providers; write one of: {}", candidates.join(", "))]
    Ambiguous {
        /// The model id as written.
        id: String,
        /// `provider/model` for each provider offering it.
        candidates: Vec<String>,
    },

    /// `--variant` (or an agent's `variant`) names a variant the model lacks.
    #[error(
        "model `{model}` has no variant `{variant}`; {}",
        match known.is_empty() {
            true => "it has no variants (define some under [provider.ID.models.MODEL.variants])".to_string(),
            false => format!("its variants are: {}", known.join(", ")),
        }
    )]
    UnknownVariant {
        /// `provider/model`.
        model: String,
        /// The variant as written.
        variant: String,
        /// The variants it has.
        known: Vec<String>,
    },
}
