//! `ward models [PROVIDER]`: the models Ward knows (bundled catalogue plus config), with
//! their limits and prices, so a person can pick one and see what config changed.

use std::fmt::Write as _;
use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;
use ward_provider::{ModelInfo, ModelRegistry, Origin, Protocol, ProviderInfo};
use ward_term::{inert_line, out};

/// `ward models [PROVIDER]`
#[derive(Args)]
pub struct ModelsArgs {
    /// Only this provider's models (`openai`, `anthropic`, `google`, or one from config).
    provider: Option<String>,
}

/// Runs the command.
pub fn run(args: ModelsArgs) -> Result<ExitCode> {
    let cwd = std::env::current_dir()?;
    let loaded = ward_config::load(&cwd)?;
    let registry = ModelRegistry::from_config(&loaded.config, &loaded.origins)?;
    let providers: Vec<&ProviderInfo> = match &args.provider {
        None => registry.providers().collect(),
        Some(id) => match registry.provider(id) {
            Some(p) => vec![p],
            None => {
                let known: Vec<&str> = registry.providers().map(|p| p.id.as_str()).collect();
                bail!("unknown provider `{id}` (known: {})", known.join(", "));
            }
        },
    };
    // The configured model is marked, when it resolves (a broken one is `ward run`'s
    // error to report, not this listing's).
    let default = loaded
        .config
        .model
        .as_deref()
        .and_then(|m| registry.resolve(m).ok());
    let env = |name: &str| std::env::var(name).ok();
    let mut out = String::new();
    for (i, provider) in providers.into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        provider_block(&mut out, provider, default.as_ref(), &env);
    }
    out!("{out}");
    Ok(ExitCode::SUCCESS)
}

/// One provider: a header line, then a table of its models.
fn provider_block(
    out: &mut String,
    provider: &ProviderInfo,
    default: Option<&ModelInfo>,
    env: &dyn Fn(&str) -> Option<String>,
) {
    let key = if provider.api_key.is_some() {
        "key: from config".to_owned()
    } else if provider.env.is_empty() {
        "key: none".to_owned()
    } else {
        let state = if provider.api_key(env).is_some() {
            "set"
        } else {
            "not set"
        };
        format!("key: {} ({state})", inert_line(&provider.env.join(" or ")))
    };
    let _ = writeln!(
        out,
        "{}{}  {}  {}  {key}",
        inert_line(&provider.id),
        mark(provider.origin),
        protocol(provider.protocol),
        // Credentials in the URL stay out of a listing that gets pasted into issues.
        inert_line(&ward_config::show::redact::mask_url_credentials(
            &provider.base_url
        ))
    );
    if provider.models.is_empty() {
        let _ = writeln!(out, "  (no models listed; any model id is passed through)");
        return;
    }
    let width = provider
        .models
        .keys()
        .map(String::len)
        .max()
        .unwrap_or(0)
        .max(5);
    let _ = writeln!(
        out,
        "  {:<width$}  {:>8}  {:>7}  {:>7}  {:>6}  {:>6}  {:>8}  {:>8}",
        "MODEL", "CONTEXT", "INPUT", "OUTPUT", "$IN", "$OUT", "$CACHE-R", "$CACHE-W"
    );
    for model in provider.models.values() {
        let mut notes = Vec::new();
        if model.capabilities.reasoning {
            notes.push("reasoning");
        }
        if model.capabilities.attachment {
            notes.push("attachments");
        }
        if !model.capabilities.tool_call {
            notes.push("no-tools");
        }
        match model.origin {
            Origin::Overridden => notes.push("overridden"),
            Origin::Config => notes.push("config"),
            // Named by `model =` (or an agent's) but not declared under
            // `[provider.X.models]`: usable, its window not known to Ward.
            Origin::Unlisted => notes.push("undeclared: limits unknown"),
            Origin::Bundled => {}
        }
        if default.is_some_and(|d| d.provider == model.provider && d.id == model.id) {
            notes.push("default");
        }
        let p = &model.prices;
        let line = format!(
            "  {:<width$}  {:>8}  {:>7}  {:>7}  {:>6}  {:>6}  {:>8}  {:>8}  {}",
            inert_line(&model.id),
            tokens(model.limits.context),
            tokens(model.limits.input),
            tokens(model.limits.output),
            price(p.input),
            price(p.output),
            price(p.cache_read),
            price(p.cache_write),
            notes.join(" "),
        );
        let _ = writeln!(out, "{}", line.trim_end());
        // Below the row, so the columns stay as they are.
        if !model.variants.is_empty() {
            let names: Vec<String> = model
                .variants
                .keys()
                .map(|n| inert_line(n).into_owned())
                .collect();
            let _ = writeln!(out, "    variants: {}", names.join(", "));
        }
    }
}

/// ` (configured)` for a provider config touches.
fn mark(origin: Origin) -> &'static str {
    match origin {
        Origin::Bundled | Origin::Unlisted => "",
        Origin::Overridden | Origin::Config => " (configured)",
    }
}

fn protocol(protocol: Protocol) -> &'static str {
    match protocol {
        Protocol::OpenaiChat => "openai-chat",
        Protocol::OpenaiResponses => "openai-responses",
        Protocol::AnthropicMessages => "anthropic",
    }
}

fn tokens(limit: Option<u64>) -> String {
    limit.map_or_else(|| "-".to_owned(), |n| n.to_string())
}

/// USD per million with two decimals, three where a price needs them (0.025).
fn price(usd: f64) -> String {
    let text = format!("{usd:.3}");
    match text.strip_suffix('0') {
        Some(short) => short.to_owned(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_keep_the_digits_they_need() {
        assert_eq!(price(3.0), "3.00");
        assert_eq!(price(0.025), "0.025");
        assert_eq!(price(1.25), "1.25");
        assert_eq!(tokens(None), "-");
    }
}
