//! Layering: which files are read, in which order, and which file an error
//! is blamed on.

use super::*;
use crate::testutil::{TempDir, env};

/// A tree with a global config, an outer and an inner `ward.toml`, and a
/// project `.ward/ward.toml`; each sets `model` and one key of its own.
struct Tree {
    dir: TempDir,
    vars: Vec<(String, String)>,
}

impl Tree {
    fn new() -> Self {
        let dir = TempDir::new();
        dir.write(
            "xdg/ward/ward.toml",
            "model = \"g/m\"\ninstructions = [\"global.md\"]\n[permission]\nbash = { \"*\" = \"ask\", \"git status\" = \"allow\" }\n[provider.p]\nbase_url = \"global\"\napi_key = \"k\"\n",
        );
        dir.write(
            "ws/ward.toml",
            "model = \"outer/m\"\nsmall_model = \"outer/s\"\n",
        );
        dir.write("ws/proj/.git/HEAD", "");
        dir.write(
            "ws/proj/ward.toml",
            "model = \"proj/m\"\n[provider.p]\nbase_url = \"project\"\n[permission]\nbash = { \"*\" = \"deny\" }\n",
        );
        dir.write(
            "ws/proj/.ward/ward.toml",
            "default_agent = \"plan\"\nmodel = \"dotward/m\"\n",
        );
        std::fs::create_dir_all(dir.path().join("ws/proj/src/deep")).unwrap();
        let vars = vec![
            (
                "HOME".to_owned(),
                dir.path().join("home").to_string_lossy().into_owned(),
            ),
            (
                "XDG_CONFIG_HOME".to_owned(),
                dir.path().join("xdg").to_string_lossy().into_owned(),
            ),
        ];
        Self { dir, vars }
    }

    fn load(&self, extra: &[(&str, &str)]) -> Result<LoadedConfig, ConfigError> {
        let mut vars: Vec<(&str, &str)> = self
            .vars
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        vars.extend_from_slice(extra);
        // These tests are about layering a project's own files: its user trusts it.
        crate::testutil::load_trusted(&self.dir.path().join("ws/proj/src/deep"), &env(&vars))
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }
}

#[test]
fn layers_apply_in_order_and_merge_deeply() {
    let tree = Tree::new();
    let loaded = tree.load(&[]).unwrap();
    assert_eq!(
        loaded.sources,
        [
            tree.path("xdg/ward/ward.toml"),
            tree.path("ws/ward.toml"),
            tree.path("ws/proj/ward.toml"),
            tree.path("ws/proj/.ward/ward.toml"),
        ]
    );
    assert_eq!(loaded.project_root, tree.path("ws/proj"));
    let config = &loaded.config;
    assert_eq!(config.model.as_deref(), Some("dotward/m"));
    assert_eq!(config.small_model.as_deref(), Some("outer/s"));
    assert_eq!(config.default_agent.as_deref(), Some("plan"));
    assert_eq!(config.instructions, ["global.md"]);
    // Deep merge: the project overrides base_url but keeps the global api_key.
    let p = &config.provider["p"];
    assert_eq!(p.base_url.as_deref(), Some("project"));
    assert_eq!(p.api_key.as_deref(), Some("k"));
    // The project's rule comes last, so it wins over the global ones.
    let bash = config.permission["bash"].as_table().unwrap();
    let rules: Vec<_> = bash
        .iter()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("")))
        .collect();
    assert_eq!(rules, ["git status=allow", "*=deny"]);
}

#[test]
fn ward_config_and_inline_content_come_last() {
    let tree = Tree::new();
    let explicit = tree.dir.write(
        "elsewhere/custom.toml",
        "model = \"explicit/m\"\nsmall_model = \"explicit/s\"\n",
    );
    let explicit_name = explicit.to_string_lossy().into_owned();
    let loaded = tree
        .load(&[
            ("WARD_CONFIG", &explicit_name),
            ("WARD_CONFIG_CONTENT", "model = \"inline/m\""),
        ])
        .unwrap();
    assert_eq!(loaded.config.model.as_deref(), Some("inline/m"));
    assert_eq!(loaded.config.small_model.as_deref(), Some("explicit/s"));
    let n = loaded.sources.len();
    assert_eq!(loaded.sources[n - 2], explicit);
    assert_eq!(loaded.sources[n - 1], PathBuf::from(INLINE_SOURCE));
}

