//! Secrets never reach `ward config show` or `GET /config`'s JSON: the fixed
//! credential fields, substituted values (whole or in part, in strings and array
//! elements), URL credentials; and a later layer's plain value is shown again.

use super::*;
use crate::show::settings;
use crate::testutil::{TempDir, env};

const SECRETS: &[&str] = &[
    "sk-KEY-1",
    "tok-HEADER-2",
    "pw-URL-3",
    "arg-TOKEN-4",
    "PROMPT-5",
];

/// The user's global `ward.toml` (trusted, so its `{env:…}` and `{file:…}`
/// resolve) in `dir/cfg/ward/`, for a project in `dir/proj`; `WARD_CONFIG` names
/// `later` when given.
fn load_global(dir: &TempDir, global: &str, later: Option<&str>) -> LoadedConfig {
    dir.write("proj/.git/HEAD", "");
    dir.write("cfg/ward/ward.toml", global);
    dir.write("cfg/ward/prompt.txt", "PROMPT-5\n");
    let cfg = dir.path().join("cfg").to_string_lossy().into_owned();
    let mut vars = vec![
        ("XDG_CONFIG_HOME", cfg.as_str()),
        ("KEY", "sk-KEY-1"),
        ("TOKEN", "tok-HEADER-2"),
        ("ARG", "arg-TOKEN-4"),
        ("HOST", "svc.example"),
    ];
    let later_path;
    if let Some(text) = later {
        later_path = dir.write("later.toml", text).to_string_lossy().into_owned();
        vars.push(("WARD_CONFIG", later_path.as_str()));
    }
    crate::load_with_env(&dir.path().join("proj"), &env(&vars)).unwrap()
}

const GLOBAL: &str = r#"
model = "p/m"
[provider.p]
base_url = "https://me:pw-URL-3@proxy.example/v1"
api_key = "{env:KEY}"
headers = { Authorization = "Bearer {env:TOKEN}", X-Plain = "visible" }
[provider.q]
base_url = "https://{env:HOST}/v1"
[mcp.db]
type = "local"
command = ["node", "srv.js", "--token", "{env:ARG}"]
environment = { LEVEL = "warn" }
[agent.build]
prompt = "{file:prompt.txt}"
"#;

fn shown(loaded: &LoadedConfig) -> Vec<String> {
    settings(loaded)
        .iter()
        .map(|s| format!("{} = {}", s.key, s.value))
        .collect()
}

#[test]
fn config_show_hides_every_secret_and_only_secrets() {
    let dir = TempDir::new();
    let loaded = load_global(&dir, GLOBAL, None);
    let lines = shown(&loaded);
    for secret in SECRETS {
        assert!(
            !lines.iter().any(|l| l.contains(secret)),
            "{secret} shown in {lines:#?}"
        );
    }
    for line in [
        "model = \"p/m\"",
        "provider.p.api_key = (hidden)",
        "provider.p.headers.Authorization = (hidden)",
        // A header is a credential wherever its value came from.
        "provider.p.headers.X-Plain = (hidden)",
        "provider.p.base_url = \"https://***@proxy.example/v1\"",
        // Partly substituted: the whole value is hidden.
        "provider.q.base_url = (hidden)",
        "mcp.db.command = [\"node\", \"srv.js\", \"--token\", \"***\"]",
        "mcp.db.environment.LEVEL = (hidden)",
        "agent.build.prompt = (hidden)",
    ] {
        assert!(lines.contains(&line.to_owned()), "{line} not in {lines:#?}");
    }
}

#[test]
fn the_json_of_get_config_keeps_its_shape_and_loses_its_secrets() {
    let dir = TempDir::new();
    let loaded = load_global(&dir, GLOBAL, None);
    let json = config_json(&loaded).unwrap();
    let text = json.to_string();
    for secret in SECRETS {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    let unredacted = serde_json::to_value(&loaded.config).unwrap();
    assert_eq!(shape(&json), shape(&unredacted), "only values change");
    let p = &json["provider"]["p"];
    assert_eq!(p["api_key"], "***");
    assert_eq!(p["headers"]["Authorization"], "***");
    assert_eq!(p["base_url"], "https://***@proxy.example/v1");
    assert_eq!(json["provider"]["q"]["base_url"], "***");
    assert_eq!(
        json["mcp"]["db"]["command"],
        serde_json::json!(["node", "srv.js", "--token", "***"])
    );
    assert_eq!(json["mcp"]["db"]["environment"]["LEVEL"], "***");
    assert_eq!(json["model"], "p/m");
    // An unset key stays unset, not "***".
    assert_eq!(json["provider"]["q"]["api_key"], serde_json::Value::Null);
}

/// A value's type at every path, values left out.
fn shape(value: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, inner)| (key.clone(), shape(inner)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(shape).collect()),
        Value::String(_) => "string".into(),
        Value::Number(_) => "number".into(),
        Value::Bool(_) => "bool".into(),
        Value::Null => Value::Null,
    }
}

