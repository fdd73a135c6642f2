//! The schema: the documented example parses, and each kind of mistake is
//! reported at its exact position.

use super::*;
use crate::load::load_from_str;

fn err(text: &str) -> String {
    match load_from_str("ward.toml", text) {
        Ok(config) => panic!("expected an error, got {config:?}"),
        Err(e) => e.to_string(),
    }
}

const FULL: &str = r##"
model = "local/qwen"
small_model = "local/qwen"
default_agent = "build"
instructions = ["docs/*.md"]
plugin_paths = ["/opt/ward-plugins"]
[provider.local]
kind = "openai-compatible"
base_url = "http://127.0.0.1:8080/v1"
api_key = "secret"
headers = { "x-foo" = "bar" }
[provider.local.models.qwen]
name = "Qwen 3"
context = 32768
input = 30000
output = 4096
cost = { input = 0.5, output = 1, cache_read = 0.0, cache_write = 0.0 }
tokenizer = "o200k"
[permission]
edit = "ask"
bash = { "*" = "ask", "git status" = "allow" }
[plugins.my-tool]
grant = ["fs-read", "net:https://api.example.com", "exec:git *"]
enabled = false
path = "/opt/my-tool"
[compaction]
auto = false
prune = true
reserved = 20000
threshold = 0.9
[tool_output]
max_lines = 100
max_bytes = 2048
[retry]
connect_seconds = 5
[agent.review]
description = "Reviews code"
mode = "subagent"
hidden = true
model = "local/qwen"
temperature = 0.1
top_p = 0.9
prompt = "Review."
steps = 5
permission = { edit = "deny" }
disable = false
color = "#ff8800"
"##;

#[test]
fn the_documented_example_parses() {
    let config = load_from_str("ward.toml", FULL).unwrap();
    assert_eq!(config.model.as_deref(), Some("local/qwen"));
    let local = &config.provider["local"];
    assert_eq!(local.kind, Some(ProviderKind::OpenaiCompatible));
    assert_eq!(local.headers["x-foo"], "bar");
    let qwen = &local.models["qwen"];
    assert_eq!(
        (qwen.context, qwen.input, qwen.output),
        (Some(32768), Some(30000), Some(4096))
    );
    assert_eq!(qwen.cost.and_then(|c| c.output), Some(1.0));
    assert_eq!(qwen.tokenizer, Some(Tokenizer::O200k));
    let keys: Vec<_> = config.permission.keys().cloned().collect();
    assert_eq!(keys, ["edit", "bash"]);
    let bash: Vec<_> = config.permission["bash"]
        .as_table()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(bash, ["*", "git status"]);
    let tool = &config.plugins["my-tool"];
    let grant = tool.grant.as_ref().unwrap();
    assert_eq!(grant.len(), 3);
    assert_eq!(grant[1].to_string(), "net:https://api.example.com");
    assert!(!tool.enabled);
    assert_eq!(
        tool.path.as_deref(),
        Some(std::path::Path::new("/opt/my-tool"))
    );
    assert_eq!(config.compaction.threshold, Some(0.9));
    assert!(!config.compaction.auto);
    assert_eq!(config.tool_output.max_lines, 100);
    assert_eq!(config.retry.connect_seconds, Some(5));
    let review = &config.agent["review"];
    assert_eq!(review.mode, Some(AgentMode::Subagent));
    assert_eq!(review.steps, Some(5));
    assert!(
        review
            .permission
            .as_ref()
            .is_some_and(|p| p.contains_key("edit"))
    );
}

#[test]
fn defaults_apply_to_an_empty_file() {
    let config = load_from_str("ward.toml", "").unwrap();
    assert_eq!(config, Config::default());
    assert!(config.compaction.auto && config.compaction.prune);
    assert_eq!(config.tool_output.max_lines, 2000);
    assert_eq!(config.tool_output.max_bytes, 51200);
    let plugin: PluginConfig = toml::from_str("").unwrap();
    assert!(plugin.enabled);
}

#[test]
fn unknown_top_level_key() {
    assert_eq!(
        err("model = \"a/b\"\n\npermisions = 1\n"),
        "ward.toml:3:1: unknown key `permisions` in the top level (expected one of: model, \
         small_model, default_agent, instructions, plugin_paths, provider, permission, plugins, \
         compaction, tool_output, agent, marketplace, sandbox, retry, mcp, command, snapshot)"
    );
}

