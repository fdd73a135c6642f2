//! The bundled catalogue is complete and consistent; lookups find models by
//! `provider/model`, bare id and wire id; config wins field by field; bad
//! overrides are reported where they were written.

use std::path::PathBuf;

use ward_config::{Config, Origins};

use super::*;

fn with(config: &str) -> Result<ModelRegistry, RegistryError> {
    let config: Config = ward_config::load_from_str("ward.toml", config).unwrap();
    ModelRegistry::from_config(&config, &Origins::default())
}

/// Loads `text` as the project's only `ward.toml` (through the real layering,
/// so errors carry its origins) and builds the registry.
fn from_file(name: &str, text: &str) -> (PathBuf, Result<ModelRegistry, RegistryError>) {
    let dir = std::env::temp_dir().join(format!("ward-registry-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::write(dir.join("ward.toml"), text).unwrap();
    let loaded = ward_config::load_with_env(&dir, &|_| None).unwrap();
    let registry = ModelRegistry::from_config(&loaded.config, &loaded.origins);
    let file = dir.join("ward.toml");
    let _ = std::fs::remove_dir_all(&dir);
    (file, registry)
}

#[test]
fn every_bundled_model_has_limits_prices_and_a_reachable_provider() {
    let registry = ModelRegistry::bundled().unwrap();
    let ids: Vec<&str> = registry.providers().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["anthropic", "google", "openai"]);
    for provider in registry.providers() {
        assert_eq!(provider.origin, Origin::Bundled);
        assert!(provider.base_url.starts_with("https://"), "{provider:?}");
        assert!(!provider.env.is_empty(), "{provider:?}");
        assert!(provider.models.len() >= 4, "{provider:?}");
        for m in provider.models.values() {
            let (context, output) = (m.limits.context.unwrap(), m.limits.output.unwrap());
            assert!(output < context, "{m:?}");
            assert!(m.limits.input.is_none_or(|input| input < context), "{m:?}");
            assert!(
                m.prices.input > 0.0 && m.prices.output > m.prices.input,
                "{m:?}"
            );
            assert!(m.prices.cache_read < m.prices.input, "{m:?}");
            assert!(m.capabilities.tool_call, "{m:?}");
            assert_eq!(m.origin, Origin::Bundled);
        }
    }
    let protocol = |id| registry.provider(id).map(|p| p.protocol);
    assert_eq!(protocol("openai"), Some(Protocol::OpenaiResponses));
    assert_eq!(protocol("anthropic"), Some(Protocol::AnthropicMessages));
    assert_eq!(protocol("google"), Some(Protocol::OpenaiChat));
    // Anthropic bills cache writes; the others do not.
    assert!(
        registry
            .get("anthropic", "claude-opus-4")
            .unwrap()
            .prices
            .cache_write
            > 0.0
    );
    assert_eq!(
        registry.get("openai", "gpt-4o").unwrap().prices.cache_write,
        0.0
    );
}

#[test]
fn lookup_by_provider_and_model_by_bare_id_and_by_wire_id() {
    let registry = ModelRegistry::bundled().unwrap();
    let sonnet = registry.resolve("anthropic/claude-sonnet-4").unwrap();
    assert_eq!(sonnet.api_id, "claude-sonnet-4-20250514");
    assert_eq!(
        sonnet.limits,
        Limits {
            context: Some(200_000),
            input: None,
            output: Some(64_000)
        }
    );
    assert_eq!(sonnet.prices.as_array(), [3.0, 15.0, 0.3, 3.75]);
    assert!(sonnet.capabilities.reasoning && sonnet.capabilities.attachment);

    assert_eq!(registry.resolve("claude-sonnet-4").unwrap(), sonnet);
    assert_eq!(
        registry.resolve("claude-sonnet-4-20250514").unwrap(),
        sonnet
    );
    assert_eq!(
        registry.get("anthropic", "claude-sonnet-4-20250514"),
        Some(&sonnet)
    );

    let gpt5 = registry.resolve("gpt-5").unwrap();
    assert_eq!(
        (gpt5.provider.as_str(), gpt5.limits.input),
        ("openai", Some(272_000))
    );
    assert!(!gpt5.capabilities.temperature);
    assert_eq!(
        registry
            .resolve("google/gemini-2.5-pro")
            .unwrap()
            .limits
            .context,
        Some(1_048_576)
    );
}

#[test]
fn lookup_failures_say_what_to_write() {
    let registry = ModelRegistry::bundled().unwrap();
    let err = |r: &str| registry.resolve(r).unwrap_err().to_string();
    assert_eq!(
        err("anthropic/claude-sonet-4"),
        "unknown model `claude-sonet-4` for provider `anthropic` (see `ward models anthropic`, \
         or describe it under [provider.anthropic.models.\"claude-sonet-4\"])"
    );
    assert_eq!(
        err("local/qwen"),
        "unknown provider `local` (known: anthropic, google, openai); add [provider.local] with \
         a base_url"
    );
    assert!(err("qwen").starts_with("no provider offers a model `qwen`"));

    let registry =
        with("[provider.proxy]\nbase_url = \"http://p/v1\"\n[provider.proxy.models.gpt-4o]\n")
            .unwrap();
    assert_eq!(
        registry.resolve("gpt-4o").unwrap_err().to_string(),
        "model `gpt-4o` is offered by several providers; write one of: openai/gpt-4o, proxy/gpt-4o"
    );
    assert_eq!(
        registry.resolve("proxy/gpt-4o").unwrap().origin,
        Origin::Config
    );
}

#[test]
fn config_overrides_one_field_and_keeps_the_rest() {
    let registry = with(
        "[provider.anthropic]\nbase_url = \"https://proxy.example/v1\"\nheaders = { \"x-team\" = \"a\" }\n\
         [provider.anthropic.models.claude-sonnet-4]\noutput = 8192\ncost = { input = 2.5 }\nreasoning = false\n",
    )
    .unwrap();
    let anthropic = registry.provider("anthropic").unwrap();
    assert_eq!(anthropic.origin, Origin::Overridden);
    assert_eq!(anthropic.base_url, "https://proxy.example/v1");
    assert_eq!(anthropic.protocol, Protocol::AnthropicMessages);
    assert_eq!(anthropic.env, ["ANTHROPIC_API_KEY"]);
    assert_eq!(anthropic.headers, [("x-team".to_owned(), "a".to_owned())]);

    let sonnet = registry.resolve("anthropic/claude-sonnet-4").unwrap();
    assert_eq!(sonnet.origin, Origin::Overridden);
    assert_eq!(
        (sonnet.limits.context, sonnet.limits.output),
        (Some(200_000), Some(8192))
    );
    assert_eq!(sonnet.prices.as_array(), [2.5, 15.0, 0.3, 3.75]);
    assert_eq!(sonnet.api_id, "claude-sonnet-4-20250514");
    assert!(!sonnet.capabilities.reasoning && sonnet.capabilities.attachment);
    // Models nobody overrode are untouched.
    assert_eq!(
        registry.get("anthropic", "claude-opus-4").unwrap().origin,
        Origin::Bundled
    );
}

#[test]
fn config_defines_new_providers_and_their_models() {
    let registry = with(
        "[provider.local]\nbase_url = \"http://127.0.0.1:8000/v1\"\nenv = [\"LOCAL_KEY\"]\n\
         [provider.local.models.qwen]\napi_id = \"Qwen/Qwen3-32B\"\ncontext = 32768\noutput = 4096\n",
    )
    .unwrap();
    let local = registry.provider("local").unwrap();
    assert_eq!(
        (local.origin, local.protocol),
        (Origin::Config, Protocol::OpenaiChat)
    );
    let qwen = registry.resolve("local/qwen").unwrap();
    assert_eq!(qwen.api_id, "Qwen/Qwen3-32B");
    assert_eq!(
        (qwen.limits.context, qwen.limits.output),
        (Some(32768), Some(4096))
    );
    assert_eq!(qwen.prices, Prices::default());
    assert_eq!(qwen.capabilities, Capabilities::default());
    // A configured provider may serve models it does not list.
    let other = registry.resolve("local/llama").unwrap();
    assert_eq!(
        (other.origin, other.limits),
        (Origin::Unlisted, Limits::default())
    );

    let key = |vars: &[(&str, &str)]| {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        local.api_key(&move |name: &str| {
            vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
        })
    };
    assert_eq!(key(&[("LOCAL_KEY", "k")]), Some("k".to_owned()));
    assert_eq!(key(&[("LOCAL_KEY", "")]), None);
    assert_eq!(key(&[]), None);
}

#[test]
fn a_bad_override_names_the_file_line_and_column_that_made_it() {
    let (file, registry) = from_file(
        "limits",
        "model = \"anthropic/claude-sonnet-4\"\n[provider.anthropic.models.claude-sonnet-4]\ncontext = 8000\n",
    );
    let err = registry.unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "{}:3:1: the output limit of 64000 tokens exceeds the context window of 8000 tokens; \
             lower `output` or raise `context` (provider.anthropic.models.claude-sonnet-4.output)",
            file.display()
        )
    );

    let (file, registry) = from_file(
        "nourl",
        "[provider.openai]\nkind = \"openai-compatible\"\n\n[provider.local.models.qwen]\ncontext = 8\n",
    );
    assert_eq!(
        registry.unwrap_err().to_string(),
        format!(
            "{}:4:11: provider `local` is not in the bundled catalogue, so it needs a `base_url` \
             (provider.local)",
            file.display()
        )
    );
}