#[test]
fn a_file_reached_twice_is_read_once_at_its_latest_position() {
    let tree = Tree::new();
    let global = tree
        .path("xdg/ward/ward.toml")
        .to_string_lossy()
        .into_owned();
    let loaded = tree.load(&[("WARD_CONFIG", &global)]).unwrap();
    assert_eq!(loaded.sources.len(), 4);
    assert_eq!(loaded.sources[3], tree.path("xdg/ward/ward.toml"));
    assert_eq!(loaded.config.model.as_deref(), Some("g/m"));
}

#[test]
fn errors_name_the_file_that_contributed_the_key() {
    let tree = Tree::new();
    tree.dir.write(
        "ws/ward.toml",
        "model = \"outer/m\"\n\n[compaction]\n  treshold = 0.5\n",
    );
    let err = tree.load(&[]).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "{}:4:3: unknown key `treshold` in [compaction] (expected one of: auto, prune, reserved, threshold)",
            tree.path("ws/ward.toml").display()
        )
    );
}

#[test]
fn inline_content_errors_are_named_after_the_variable() {
    let tree = Tree::new();
    let err = tree
        .load(&[(
            "WARD_CONFIG_CONTENT",
            "model = \"a/b\"\n[tool_output]\nmax_lines = \"many\"",
        )])
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "WARD_CONFIG_CONTENT:3:13: invalid type: expected a non-negative integer, found a string (tool_output.max_lines)"
    );
    let err = tree
        .load(&[("WARD_CONFIG_CONTENT", "api = {env:NOPE}")])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "WARD_CONFIG_CONTENT:1:7: environment variable `NOPE` is not set (in {env:NOPE})"
    );
}

#[test]
fn substitution_uses_the_layer_environment_and_directory() {
    let tree = Tree::new();
    tree.dir.write("ws/proj/.ward/key.txt", "from-file\n");
    tree.dir.write(
        "ws/proj/.ward/ward.toml",
        "[provider.p]\napi_key = \"{file:key.txt}\"\nheaders = { \"x-env\" = \"{env:TOKEN}\" }\n",
    );
    let loaded = tree.load(&[("TOKEN", "t0k")]).unwrap();
    let p = &loaded.config.provider["p"];
    assert_eq!(p.api_key.as_deref(), Some("from-file"));
    assert_eq!(p.headers["x-env"], "t0k");
}

#[test]
fn plugin_paths_resolve_against_their_own_file() {
    let tree = Tree::new();
    tree.dir.write(
        "ws/ward.toml",
        "plugin_paths = [\"plugins\", \"/abs\", \"~/mine\"]\n[plugins.t]\npath = \"../t\"\n",
    );
    let config = tree.load(&[]).unwrap().config;
    assert_eq!(
        config.plugin_paths,
        [
            tree.path("ws/plugins"),
            PathBuf::from("/abs"),
            tree.path("home/mine")
        ]
    );
    assert_eq!(config.plugins["t"].path, Some(tree.path("ws/../t")));
}

#[test]
fn local_marketplace_sources_resolve_against_their_own_file() {
    let tree = Tree::new();
    tree.dir.write(
        "ws/ward.toml",
        "[[marketplace.sources]]\nname = \"local\"\nurl = \"index\"\n\
         [[marketplace.sources]]\nname = \"web\"\nurl = \"https://example.com/index.json\"\n",
    );
    let config = tree.load(&[]).unwrap().config;
    let urls: Vec<&str> = config
        .marketplace
        .sources
        .iter()
        .map(|s| s.url.as_str())
        .collect();
    let local = tree.path("ws/index");
    assert_eq!(
        urls,
        [local.to_str().unwrap(), "https://example.com/index.json"]
    );
}

#[test]
fn a_missing_ward_config_file_is_an_io_error() {
    let tree = Tree::new();
    let missing = tree.path("nope.toml");
    let err = tree
        .load(&[("WARD_CONFIG", &missing.to_string_lossy())])
        .unwrap_err();
    assert!(matches!(err, ConfigError::Io { .. }));
    assert!(
        err.to_string()
            .starts_with(&format!("{}: cannot read: ", missing.display())),
        "{err}"
    );
}

