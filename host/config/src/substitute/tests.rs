//! Substitution: encoding per context, error locations, and positions after
//! substitution mapping back to the original text.

use super::*;
use crate::diagnose::Source;
use crate::schema::Config;
use crate::testutil::{TempDir, env};

fn run(text: &str, base: &Path, vars: &[(&str, &str)]) -> Result<String, String> {
    substitute(Path::new("ward.toml"), text, base, &env(vars))
        .map(|s| s.text)
        .map_err(|e| e.to_string())
}

#[test]
fn env_in_basic_strings_is_escaped() {
    let out = run(
        "api_key = \"{env:KEY}\"\n",
        Path::new("."),
        &[("KEY", "a\"b\\c\nd\u{1}")],
    );
    assert_eq!(out.as_deref(), Ok("api_key = \"a\\\"b\\\\c\\nd\\u0001\"\n"));
    let table: toml::Table = toml::from_str(&out.unwrap_or_default()).unwrap();
    assert_eq!(table["api_key"].as_str(), Some("a\"b\\c\nd\u{1}"));
}

#[test]
fn env_outside_strings_is_raw() {
    let out = run("context = {env:CTX}\n", Path::new("."), &[("CTX", "32768")]);
    assert_eq!(out.as_deref(), Ok("context = 32768\n"));
}

#[test]
fn env_inside_a_larger_string_and_literal_strings() {
    let vars = [("HOST", "localhost"), ("Q", "it's")];
    let out = run(
        "a = \"http://{env:HOST}:8080\"\nb = '{env:HOST}'\nc = '''x{env:Q}'''\n",
        Path::new("."),
        &vars,
    );
    assert_eq!(
        out.as_deref(),
        Ok("a = \"http://localhost:8080\"\nb = 'localhost'\nc = '''xit's'''\n")
    );
    assert_eq!(
        run("\nb = '{env:Q}'\n", Path::new("."), &vars),
        Err(
            "ward.toml:2:6: the value of {env:Q} contains a quote or a line break, so it cannot \
             go in a literal string; use a basic string (\"…\")"
                .to_owned()
        )
    );
}

#[test]
fn comments_and_non_tokens_are_left_alone() {
    let text = "# uses {env:UNSET}\nt = { a = 1 } # {file:missing}\ns = \"{envx:A} {env:}\"\n";
    assert_eq!(run(text, Path::new("."), &[]).as_deref(), Ok(text));
}

#[test]
fn quotes_and_escapes_do_not_confuse_the_scanner() {
    let text = "a = \"\\\"# {env:X}\"\nb = \"\"\"\n\"\"{env:X}\"\"\"\"\"\nc = {env:X}\n";
    assert_eq!(
        run(text, Path::new("."), &[("X", "1")]).as_deref(),
        Ok("a = \"\\\"# 1\"\nb = \"\"\"\n\"\"1\"\"\"\"\"\nc = 1\n")
    );
}

#[test]
fn unset_env_is_located() {
    assert_eq!(
        run("model = \"a/b\"\napi_key = \"x-{env:LOCAL_API_KEY}\"\n", Path::new("."), &[]),
        Err("ward.toml:2:14: environment variable `LOCAL_API_KEY` is not set (in {env:LOCAL_API_KEY})".to_owned())
    );
}

#[test]
fn file_values_are_read_relative_to_the_config_and_trimmed() {
    let dir = TempDir::new();
    dir.write("keys/k.txt", "  sk-123\n");
    dir.write("home/.key", "h\n");
    let vars = [(
        "HOME",
        dir.path().join("home").to_string_lossy().into_owned(),
    )];
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    assert_eq!(
        run(
            "a = \"{file:keys/k.txt}\"\nb = \"{file:~/.key}\"\n",
            dir.path(),
            &vars
        )
        .as_deref(),
        Ok("a = \"sk-123\"\nb = \"h\"\n")
    );
}

#[test]
fn missing_file_is_located() {
    let dir = TempDir::new();
    let err = run(
        "\n\n  prompt = \"{file:prompts/missing.md}\"\n",
        dir.path(),
        &[],
    )
    .unwrap_err();
    let expected = format!(
        "ward.toml:3:13: cannot read `{}` for {{file:…}}: ",
        dir.path().join("prompts/missing.md").display()
    );
    assert!(err.starts_with(&expected), "{err}");
}

#[test]
fn multi_line_file_keeps_later_positions() {
    let dir = TempDir::new();
    dir.write("prompt.md", "line one\nline \"two\"\n\tline three\n");
    let original = "[agent.a]\nprompt = \"{file:prompt.md}\" # note\n\n[agent.b]\nstepz = 3\n";
    let sub = substitute(Path::new("ward.toml"), original, dir.path(), &env(&[])).unwrap();
    assert_eq!(sub.text.lines().count(), original.lines().count());
    let source = Source {
        file: Path::new("ward.toml"),
        original,
        text: &sub.text,
        map: Some(&sub.map),
    };
    let table = source.parse_table().unwrap();
    assert_eq!(
        table["agent"]["a"]["prompt"].as_str(),
        Some("line one\nline \"two\"\n\tline three")
    );
    let err = source.deserialize::<Config>().unwrap_err().to_string();
    assert!(
        err.starts_with("ward.toml:5:1: unknown key `stepz` in [agent.b]"),
        "{err}"
    );
}

#[test]
fn positions_after_a_token_on_the_same_line_map_back() {
    // The value is longer than the token, so a naive column would be off.
    let original = "a = \"{env:LONG}\"; b = 1\n";
    let sub = substitute(
        Path::new("w.toml"),
        original,
        Path::new("."),
        &env(&[("LONG", "0123456789012345")]),
    )
    .unwrap();
    let source = Source {
        file: Path::new("w.toml"),
        original,
        text: &sub.text,
        map: Some(&sub.map),
    };
    let err = source.parse_table().unwrap_err().to_string();
    assert!(err.starts_with("w.toml:1:17: invalid TOML"), "{err}");
}

#[test]
fn source_map_translates_offsets() {
    let original = "x = {env:A} + {env:B}";
    let sub = substitute(
        Path::new("w"),
        original,
        Path::new("."),
        &env(&[("A", "1"), ("B", "22222")]),
    )
    .unwrap();
    assert_eq!(sub.text, "x = 1 + 22222");
    let map = &sub.map;
    assert_eq!(map.original_offset(0), 0);
    assert_eq!(map.original_offset(4), 4); // the value maps to its token
    assert_eq!(map.original_offset(6), 12); // "+" after the first token
    assert_eq!(map.original_offset(10), 14); // inside the second value
    assert_eq!(map.original_offset(13), original.len());
}