#[test]
fn unknown_key_in_nested_tables() {
    assert_eq!(
        err("[provider.x]\nbase_url = \"u\"\n  kindd = \"anthropic\"\n"),
        "ward.toml:3:3: unknown key `kindd` in [provider.x] (expected one of: kind, base_url, \
         api_key, env, headers, models)"
    );
    assert_eq!(
        err("[provider.x.models.m]\ncost = { input = 1, outptu = 2 }\n"),
        "ward.toml:2:21: unknown key `outptu` in [provider.x.models.m.cost] (expected one of: \
         input, output, cache_read, cache_write)"
    );
    assert_eq!(
        err("[plugins.\"my tool\"]\ngrants = []\n"),
        "ward.toml:2:1: unknown key `grants` in [plugins.\"my tool\"] (expected one of: grant, \
         enabled, path, replaces)"
    );
    assert_eq!(
        err("agent.review.tempreature = 1\n"),
        "ward.toml:1:14: unknown key `tempreature` in [agent.review] (expected one of: \
         description, mode, hidden, model, temperature, top_p, variant, prompt, steps, \
         permission, disable, color)"
    );
}

#[test]
fn wrong_types() {
    assert_eq!(
        err("\nmodel = 3\n"),
        "ward.toml:2:9: invalid type: expected a string, found an integer (model)"
    );
    assert_eq!(
        err("[compaction]\nauto = \"yes\"\n"),
        "ward.toml:2:8: invalid type: expected a boolean, found a string (compaction.auto)"
    );
    assert_eq!(
        err("instructions = \"docs/*.md\"\n"),
        "ward.toml:1:16: invalid type: expected an array, found a string (instructions)"
    );
    assert_eq!(
        err("instructions = [\"a\", 2]\n"),
        "ward.toml:1:22: invalid type: expected a string, found an integer (instructions[1])"
    );
    assert_eq!(
        err("compaction = 1\n"),
        "ward.toml:1:14: invalid type: expected a table, found an integer (compaction)"
    );
    assert_eq!(
        err("[tool_output]\nmax_lines = -1\n"),
        "ward.toml:2:13: invalid value: expected a non-negative integer, found the integer -1 \
         (tool_output.max_lines)"
    );
}

#[test]
fn unknown_enum_values_list_the_choices() {
    assert_eq!(
        err("[provider.local]\nkind = \"openai\"\n"),
        "ward.toml:2:8: unknown value `openai` for provider.local.kind (expected one of: \
         openai-compatible, openai-responses, anthropic)"
    );
    assert_eq!(
        err("[agent.a]\nmode = \"main\"\n"),
        "ward.toml:2:8: unknown value `main` for agent.a.mode (expected one of: primary, \
         subagent, all)"
    );
    assert_eq!(
        err("[provider.p.models.m]\ntokenizer = \"gpt2\"\n"),
        "ward.toml:2:13: unknown value `gpt2` for provider.p.models.m.tokenizer (expected one \
         of: o200k, cl100k, estimate)"
    );
}

