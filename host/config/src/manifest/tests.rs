//! Manifests: the documented example, defaults, and every error located.

use super::*;

const FULL: &str = r#"[plugin]
name = "read"
version = "0.1.0"
api = "0.1.0"
description = "Read files"
kinds = ["tool", "hook", "tool"]
component = "read.wasm"
sha256 = "ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789"

[capabilities]
fs-read = ["$WORKSPACE"]
fs-write = ["$WORKSPACE/out"]
net = ["https://api.example.com", "*.example.org"]
exec = ["git *"]
env = ["GITHUB_TOKEN"]
hooks = { tools = ["bash", "edit"], mode = "mutate" }

[limits]
memory-mib = 128
time-ms = 5000
output-bytes = 65536
fuel = 1000000
"#;

const MINIMAL: &str = "[plugin]\nname = \"x\"\nversion = \"1.0.0\"\napi = \"0.1.0\"\nkinds = [\"skill\"]\ncomponent = \"x.wasm\"\n";

const PATH: &str = ".ward/plugins/x/plugin.toml";

fn err(text: &str) -> String {
    match parse_manifest(Path::new(PATH), text) {
        Ok(m) => panic!("expected an error, got {m:?}"),
        Err(e) => e.to_string(),
    }
}

/// The minimal manifest with one line replaced (or appended when absent).
fn with(key: &str, line: &str) -> String {
    let mut lines: Vec<String> = MINIMAL.lines().map(str::to_owned).collect();
    match lines
        .iter()
        .position(|l| l.starts_with(&format!("{key} =")))
    {
        Some(i) => lines[i] = line.to_owned(),
        None => lines.push(line.to_owned()),
    }
    lines.join("\n") + "\n"
}

#[test]
fn the_documented_example_parses() {
    let m = parse_manifest(Path::new("plugin.toml"), FULL).unwrap();
    assert_eq!(
        (m.name.as_str(), m.version.as_str(), m.api.as_str()),
        ("read", "0.1.0", "0.1.0")
    );
    assert_eq!(m.description, "Read files");
    assert_eq!(m.kinds, [Kind::Tool, Kind::Hook]);
    assert_eq!(m.component, "read.wasm");
    assert_eq!(
        m.sha256.as_deref(),
        Some("abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789")
    );
    let c = &m.capabilities;
    assert_eq!(c.fs_read, ["$WORKSPACE"]);
    assert_eq!(c.fs_write, ["$WORKSPACE/out"]);
    assert_eq!(c.net, ["https://api.example.com", "*.example.org"]);
    assert_eq!(c.exec, ["git *"]);
    assert_eq!(c.env, ["GITHUB_TOKEN"]);
    assert_eq!(
        c.hooks,
        Some(HookCaps {
            tools: vec!["bash".into(), "edit".into()],
            mode: HookMode::Mutate
        })
    );
    assert_eq!(
        m.limits,
        Limits {
            memory_mib: 128,
            time_ms: 5000,
            output_bytes: 65536,
            fuel: 1_000_000
        }
    );
}

#[test]
fn defaults_are_least_privilege() {
    let m = parse_manifest(Path::new("plugin.toml"), MINIMAL).unwrap();
    assert_eq!(m.capabilities, Capabilities::default());
    assert_eq!(m.limits, Limits::default());
    assert_eq!(
        (
            m.limits.memory_mib,
            m.limits.time_ms,
            m.limits.output_bytes,
            m.limits.fuel
        ),
        (64, 30_000, 1 << 20, 0)
    );
    assert_eq!(m.sha256, None);
    assert_eq!(m.description, "");
    let m = parse_manifest(
        Path::new("p"),
        &format!("{MINIMAL}[capabilities]\nhooks = {{}}\n"),
    )
    .unwrap();
    assert_eq!(
        m.capabilities.hooks,
        Some(HookCaps {
            tools: vec!["*".into()],
            mode: HookMode::Observe
        })
    );
}

#[test]
fn unknown_keys() {
    assert_eq!(
        err(&with("author", "author = \"me\"")),
        ".ward/plugins/x/plugin.toml:7:1: unknown key `author` in [plugin] (expected one of: \
         name, version, api, description, kinds, component, sha256)"
    );
    assert_eq!(
        err(&format!("{MINIMAL}[capabilities]\nfs_read = []\n")),
        ".ward/plugins/x/plugin.toml:8:1: unknown key `fs_read` in [capabilities] (expected one \
         of: fs-read, fs-write, net, exec, env, hooks)"
    );
    assert_eq!(
        err(&format!("{MINIMAL}[limits]\nmemory = 1\n")),
        ".ward/plugins/x/plugin.toml:8:1: unknown key `memory` in [limits] (expected one of: \
         memory-mib, time-ms, output-bytes, fuel)"
    );
    assert_eq!(
        err(&format!(
            "{MINIMAL}[capabilities]\nhooks = {{ tool = [] }}\n"
        )),
        ".ward/plugins/x/plugin.toml:8:11: unknown key `tool` in [capabilities.hooks] (expected \
         one of: tools, mode)"
    );
    assert_eq!(
        err(&format!("{MINIMAL}[extra]\n")),
        ".ward/plugins/x/plugin.toml:7:2: unknown key `extra` in the top level (expected one of: \
         plugin, capabilities, limits, files, tools)"
    );
}