#[test]
fn endpoints_carry_the_key_from_config_before_the_environment() {
    let registry = with("[provider.openai]\napi_key = \"from-config\"\n").unwrap();
    let env = |name: &str| (name == "OPENAI_API_KEY").then(|| "from-env".to_owned());
    let endpoint = registry.provider("openai").unwrap().endpoint(&env);
    assert_eq!(endpoint.base_url, "https://api.openai.com/v1");
    assert_eq!(endpoint.api_key.as_deref(), Some("from-config"));
    let bundled = ModelRegistry::bundled().unwrap();
    let endpoint = bundled.provider("openai").unwrap().endpoint(&env);
    assert_eq!(endpoint.api_key.as_deref(), Some("from-env"));
}

#[test]
fn the_catalogue_reads_the_same_plain_and_checked() {
    let plain: ward_config::Config = toml::from_str(super::CATALOGUE).expect("plain");
    let checked =
        ward_config::load_from_str(super::CATALOGUE_NAME, super::CATALOGUE).expect("checked");
    assert_eq!(plain, checked);
    assert!(!plain.provider.is_empty());
}

#[test]
fn models_config_names_but_does_not_declare_are_listed_with_unknown_limits() {
    let registry = with(
        "model = \"local/qwen-coder\"\nsmall_model = \"local/tiny\"\n\
         [agent.review]\nmodel = \"local/reviewer\"\n\
         [provider.local]\nbase_url = \"http://127.0.0.1:8000/v1\"\n\
         [provider.local.models.declared]\ncontext = 8192\n",
    )
    .unwrap();
    let local = registry.provider("local").unwrap();
    let mut listed: Vec<&str> = local.models.keys().map(String::as_str).collect();
    listed.sort_unstable();
    assert_eq!(listed, ["declared", "qwen-coder", "reviewer", "tiny"]);
    let named = &local.models["qwen-coder"];
    assert_eq!(
        (named.origin, named.limits),
        (Origin::Unlisted, Limits::default())
    );
    assert_eq!(local.models["declared"].origin, Origin::Config);
    // A bundled provider's unknown model is a typo, not a model to list.
    let bundled = with("model = \"anthropic/claude-nope\"\n").unwrap();
    assert!(
        bundled
            .provider("anthropic")
            .unwrap()
            .model("claude-nope")
            .is_none()
    );
}
