//! Class 5: rules matched against unnormalised input. URLs spelled to slip past a
//! `webfetch` deny (a user name, a trailing dot, upper case, percent-escapes, IPv4 in
//! hex or as one number), every IPv6 form of a loopback or private address, and
//! directory operations (listing, renaming, removing) on a directory whose entries a
//! `dir/*` rule covers. Each attack runs through a real component, must be refused
//! without reaching its target, and the host must stay usable.

use serde_json::json;
use ward_tests::Project;
use ward_tests::harness::Harness;
use ward_tests::http::TestServer;

async fn fetch(h: &Harness, url: &str) -> Result<String, String> {
    h.call("fetch", &json!({ "text": url }).to_string())
        .await
        .map(|out| out.output)
        .map_err(|e| e.to_string())
}

#[tokio::test]
async fn url_rules_match_the_url_after_normalisation() {
    let server = TestServer::start().await;
    let port = server.port;
    let p = Project::new("urls-normalised");
    let local = format!("net:http://localhost:{port}");
    let loopback = format!("net:{}", server.base);
    let rules = format!(
        "webfetch = {{ \"*\" = \"allow\", \"http://127.0.0.1:{port}/hello*\" = \"deny\", \
         \"http://localhost:{port}/*\" = \"deny\" }}"
    );
    let h = Harness::new(
        &p,
        &["hostile", "noop"],
        &[
            ("hostile", &[local.as_str(), loopback.as_str()]),
            ("noop", &[]),
        ],
        &rules,
    );
    for url in [
        format!("http://127.0.0.1:{port}/hello"),
        format!("http://user@127.0.0.1:{port}/hello"),
        format!("http://user:secret@127.0.0.1:{port}/hello"),
        format!("http://127.0.0.1:{port}/%68ello"),
        format!("http://127.0.0.1:{port}/x/../hello"),
        format!("http://0x7f.1:{port}/hello"),
        format!("http://2130706433:{port}/hello"),
        format!("http://localhost:{port}/hello"),
        format!("http://localhost.:{port}/hello"),
        format!("http://LocalHost.:{port}/other"),
        format!("http://me@LOCALHOST:{port}/other#frag"),
    ] {
        let err = fetch(&h, &url).await.expect_err(&url);
        assert!(err.contains("denied"), "{url}: {err}");
    }
    assert_eq!(server.hits(), 0, "a refused request reached the server");

    // The same host under an allowed path is fetched, and the host still serves.
    let out = fetch(&h, &format!("http://127.0.0.1:{port}/other")).await;
    assert_eq!(out.as_deref(), Ok("404 "));
    assert_eq!(server.hits(), 1);
    h.assert_noop_works().await;
}

#[tokio::test]
async fn every_form_of_an_internal_address_is_internal() {
    let server = TestServer::start().await;
    let port = server.port;
    let p = Project::new("urls-internal");
    // `net` grants the manifest's `*`: any public host, no internal one.
    let h = Harness::new(
        &p,
        &["hostile", "noop"],
        &[("hostile", &["net"]), ("noop", &[])],
        "",
    );
    for host in [
        "127.0.0.1",
        "127.1",
        "0x7f.0.0.1",
        "2130706433",
        "[::1]",
        "[::]",
        "[::ffff:127.0.0.1]",
        "[::ffff:7f00:1]",
        "[::127.0.0.1]",
        "[::ffff:0:127.0.0.1]",
        "[64:ff9b::127.0.0.1]",
        "[2002:7f00:1::]",
        "[2001:0:4136:e378:8000:63bf:80ff:fffe]",
        "[fd00::1]",
        "[fe80::1]",
        "[::ffff:169.254.169.254]",
        "[64:ff9b::a9fe:a9fe]",
        "[::ffff:10.0.0.1]",
        "[2002:c0a8:101::]",
    ] {
        let url = format!("http://{host}:{port}/hello");
        let err = fetch(&h, &url).await.expect_err(&url);
        assert!(err.contains("internal address"), "{url}: {err}");
    }
    assert_eq!(server.hits(), 0, "an internal address was reached");
    h.assert_noop_works().await;
}

async fn fs(h: &Harness, op: &str, path: &str, to: &str) -> Result<String, String> {
    let args = json!({ "op": op, "path": path, "to": to, "content": "x" });
    h.call("fs", &args.to_string())
        .await
        .map(|out| out.output)
        .map_err(|e| e.to_string())
}

#[tokio::test]
async fn a_rule_on_a_directorys_entries_covers_the_directory_itself() {
    let p = Project::new("urls-dirs");
    p.write("secrets/token.txt", "s3cr3t");
    p.write("keys/id.pem", "-----BEGIN-----");
    p.write("keys/README", "public");
    p.write("src/main.rs", "fn main() {}");
    p.write("notes.txt", "notes");
    std::fs::create_dir_all(p.path("vault")).expect("empty dir");
    let h = Harness::new(
        &p,
        &["grant-rewriter", "noop"],
        &[("grant-rewriter", &["fs-read", "fs-write"]), ("noop", &[])],
        "read = { \"*\" = \"allow\", \"secrets/*\" = \"deny\" }\n\
         edit = { \"*\" = \"allow\", \"secrets/*\" = \"deny\", \"keys/*.pem\" = \"deny\", \
         \"vault/*\" = \"deny\" }",
    );
    let attacks: &[(&str, &str, &str)] = &[
        // Listing names the files a `secrets/*` read deny covers.
        ("list", "secrets", ""),
        ("list", "secrets/", ""),
        // Moving the directory moves its files out from under their rules.
        ("rename", "secrets", "public"),
        ("rename", "keys", "public-keys"),
        // Moving something into it edits a path the rule covers.
        ("rename", "notes.txt", "secrets/notes.txt"),
        ("rename", "notes.txt", "vault/notes.txt"),
        // Removing or re-creating the directory whose entries are denied.
        ("rmdir", "vault", ""),
        ("mkdir", "secrets/new", ""),
    ];
    for (op, path, to) in attacks {
        let err = fs(&h, op, path, to)
            .await
            .expect_err(&format!("{op} {path}"));
        assert!(err.contains("Permission denied"), "{op} {path}: {err}");
    }
    assert_eq!(p.read("secrets/token.txt"), "s3cr3t");
    assert_eq!(p.read("keys/id.pem"), "-----BEGIN-----");
    assert_eq!(p.read("notes.txt"), "notes");
    assert!(p.path("vault").is_dir());

    // Directories the rules leave alone are still listed and moved.
    let root = fs(&h, "list", ".", "").await.expect("the root is listed");
    assert!(root.contains("secrets") && root.contains("src"), "{root}");
    assert_eq!(
        fs(&h, "list", "keys", "").await.as_deref(),
        Ok("README,id.pem")
    );
    fs(&h, "rename", "src", "lib")
        .await
        .expect("an ordinary rename");
    assert_eq!(p.read("lib/main.rs"), "fn main() {}");
    h.assert_noop_works().await;
}
