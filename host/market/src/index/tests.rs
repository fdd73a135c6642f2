//! The index format: the documented example parses, versions are chosen right,
//! and every malformed input is explained with where it is.

use super::*;

fn index(versions: &str) -> String {
    format!(
        r#"{{"format": 1, "plugins": [{{"name": "hello", "description": "Greets", "kinds": ["tool"], "versions": [{versions}]}}]}}"#
    )
}

fn version(v: &str) -> String {
    format!(
        r#"{{"version": "{v}", "capabilities": ["env:GITHUB_TOKEN"], "url": "hello-{v}.wardpkg", "sha256": "{}"}}"#,
        "a".repeat(64)
    )
}

#[test]
fn an_index_parses_and_picks_versions() {
    let text = index(
        &[
            version("1.0.0"),
            version("1.10.0"),
            version("1.2.0"),
            version("2.0.0-beta.1"),
        ]
        .join(","),
    );
    let index = Index::parse(&text).unwrap();
    let hello = index.plugin("hello").unwrap();
    assert_eq!(hello.kinds, [Kind::Tool]);
    assert_eq!(
        hello.versions[0].capabilities[0].to_string(),
        "env:GITHUB_TOKEN"
    );
    assert_eq!(
        hello.pick(None).unwrap().version,
        "1.10.0",
        "newest release, by semver"
    );
    assert_eq!(hello.pick(Some("1.2.0")).unwrap().version, "1.2.0");
    assert_eq!(
        hello.pick(Some("2.0.0-beta.1")).unwrap().version,
        "2.0.0-beta.1"
    );
    assert!(hello.pick(Some("3.0.0")).is_none());
    assert!(hello.pick(Some("nonsense")).is_none());
    assert_eq!(hello.version_list(), "1.0.0, 1.10.0, 1.2.0, 2.0.0-beta.1");
    assert!(index.plugin("other").is_none());
}

#[test]
fn malformed_indexes_are_explained() {
    let e = Index::parse("{\"plugins\": [\n  {\"description\": \"x\", \"versions\": []}\n]}")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "invalid index JSON: missing field `name` at line 2 column 38"
    );
    let e = Index::parse("{\"plugins\": [}").unwrap_err().to_string();
    assert!(
        e.starts_with("invalid index JSON: ") && e.contains("line 1 column 14"),
        "{e}"
    );
    let e = Index::parse("{\"plugin\": []}").unwrap_err().to_string();
    assert!(e.contains("unknown field `plugin`"), "{e}");
    let e = Index::parse("{\"format\": 2}").unwrap_err();
    assert!(matches!(e, IndexError::Format { found: 2 }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "unsupported index format 2 (this Ward reads format 1)"
    );
    let e = Index::parse(&index(&version("1.0")))
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "plugin `hello` version `1.0`: not a semantic version such as 1.0.0"
    );
    let e = Index::parse(&index(&[version("1.0.0"), version("1.0.0")].join(",")))
        .unwrap_err()
        .to_string();
    assert_eq!(e, "plugin `hello` version `1.0.0` is listed twice");
    let e = Index::parse(&index(&version("1.0.0").replace(&"a".repeat(64), "abc")))
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "plugin `hello` version `1.0.0`: invalid sha256 `abc`: expected 64 hexadecimal digits"
    );
    let bad_cap = version("1.0.0").replace("env:GITHUB_TOKEN", "environment");
    let e = Index::parse(&index(&bad_cap)).unwrap_err().to_string();
    assert!(e.contains("unknown capability `environment`"), "{e}");
    let signed = version("1.0.0").replace("\"url\"", "\"signature\": \"zz\", \"url\"");
    let e = Index::parse(&index(&signed)).unwrap_err().to_string();
    assert_eq!(
        e,
        "plugin `hello` version `1.0.0`: invalid signature: expected 128 hexadecimal digits"
    );
    let e = Index::parse(&index(&version("1.0.0")).replace("\"hello\"", "\"Hello\""))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("plugins[0]: invalid plugin name `Hello`"),
        "{e}"
    );
}

#[test]
fn upsert_adds_and_replaces_versions() {
    let mut index = Index::default();
    let v = |s: &str| IndexVersion {
        version: s.into(),
        capabilities: Vec::new(),
        url: format!("hello-{s}.wardpkg"),
        sha256: "b".repeat(64),
        signature: None,
    };
    index.upsert("hello", "old words", &[Kind::Tool], v("1.1.0"));
    index.upsert("hello", "new words", &[Kind::Tool, Kind::Skill], v("1.0.0"));
    index.upsert("hello", "new words", &[Kind::Tool], v("1.1.0"));
    let back = Index::parse(&index.to_json()).unwrap();
    let hello = back.plugin("hello").unwrap();
    assert_eq!(hello.description, "new words");
    assert_eq!(hello.version_list(), "1.0.0, 1.1.0");
}