#[test]
fn a_later_layers_plain_value_is_shown_and_its_substituted_one_hidden() {
    let dir = TempDir::new();
    let loaded = load_global(
        &dir,
        GLOBAL,
        Some(
            "[provider.q]\nbase_url = \"https://plain.example/v1\"\n\
             [mcp.db]\ntype = \"local\"\ncommand = [\"node\", \"srv.js\", \"--port\", \"8\"]\n\
             [agent.plan]\nprompt = \"{env:KEY}\"\n",
        ),
    );
    let lines = shown(&loaded);
    for line in [
        "provider.q.base_url = \"https://plain.example/v1\"",
        "mcp.db.command = [\"node\", \"srv.js\", \"--port\", \"8\"]",
        // Untouched by the later layer: still the global file's substituted value.
        "agent.build.prompt = (hidden)",
        "agent.plan.prompt = (hidden)",
    ] {
        assert!(lines.contains(&line.to_owned()), "{line} not in {lines:#?}");
    }
}

#[test]
fn an_opencode_files_substituted_values_are_marked_where_they_land() {
    let text = r#"{
      "provider": { "p": { "options": { "baseURL": "https://{env:KEY}.example" } } },
      "mcp": { "db": { "type": "local", "command": ["node", null, "{env:KEY}"] } },
      "instructions": ["plain.md"]
    }"#;
    let env = env(&[("KEY", "sk-KEY-1")]);
    let layer = crate::opencode_json::layer(
        std::path::Path::new("opencode.json"),
        text,
        std::path::Path::new("/p"),
        &env,
        crate::substitute::Tokens::Resolve,
    )
    .unwrap();
    let marked: Vec<String> = layer.substituted.iter().map(|p| p.join(".")).collect();
    // The null is dropped, so the token is the array's second element.
    assert_eq!(marked, ["provider.p.base_url", "mcp.db.command.1"]);
}

#[test]
fn an_opencode_files_substituted_values_are_hidden_once_loaded() {
    // Needs `read_layer` in load.rs to hand the OpenCode layer's marks to the
    // origins (`origins.mark_substituted(file, converted.substituted)`).
    let dir = TempDir::new();
    dir.write("proj/.git/HEAD", "");
    dir.write(
        "cfg/opencode/opencode.json",
        r#"{ "mcp": { "db": { "type": "local", "command": ["node", "--token", "{env:ARG}"] } },
             "provider": { "p": { "api": "https://{env:HOST}/v1" } } }"#,
    );
    let cfg = dir.path().join("cfg").to_string_lossy().into_owned();
    let vars = [
        ("XDG_CONFIG_HOME", cfg.as_str()),
        ("ARG", "arg-TOKEN-4"),
        ("HOST", "internal-HOST-6"),
    ];
    let loaded = crate::load_with_env(&dir.path().join("proj"), &env(&vars)).unwrap();
    let lines = shown(&loaded);
    for line in [
        "mcp.db.command = [\"node\", \"--token\", \"***\"]",
        "provider.p.base_url = (hidden)",
    ] {
        assert!(lines.contains(&line.to_owned()), "{line} not in {lines:#?}");
    }
}

#[test]
fn url_credentials_are_masked_wherever_a_url_sits_in_a_text() {
    for (text, masked) in [
        ("https://u:p@h.example/x", "https://***@h.example/x"),
        ("https://ghp_tok@github.com", "https://***@github.com"),
        (
            "a postgres://u:p@db:5432/x and http://k@h?q",
            "a postgres://***@db:5432/x and http://***@h?q",
        ),
        ("https://a:b@c@h/p", "https://***@h/p"),
    ] {
        assert_eq!(mask_url_credentials(text), masked, "{text}");
    }
    for plain in [
        "https://h.example/x?mail=a@b",
        "https://h/p#frag@x",
        "git@github.com:a/b",
        "https://@h/",
        "no url",
    ] {
        assert!(
            matches!(mask_url_credentials(plain), Cow::Borrowed(_)),
            "{plain}"
        );
    }
}