#[test]
fn tool_declarations_parse_and_their_mistakes_are_located() {
    let m = parse_manifest(
        Path::new(PATH),
        &format!(
            "{MINIMAL}[tools.read_pdf]\npath = \"file\"\naccess = \"read\"\noutput-tail = true\n"
        ),
    )
    .expect("parses");
    let traits = &m.tools["read_pdf"];
    assert_eq!(traits.path.as_deref(), Some("file"));
    assert_eq!(traits.access, Some(Access::Read));
    assert!(traits.output_tail && !traits.asks_itself && !traits.directory);
    assert_eq!(
        parse_manifest(Path::new(PATH), MINIMAL)
            .expect("parses")
            .tools
            .len(),
        0
    );
    let e = err(&format!("{MINIMAL}[tools.x]\naccess = \"execute\"\n"));
    assert!(e.starts_with(".ward/plugins/x/plugin.toml:8:"), "{e}");
    assert!(e.contains("execute"), "{e}");
    let e = err(&format!("{MINIMAL}[tools.x]\nreads = \"file\"\n"));
    assert!(
        e.starts_with(".ward/plugins/x/plugin.toml:8:1: unknown key `reads`"),
        "{e}"
    );
}

#[test]
fn wrong_types() {
    assert_eq!(
        err(&with("version", "version = 1")),
        ".ward/plugins/x/plugin.toml:3:11: invalid type: expected a string, found an integer \
         (plugin.version)"
    );
    assert_eq!(
        err(&with("kinds", "kinds = \"tool\"")),
        ".ward/plugins/x/plugin.toml:5:9: invalid type: expected an array, found a string \
         (plugin.kinds)"
    );
    assert_eq!(
        err(&format!("{MINIMAL}[capabilities]\nnet = [\"a\", 1]\n")),
        ".ward/plugins/x/plugin.toml:8:13: invalid type: expected a string, found an integer \
         (capabilities.net[1])"
    );
    assert_eq!(
        err(&format!("{MINIMAL}[limits]\ntime-ms = 1.5\n")),
        ".ward/plugins/x/plugin.toml:8:11: invalid type: expected a non-negative integer, found \
         a float (limits.time-ms)"
    );
}

#[test]
fn unknown_enum_values() {
    assert_eq!(
        err(&with("kinds", "kinds = [\"tool\", \"tools\"]")),
        ".ward/plugins/x/plugin.toml:5:18: unknown value `tools` for plugin.kinds[1] (expected \
         one of: tool, hook, agent, skill)"
    );
    assert_eq!(
        err(&format!(
            "{MINIMAL}[capabilities]\nhooks = {{ mode = \"rewrite\" }}\n"
        )),
        ".ward/plugins/x/plugin.toml:8:18: unknown value `rewrite` for capabilities.hooks.mode \
         (expected one of: observe, mutate)"
    );
}

#[test]
fn missing_keys() {
    assert_eq!(
        err("[plugin]\nname = \"x\"\nversion = \"1.0.0\"\napi = \"0.1.0\"\nkinds = [\"tool\"]\n"),
        ".ward/plugins/x/plugin.toml:1:1: missing key `component` in [plugin]"
    );
    assert_eq!(
        err("[limits]\nfuel = 1\n"),
        ".ward/plugins/x/plugin.toml:1:1: missing key `plugin` in the top level"
    );
}

#[test]
fn bad_name() {
    assert_eq!(
        err(&with("name", "name = \"Read\"")),
        ".ward/plugins/x/plugin.toml:2:8: invalid plugin name `Read`: use lowercase letters, \
         digits, `-` and `_`, starting with a letter or digit (plugin.name)"
    );
    assert!(err(&with("name", "name = \"-x\"")).contains("invalid plugin name `-x`"));
    assert!(err(&with("name", "name = \"\"")).contains("invalid plugin name ``"));
    for good in ["read", "my-tool_2", "0x"] {
        assert!(
            parse_manifest(Path::new("p"), &with("name", &format!("name = \"{good}\""))).is_ok()
        );
    }
}

#[test]
fn bad_versions() {
    assert_eq!(
        err(&with("version", "version = \"1.0\"")),
        ".ward/plugins/x/plugin.toml:3:11: invalid version `1.0`: expected a semantic version \
         such as 0.1.0 (plugin.version)"
    );
    assert_eq!(
        err(&with("api", "api   = \"v0.1.0\"")),
        ".ward/plugins/x/plugin.toml:4:9: invalid version `v0.1.0`: expected a semantic version \
         such as 0.1.0 (plugin.api)"
    );
    for bad in ["01.0.0", "1.0.0-", "1.0.0+", "1.0.x", "1..0"] {
        assert!(!validate::is_semver(bad), "{bad}");
    }
    for good in ["0.0.0", "1.2.3-alpha.1", "10.20.30+build.5", "1.0.0-rc-1+x"] {
        assert!(validate::is_semver(good), "{good}");
    }
}

