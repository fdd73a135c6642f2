use std::path::Path;

use super::*;

fn convert(text: &str) -> Result<Layer, ConfigError> {
    let env = |name: &str| (name == "KEY").then(|| "secret".to_owned());
    layer(
        Path::new("opencode.json"),
        text,
        Path::new("/p"),
        &env,
        crate::substitute::Tokens::Resolve,
    )
}

fn at(layer: &Layer, path: &[&str]) -> String {
    let path: Vec<String> = path.iter().map(|p| (*p).to_owned()).collect();
    layer
        .origins
        .iter()
        .rev()
        .find(|(key, _)| *key == path)
        .map(|(_, at)| at.to_string())
        .unwrap_or_default()
}

#[test]
fn documented_shapes_map_onto_ward_keys() {
    let text = r#"{
  "$schema": "https://opencode.ai/config.json",
  // comments and trailing commas are JSONC
  "model": "local/qwen",
  "permission": { "edit": "ask", "bash": { "*": "ask", "git status": "allow", }, },
  "tools": { "webfetch": false, "read": true },
  "provider": {
    "local": {
      "npm": "@ai-sdk/openai-compatible",
      "options": { "baseURL": "http://127.0.0.1:9/v1", "apiKey": "{env:KEY}" },
      "models": { "qwen": { "id": "qwen-long", "limit": { "context": 8000, "output": 512 } } }
    }
  },
  "agent": { "review": { "mode": "subagent", "maxSteps": 3, "tools": { "bash": false } } },
  "command": { "ship": { "template": "Ship $ARGUMENTS", "agent": "review" } },
  "mcp": { "probe": { "type": "local", "command": ["node", "p.js"], "enabled": true } },
  "share": "disabled",
}"#;
    let layer = convert(text).unwrap();
    let expected: toml::Table = toml::from_str(
        r#"
model = "local/qwen"
[permission]
edit = "ask"
bash = { "*" = "ask", "git status" = "allow" }
webfetch = "deny"
[provider.local]
kind = "openai-compatible"
base_url = "http://127.0.0.1:9/v1"
api_key = "secret"
[provider.local.models.qwen]
api_id = "qwen-long"
context = 8000
output = 512
[agent.review]
mode = "subagent"
steps = 3
permission = { bash = "deny" }
[command.ship]
template = "Ship $ARGUMENTS"
agent = "review"
[mcp.probe]
type = "local"
command = ["node", "p.js"]
enabled = true
"#,
    )
    .unwrap();
    assert_eq!(layer.table, expected);
    assert!(layer.warnings.is_empty(), "{:?}", layer.warnings);
    assert_eq!(at(&layer, &["model"]), "opencode.json:4:3");
    assert_eq!(
        at(&layer, &["permission", "bash", "git status"]),
        "opencode.json:5:56"
    );
    assert_eq!(
        at(&layer, &["permission", "webfetch"]),
        "opencode.json:6:14"
    );
    assert_eq!(
        at(&layer, &["provider", "local", "base_url"]),
        "opencode.json:10:20"
    );
}

#[test]
fn unsupported_and_unknown_keys_are_one_located_warning_each() {
    let text = "{\n  \"plugin\": [\"x\"],\n  \"frobnicate\": 1,\n  \"agent\": { \"a\": { \"reasoningEffort\": \"high\" } }\n}";
    let layer = convert(text).unwrap();
    let warnings: Vec<String> = layer.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(
        warnings[0].starts_with("opencode.json:2:3: \"plugin\" loads JavaScript plugins unsandboxed; Ward does not run them"),
        "{warnings:?}"
    );
    assert!(
        warnings[1].starts_with("opencode.json:3:3: unknown key \"frobnicate\""),
        "{warnings:?}"
    );
    assert!(
        warnings[2].starts_with("opencode.json:4:21: \"agent.a.reasoningEffort\""),
        "{warnings:?}"
    );
}

#[test]
fn malformed_jsonc_is_a_located_error() {
    let err = convert("{\n  \"model\": \"a/b\"\n  \"x\": 1\n}")
        .err()
        .unwrap();
    assert!(
        err.to_string()
            .starts_with("opencode.json:2:17: invalid JSON: Expected comma"),
        "{err}"
    );
    let err = convert("{\n  \"model\": 'a/b'\n}").err().unwrap();
    assert!(
        err.to_string()
            .starts_with("opencode.json:2:12: invalid JSON"),
        "{err}"
    );
}

#[test]
fn schema_errors_point_into_the_json_file() {
    let err = convert("{\n  \"agent\": {\n    \"a\": { \"mode\": \"sometimes\" }\n  }\n}")
        .err()
        .unwrap();
    assert!(err.to_string().starts_with("opencode.json:3:12: "), "{err}");
    assert!(err.to_string().contains("agent.a.mode"), "{err}");
    let err = convert("{ \"model\": \"no-slash\" }").err().unwrap();
    assert!(err.to_string().starts_with("opencode.json:1:3: "), "{err}");
    let err = convert("[1]").err().unwrap();
    assert!(err.to_string().starts_with("opencode.json:1:1: "), "{err}");
}

#[test]
fn an_empty_file_says_nothing() {
    let layer = convert("// nothing yet\n").unwrap();
    assert!(layer.table.is_empty() && layer.warnings.is_empty());
}

#[test]
fn switching_off_a_file_writer_switches_off_edit_and_says_so() {
    let layer = convert("{ \"tools\": { \"write\": false } }").unwrap();
    assert_eq!(layer.table["permission"]["edit"].as_str(), Some("deny"));
    let warnings: Vec<String> = layer.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with("opencode.json:1:14: \"tools.write\""),
        "{warnings:?}"
    );
}