#[test]
fn value_checks_are_located() {
    assert_eq!(
        err("model = \"qwen\"\n"),
        "ward.toml:1:9: expected a model as `provider/model`, found `qwen` (model)"
    );
    assert_eq!(
        err("[compaction]\nthreshold = 90\n"),
        "ward.toml:2:13: expected a fraction greater than 0 and at most 1, found 90 \
         (compaction.threshold)"
    );
    assert_eq!(
        err("[plugins.x]\ngrant = [\"fs-read\", \"fs-rd:/tmp\"]\n"),
        "ward.toml:2:21: unknown capability `fs-rd` (expected one of: fs-read, fs-write, net, \
         exec, env, hooks) (plugins.x.grant[1])"
    );
    assert_eq!(
        err("[provider.p.models.m]
context = 0
"),
        "ward.toml:2:11: expected a token count of at least 1, found 0 \
         (provider.p.models.m.context)"
    );
    assert_eq!(
        err("[provider.p.models.m]
cost = { input = -1 }
"),
        "ward.toml:2:18: expected a price of 0 or more (USD per million tokens), found -1 \
         (provider.p.models.m.cost.input)"
    );
}

#[test]
fn syntax_errors_are_located() {
    let e = err("model = \"a/b\"\n[provider\n");
    assert!(e.starts_with("ward.toml:2:10: invalid TOML: "), "{e}");
    let e = err("a = \"unterminated\n");
    assert!(e.starts_with("ward.toml:1:"), "{e}");
}

#[test]
fn marketplace_sources_and_keys() {
    let key = "AB".repeat(32);
    let config = load_from_str(
        "ward.toml",
        &format!(
            "[marketplace]\nkeys = [\"{key}\"]\n[[marketplace.sources]]\nname = \"team\"\n\
             url = \"https://plugins.example.com/index.json\"\nrequire_signature = true\n\
             [[marketplace.sources]]\nname = \"local\"\nurl = \"/srv/index\"\n"
        ),
    )
    .unwrap();
    let m = &config.marketplace;
    assert_eq!(m.keys, ["ab".repeat(32)]);
    assert_eq!(m.sources.len(), 2);
    assert!(m.sources[0].require_signature);
    assert!(
        !m.sources[1].require_signature,
        "signatures are optional by default"
    );
    assert_eq!(m.sources[1].url, "/srv/index");
}

#[test]
fn marketplace_mistakes_are_located() {
    assert_eq!(
        err("[marketplace]\nkeys = [\"abc\"]\n"),
        "ward.toml:2:9: invalid ed25519 public key `abc`: expected 64 hexadecimal digits \
         (marketplace.keys[0])"
    );
    assert_eq!(
        err("[[marketplace.sources]]\nname = \"a\"\nurl = \"x\"\nrequire-signature = true\n"),
        "ward.toml:4:1: unknown key `require-signature` in [marketplace.sources[0]] (expected \
         one of: name, url, require_signature)"
    );
    assert_eq!(
        err("[[marketplace.sources]]\nname = \"a\"\n"),
        "ward.toml:1:1: missing key `url` in [marketplace.sources[0]]"
    );
    let e = err(
        "[[marketplace.sources]]\nname = \"a\"\nurl = \"x\"\n[[marketplace.sources]]\nname = \"a\"\nurl = \"y\"\n",
    );
    assert!(e.contains("two sources are named `a`"), "{e}");
}

#[test]
fn mcp_servers_in_opencode_shape() {
    let text = r#"
[mcp.files]
type = "local"
command = ["node", "server.js", "."]
environment = { LOG = "1" }
grant = ["net", "fs-read:/opt/data"]
timeout = 2000
[mcp.search]
type = "remote"
url = "https://mcp.example.com/mcp"
headers = { Authorization = "Bearer x" }
enabled = false
"#;
    let config = load_from_str("ward.toml", text).unwrap();
    let files = &config.mcp["files"];
    assert!(files.enabled);
    assert_eq!(files.timeout, Some(2000));
    let McpServer::Local {
        command,
        environment,
        grant,
    } = &files.server
    else {
        panic!("files is not local");
    };
    assert_eq!(command, &["node", "server.js", "."]);
    assert_eq!(environment["LOG"], "1");
    assert_eq!(grant.len(), 2);
    let search = &config.mcp["search"];
    assert!(!search.enabled);
    assert!(matches!(&search.server, McpServer::Remote { url, headers }
        if url == "https://mcp.example.com/mcp" && headers["Authorization"] == "Bearer x"));
    // It survives a round trip (the merged table is deserialized again).
    let back = toml::to_string(&config).unwrap();
    assert_eq!(load_from_str("ward.toml", &back).unwrap().mcp, config.mcp);
}

#[test]
fn mcp_mistakes_are_located() {
    let e = err("[mcp.a]\ntype = \"local\"\ncomand = [\"x\"]\n");
    assert!(e.starts_with("ward.toml:3:1: unknown key `comand`"), "{e}");
    let e = err("[mcp.a]\ntype = \"stdio\"\ncommand = [\"x\"]\n");
    assert!(e.starts_with("ward.toml:2:8: "), "{e}");
    assert!(e.contains("local") && e.contains("remote"), "{e}");
    let e = err("model = \"a/b\"\n\n[mcp.a]\ntype = \"local\"\n");
    assert!(e.starts_with("ward.toml:3:1: "), "{e}");
    assert!(e.contains("needs `command`"), "{e}");
    let e = err("[mcp.a]\ntype = \"remote\"\nurl = \"ftp://x\"\n");
    assert!(e.contains("http:// or https://"), "{e}");
    let e = err("[mcp.a]\ntype = \"local\"\ncommand = [\"x\"]\ngrant = [\"fs-rd\"]\n");
    assert!(e.starts_with("ward.toml:4:10: "), "{e}");
    let e = err("[mcp.a]\ntype = \"remote\"\nurl = \"http://x\"\ngrant = [\"net\"]\n");
    assert!(e.contains("`grant`"), "{e}");
    let e = err("[mcp.a]\ntype = \"local\"\ncommand = []\n");
    assert!(e.contains("must name a program"), "{e}");
    let e = err("[mcp.a]\ntype = \"local\"\ncommand = [\"x\"]\ntimeout = \"5s\"\n");
    assert!(e.starts_with("ward.toml:4:11: "), "{e}");
}
