//! Base prompts, one per model family (layer 1 of the system prompt when the
//! agent has no prompt of its own).
//!
//! The texts live next to this file as Markdown and are compiled in with
//! `include_str!`.

/// The model family a base prompt is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// Anthropic Claude models.
    Anthropic,
    /// OpenAI GPT and o-series models (`gpt-*`, `o1`, `o3`, `o4-mini`, codex).
    OpenAi,
    /// Google Gemini models.
    Gemini,
    /// Anything else: Qwen, Llama, Mistral, DeepSeek, local models, ….
    Other,
}

const ANTHROPIC: &str = include_str!("anthropic.md");
const OPENAI: &str = include_str!("openai.md");
const GEMINI: &str = include_str!("gemini.md");
const DEFAULT: &str = include_str!("default.md");

impl Family {
    /// Detects the family from the model id, falling back to the provider
    /// name when the id says nothing (e.g. a provider called `anthropic`
    /// serving a model alias).
    ///
    /// The model id may carry routing prefixes such as
    /// `openrouter/anthropic/claude-sonnet-4-5`; only its last segment and the
    /// words in it matter.
    pub fn detect(provider: &str, model: &str) -> Self {
        let model = model.to_ascii_lowercase();
        let last = model.rsplit('/').next().unwrap_or(&model);
        if model.contains("claude") {
            return Self::Anthropic;
        }
        if model.contains("gemini") {
            return Self::Gemini;
        }
        if model.contains("gpt") || model.contains("codex") || is_o_series(last) {
            return Self::OpenAi;
        }
        match provider.to_ascii_lowercase().as_str() {
            "anthropic" => Self::Anthropic,
            "openai" | "azure" | "azure-openai" => Self::OpenAi,
            "google" | "gemini" | "vertex" | "google-vertex" => Self::Gemini,
            _ => Self::Other,
        }
    }

    /// The base prompt text of this family.
    pub fn base_prompt(self) -> &'static str {
        match self {
            Self::Anthropic => ANTHROPIC,
            Self::OpenAi => OPENAI,
            Self::Gemini => GEMINI,
            Self::Other => DEFAULT,
        }
    }
}

/// `o1`, `o3-mini`, `o4-mini-high`, …: an `o` followed by a digit.
fn is_o_series(id: &str) -> bool {
    let mut chars = id.chars();
    chars.next() == Some('o') && chars.next().is_some_and(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::Family;

    #[test]
    fn detects_families() {
        let cases = [
            ("anthropic", "claude-sonnet-4-5", Family::Anthropic),
            (
                "openrouter",
                "anthropic/claude-3.5-haiku",
                Family::Anthropic,
            ),
            ("openai", "gpt-5", Family::OpenAi),
            ("openai", "o3-mini", Family::OpenAi),
            ("x", "o4-mini", Family::OpenAi),
            ("local", "gpt-oss-20b", Family::OpenAi),
            ("openai", "codex-mini-latest", Family::OpenAi),
            ("google", "gemini-2.5-pro", Family::Gemini),
            ("local", "qwen3-coder", Family::Other),
            ("ollama", "llama3.1:8b", Family::Other),
            ("anthropic", "my-alias", Family::Anthropic),
            ("local", "olmo-2", Family::Other),
        ];
        for (provider, model, family) in cases {
            assert_eq!(
                Family::detect(provider, model),
                family,
                "{provider}/{model}"
            );
        }
    }

    #[test]
    fn prompts_differ_per_family() {
        let all = [
            Family::Anthropic,
            Family::OpenAi,
            Family::Gemini,
            Family::Other,
        ];
        for (i, a) in all.iter().enumerate() {
            assert!(a.base_prompt().contains("Ward"));
            assert!(a.base_prompt().contains("AGENTS.md"));
            assert!(a.base_prompt().contains("path:line"));
            for b in &all[i + 1..] {
                assert_ne!(a.base_prompt(), b.base_prompt(), "{a:?} vs {b:?}");
            }
        }
    }
}