#[test]
fn without_markers_the_project_root_is_the_working_directory() {
    let dir = TempDir::new();
    std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
    let home = dir.path().join("h").to_string_lossy().into_owned();
    let loaded =
        crate::testutil::load_trusted(&dir.path().join("a/b"), &env(&[("HOME", &home)])).unwrap();
    assert_eq!(loaded.project_root, dir.path().join("a/b"));
    assert!(loaded.sources.is_empty());
    assert_eq!(loaded.config, Config::default());
}

#[test]
fn global_dir_prefers_absolute_xdg_then_home() {
    assert_eq!(
        global_config_dir(&env(&[("XDG_CONFIG_HOME", "/x"), ("HOME", "/h")])),
        Some(PathBuf::from("/x/ward"))
    );
    assert_eq!(
        global_config_dir(&env(&[("XDG_CONFIG_HOME", "rel"), ("HOME", "/h")])),
        Some(PathBuf::from("/h/.config/ward"))
    );
    assert_eq!(global_config_dir(&env(&[])), None);
}

#[test]
fn conflicts_only_visible_after_merging_are_reported_without_a_location() {
    let table: toml::Table = toml::from_str("model = 3").unwrap();
    let err = into_config(table).unwrap_err();
    assert!(matches!(err, ConfigError::Merged { .. }));
    assert_eq!(
        err.to_string(),
        "merged configuration is invalid: invalid type: integer `3`, expected a string"
    );
}

#[test]
fn opencode_files_sit_just_below_ward_files_of_their_scope() {
    let tree = Tree::new();
    tree.dir.write(
        "xdg/opencode/opencode.json",
        "{ \"small_model\": \"ocg/s\", \"model\": \"ocg/m\" }",
    );
    tree.dir.write(
        "ws/proj/opencode.jsonc",
        "{\n  // project\n  \"model\": \"ocp/m\",\n  \"permission\": { \"bash\": { \"rm *\": \"deny\" } },\n  \"default_agent\": \"build\",\n  \"theme\": \"dark\",\n}\n",
    );
    let loaded = tree.load(&[]).unwrap();
    let sources: Vec<PathBuf> = loaded.sources.clone();
    assert_eq!(
        sources,
        [
            tree.path("xdg/opencode/opencode.json"),
            tree.path("xdg/ward/ward.toml"),
            tree.path("ws/proj/opencode.jsonc"),
            tree.path("ws/ward.toml"),
            tree.path("ws/proj/ward.toml"),
            tree.path("ws/proj/.ward/ward.toml"),
        ]
    );
    // Ward's files win where both say something...
    assert_eq!(loaded.config.model.as_deref(), Some("dotward/m"));
    assert_eq!(loaded.config.default_agent.as_deref(), Some("plan"));
    // ...and the project's OpenCode file wins over the global Ward file.
    assert_eq!(loaded.config.small_model.as_deref(), Some("outer/s"));
    let bash = loaded.config.permission["bash"].as_table().unwrap();
    let rules: Vec<_> = bash.keys().cloned().collect();
    assert_eq!(rules, ["git status", "rm *", "*"]);
    let at = loaded.origins.get(&["permission", "bash", "rm *"]).unwrap();
    assert_eq!(at.file, tree.path("ws/proj/opencode.jsonc"));
    assert_eq!((at.line, at.column), (4, 29));
    let warnings: Vec<String> = loaded.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with(&format!(
            "{}:6:3: \"theme\"",
            tree.path("ws/proj/opencode.jsonc").display()
        )),
        "{warnings:?}"
    );
}

#[test]
fn a_malformed_opencode_file_stops_loading_at_its_position() {
    let tree = Tree::new();
    tree.dir
        .write("ws/proj/opencode.json", "{\n  \"model\": \"a/b\",,\n}");
    let err = tree.load(&[]).err().unwrap().to_string();
    let file = tree.path("ws/proj/opencode.json");
    assert!(
        err.starts_with(&format!("{}:2:18: invalid JSON", file.display())),
        "{err}"
    );
}