#[test]
fn empty_kinds() {
    assert_eq!(
        err(&with("kinds", "kinds = []")),
        ".ward/plugins/x/plugin.toml:5:9: `kinds` is empty: list at least one of tool, hook, \
         agent, skill (plugin.kinds)"
    );
}

#[test]
fn bad_sha256() {
    assert_eq!(
        err(&with("sha256", "sha256 = \"abc\"")),
        ".ward/plugins/x/plugin.toml:7:10: invalid sha256 `abc`: expected 64 hexadecimal digits \
         (plugin.sha256)"
    );
    let not_hex = format!("sha256 = \"{}\"", "g".repeat(64));
    assert!(err(&with("sha256", &not_hex)).contains("invalid sha256"));
}

#[test]
fn component_must_stay_inside_the_plugin() {
    assert_eq!(
        err(&with("component", "component = \"../other/x.wasm\"")),
        ".ward/plugins/x/plugin.toml:6:13: component `../other/x.wasm` must be a relative path \
         to a file inside the plugin directory (plugin.component)"
    );
    assert!(
        err(&with("component", "component = \"/abs/x.wasm\"")).contains("must be a relative path")
    );
    assert!(err(&with("component", "component = \"\"")).contains("must be a relative path"));
    assert!(
        parse_manifest(
            Path::new("p"),
            &with("component", "component = \"./bin/x.wasm\"")
        )
        .is_ok()
    );
}

#[test]
fn bad_capability_entries() {
    assert_eq!(
        err(&format!(
            "{MINIMAL}[capabilities]\nenv = [\"HOME\", \"MY-VAR\"]\n"
        )),
        ".ward/plugins/x/plugin.toml:8:16: invalid environment variable name `MY-VAR`: use \
         letters, digits and `_`, not starting with a digit (capabilities.env[1])"
    );
    assert_eq!(
        err(&format!("{MINIMAL}[capabilities]\nfs-read = [\" \"]\n")),
        ".ward/plugins/x/plugin.toml:8:12: empty entry (capabilities.fs-read[0])"
    );
}

#[test]
fn zero_limits_are_rejected() {
    assert_eq!(
        err(&format!("{MINIMAL}[limits]\nmemory-mib = 0\n")),
        ".ward/plugins/x/plugin.toml:8:14: expected a positive integer, found 0 (limits.memory-mib)"
    );
}

#[test]
fn syntax_errors() {
    let e = err("[plugin\nname = \"x\"\n");
    assert!(
        e.starts_with(".ward/plugins/x/plugin.toml:1:8: invalid TOML: "),
        "{e}"
    );
}

#[test]
fn files_list_packaged_digests() {
    let digest = "AB".repeat(32);
    let m = parse_manifest(
        Path::new("p"),
        &format!(
            "{MINIMAL}[files]\n\"x.wasm\" = \"{digest}\"\n\"skills/a/SKILL.md\" = \"{}\"\n",
            "0".repeat(64)
        ),
    )
    .unwrap();
    assert_eq!(m.files.len(), 2);
    assert_eq!(m.files["x.wasm"], "ab".repeat(32), "digests are lowercased");
    assert!(m.files.contains_key("skills/a/SKILL.md"));
    let m = parse_manifest(Path::new("p"), MINIMAL).unwrap();
    assert!(m.files.is_empty(), "[files] is optional");
}

#[test]
fn bad_files_are_located() {
    let zero = "0".repeat(64);
    assert_eq!(
        err(&format!("{MINIMAL}[files]\n\"../x\" = \"{zero}\"\n")),
        ".ward/plugins/x/plugin.toml:8:1: invalid file path `../x`: expected a relative path \
         inside the plugin directory, `/`-separated, without `.`, `..` or `\\` (files.\"../x\")"
    );
    for bad in ["/abs", "a//b", "./a", "a\\\\b", ""] {
        let e = err(&format!("{MINIMAL}[files]\n\"{bad}\" = \"{zero}\"\n"));
        assert!(e.contains("invalid file path"), "{bad}: {e}");
    }
    assert!(
        err(&format!("{MINIMAL}[files]\n\"plugin.toml\" = \"{zero}\"\n"))
            .contains("cannot list its own digest")
    );
    assert_eq!(
        err(&format!("{MINIMAL}[files]\n\"x.wasm\" = \"abc\"\n")),
        ".ward/plugins/x/plugin.toml:8:12: invalid sha256 `abc`: expected 64 hexadecimal digits \
         (files.\"x.wasm\")"
    );
}
