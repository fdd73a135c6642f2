//! The marketplace end to end through the real `ward` binary: packages are packed
//! and indexed with `ward plugin pack` / `ward plugin index` from a real component
//! (the hostile test plugin, whose `env` and `read_path` tools show what was granted),
//! served from 127.0.0.1, installed, used through `ward tool call` and through the
//! loop, updated and removed; tampered archives, bad signatures, an update asking for
//! a new capability and malformed input are refused with messages naming the cause.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::json;
use ward_tests::files_http::FileServer;
use ward_tests::llm::{ScriptedLlm, Turn};
use ward_tests::{Project, Run, test_plugin};

/// A market directory (index and archives) next to a project.
struct Market {
    dir: PathBuf,
}

impl Market {
    fn new(p: &Project) -> Market {
        let dir = p.root.parent().expect("project base").join("market");
        std::fs::create_dir_all(&dir).expect("market dir");
        Market { dir }
    }

    /// Packs the hostile component as plugin `name` `version` asking for `caps` (a
    /// `[capabilities]` body), adds it to the index (signed with `key`), and returns
    /// the archive.
    fn publish(&self, p: &Project, version: &str, caps: &str, key: Option<&Path>) -> PathBuf {
        let archive = self.pack(p, version, caps);
        let index = self.dir.join("index.json");
        let mut args = vec![
            "plugin".to_string(),
            "index".into(),
            index.display().to_string(),
            archive.display().to_string(),
        ];
        if let Some(key) = key {
            args.extend(["--sign".into(), key.display().to_string()]);
        }
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        p.run(&refs, "").expect_ok();
        archive
    }

    /// Packs without indexing.
    fn pack(&self, p: &Project, version: &str, caps: &str) -> PathBuf {
        let (_, _, wasm) = test_plugin("hostile");
        let src = self.dir.join(format!("src-{version}"));
        std::fs::create_dir_all(src.join("skills/hello")).expect("src dir");
        std::fs::copy(wasm, src.join("ward_test_hostile.wasm")).expect("component");
        std::fs::write(
            src.join("plugin.toml"),
            format!(
                "[plugin]\nname = \"sample\"\nversion = \"{version}\"\napi = \"0.1.0\"\n\
                 description = \"A sample tool plugin\"\nkinds = [\"tool\"]\n\
                 component = \"ward_test_hostile.wasm\"\n\n[capabilities]\n{caps}\n"
            ),
        )
        .expect("manifest");
        std::fs::write(src.join("skills/hello/SKILL.md"), "Say hello.\n").expect("skill");
        std::fs::create_dir_all(src.join("target")).expect("target");
        std::fs::write(src.join("target/junk"), "build output").expect("junk");
        let out = p
            .run(
                &[
                    "plugin",
                    "pack",
                    &src.display().to_string(),
                    "-o",
                    &self.dir.display().to_string(),
                ],
                "",
            )
            .expect_ok();
        let archive = self.dir.join(format!("sample-{version}.wardpkg"));
        assert!(
            out.contains(&format!("packed {}", archive.display())),
            "{out}"
        );
        archive
    }

    /// A signing key file with seed `byte`×32; its public key (from `ward plugin pack
    /// --sign`).
    fn key(&self, p: &Project, byte: u8) -> (PathBuf, String) {
        let path = self.dir.join(format!("key-{byte}"));
        std::fs::write(&path, format!("{byte:02x}").repeat(32)).expect("key");
        let src = self.dir.join("keysrc");
        std::fs::create_dir_all(&src).expect("keysrc");
        std::fs::write(
            src.join("plugin.toml"),
            "[plugin]\nname = \"k\"\nversion = \"0.0.1\"\napi = \"0.1.0\"\nkinds = [\"tool\"]\ncomponent = \"k.wasm\"\n",
        )
        .expect("manifest");
        std::fs::write(src.join("k.wasm"), "k").expect("component");
        let out = p
            .run(
                &[
                    "plugin",
                    "pack",
                    &src.display().to_string(),
                    "-o",
                    &src.join("k.wardpkg").display().to_string(),
                    "--sign",
                    &path.display().to_string(),
                ],
                "",
            )
            .expect_ok();
        let public = out
            .lines()
            .find_map(|l| l.trim().strip_prefix("public key: "))
            .expect("public key printed")
            .to_string();
        (path, public)
    }
}

/// Points `p`'s ward.toml at `url` (plus `extra` lines in `[marketplace]` and after).
fn configure(p: &Project, url: &str, extra_source: &str, keys: &[&str]) {
    let keys: Vec<String> = keys.iter().map(|k| format!("\"{k}\"")).collect();
    p.write(
        "ward.toml",
        &format!(
            "[marketplace]\nkeys = [{}]\n\n[[marketplace.sources]]\nname = \"test\"\nurl = \"{url}\"\n{extra_source}\n",
            keys.join(", ")
        ),
    );
}

/// `ward ARGS` with `WARD_GRANTED_VAR=secret` in its environment.
fn run_with_secret(p: &Project, args: &[&str]) -> Run {
    let out = p
        .ward()
        .args(args)
        .env("WARD_GRANTED_VAR", "secret")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("run ward");
    Run(out)
}

fn env_tool(p: &Project) -> Run {
    run_with_secret(p, &["tool", "call", "--yes", "env", "{}"])
}

fn lock(p: &Project) -> toml::Table {
    toml::from_str(&p.read("ward.lock")).expect("ward.lock is TOML")
}

fn locked(p: &Project, key: &str) -> toml::Value {
    lock(p)["plugin"][0][key].clone()
}

const ENV: &str = "env = [\"WARD_GRANTED_VAR\"]";
const ENV_AND_READ: &str = "env = [\"WARD_GRANTED_VAR\"]\nfs-read = [\"$WORKSPACE\"]";

#[test]
fn install_use_update_and_remove_over_http() {
    let p = Project::new("market-http");
    let market = Market::new(&p);
    market.publish(&p, "1.0.0", ENV, None);
    let server = FileServer::start(market.dir.clone());
    configure(&p, &format!("{}/index.json", server.base), "", &[]);

    let out = p.run(&["plugin", "search", "sample"], "").expect_ok();
    assert!(out.contains("sample 1.0.0 (tool) from `test`"), "{out}");
    assert!(
        out.contains("read the environment variable WARD_GRANTED_VAR"),
        "{out}"
    );

    let out = p
        .run(
            &[
                "plugin",
                "install",
                "sample",
                "--grant",
                "env:WARD_GRANTED_VAR",
            ],
            "",
        )
        .expect_ok();
    assert!(
        out.contains(
            "it asks to:\n  - read the environment variable WARD_GRANTED_VAR (env:WARD_GRANTED_VAR)"
        ),
        "the capability is shown in plain words: {out}"
    );
    assert!(out.contains("installed sample 1.0.0"), "{out}");
    assert!(server.hits() >= 3, "index and archive came over HTTP");
    assert!(
        p.path(".ward/plugins/sample/ward_test_hostile.wasm")
            .is_file()
    );
    assert!(
        p.path(".ward/plugins/sample/skills/hello/SKILL.md")
            .is_file()
    );
    assert!(
        !p.path(".ward/plugins/sample/target").exists(),
        "build dirs are not packed"
    );
    assert_eq!(locked(&p, "version").as_str(), Some("1.0.0"));
    assert_eq!(
        locked(&p, "grant"),
        toml::Value::from(vec!["env:WARD_GRANTED_VAR"])
    );
    let files = locked(&p, "files");
    assert!(files.get("ward_test_hostile.wasm").is_some() && files.get("plugin.toml").is_some());

    // The grant from ward.lock reaches the sandbox.
    let out = env_tool(&p).expect_ok();
    assert!(out.contains("WARD_GRANTED_VAR=secret"), "{out}");

    // Same version again: nothing to do.
    let out = p.run(&["plugin", "update", "sample"], "").expect_ok();
    assert!(out.contains("sample 1.0.0 is up to date"), "{out}");

    // A newer version asking for nothing new updates, grants kept.
    market.publish(&p, "1.1.0", ENV, None);
    let out = p.run(&["plugin", "update"], "").expect_ok();
    assert!(
        out.contains("updated sample 1.0.0 -> 1.1.0 (grants: env:WARD_GRANTED_VAR)"),
        "{out}"
    );
    assert_eq!(locked(&p, "version").as_str(), Some("1.1.0"));
    assert!(
        p.read(".ward/plugins/sample/plugin.toml")
            .contains("version = \"1.1.0\"")
    );
    assert!(env_tool(&p).expect_ok().contains("WARD_GRANTED_VAR=secret"));
    assert!(
        std::fs::read_dir(p.path(".ward/.staging")).map_or(0, |d| d.count()) == 0,
        "nothing is left in staging"
    );

    // Remove deletes the files and the grants.
    let out = p.run(&["plugin", "remove", "sample"], "").expect_ok();
    assert!(out.contains("removed sample 1.1.0"), "{out}");
    assert!(!p.path(".ward/plugins/sample").exists());
    assert!(lock(&p).get("plugin").is_none(), "{}", p.read("ward.lock"));
    let err = env_tool(&p).expect_err();
    assert!(err.contains("env"), "the tool is gone: {err}");
    let err = p.run(&["plugin", "remove", "sample"], "").expect_err();
    assert!(err.contains("`sample` is not installed"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_installed_tool_runs_through_the_loop_with_its_locked_grants() {
    let p = Project::new("market-loop");
    let market = Market::new(&p);
    market.publish(&p, "1.0.0", ENV, None);
    let llm = ScriptedLlm::start(vec![
        Turn::tool("call_1", "env", json!({})),
        Turn::text("The variable is set."),
    ])
    .await;
    let index = market.dir.join("index.json");
    p.write(
        "ward.toml",
        &format!(
            "model = \"scripted/test-model\"\n[provider.scripted]\nkind = \"openai-compatible\"\n\
             base_url = \"{}/v1\"\napi_key = \"test-key\"\n[provider.scripted.models.test-model]\n\
             output = 1024\n\n[[marketplace.sources]]\nname = \"local\"\nurl = \"{}\"\n",
            llm.base_url,
            index.display()
        ),
    );
    let handle = Project::clone_handle(&p);
    let run = tokio::task::spawn_blocking(move || {
        handle
            .run(
                &[
                    "plugin",
                    "install",
                    "sample",
                    "--grant",
                    "env:WARD_GRANTED_VAR",
                ],
                "",
            )
            .expect_ok();
        run_with_secret(&handle, &["run", "--yes", "what is in the environment?"])
    })
    .await
    .expect("ward task");
    let out = run.expect_ok();
    assert!(out.contains("The variable is set."), "{out}");
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    let offered = requests[0].body["tools"].to_string();
    assert!(
        offered.contains("\"env\""),
        "the installed tool is offered: {offered}"
    );
    let second = requests[1].body.to_string();
    assert!(
        second.contains("WARD_GRANTED_VAR=secret"),
        "the tool ran with its locked grant: {second}"
    );
}

#[test]
fn an_update_asking_for_a_new_capability_waits_for_its_grant() {
    let p = Project::new("market-update");
    let market = Market::new(&p);
    market.publish(&p, "1.0.0", ENV, None);
    configure(&p, &market.dir.display().to_string(), "", &[]);
    p.run(
        &[
            "plugin",
            "install",
            "sample",
            "--grant",
            "env:WARD_GRANTED_VAR",
        ],
        "",
    )
    .expect_ok();
    p.write("notes.txt", "private notes\n");
    let notes = p.path("notes.txt").display().to_string();
    let read = |p: &Project| {
        p.run(
            &[
                "tool",
                "call",
                "--yes",
                "read_path",
                &json!({ "path": notes }).to_string(),
            ],
            "",
        )
    };
    assert!(!read(&p).ok(), "1.0.0 may not read the project");

    market.publish(&p, "2.0.0", ENV_AND_READ, None);
    let run = p.run(&["plugin", "update", "sample"], "");
    let err = run.expect_err();
    assert!(
        err.contains(
            "not updated: sample stays at 1.0.0 because fs-read:$WORKSPACE was not granted"
        ),
        "{err}"
    );
    assert!(
        run.stdout()
            .contains("sample 2.0.0 asks for more than 1.0.0 did:"),
        "{}",
        run.stdout()
    );
    assert_eq!(locked(&p, "version").as_str(), Some("1.0.0"));
    assert!(
        p.read(".ward/plugins/sample/plugin.toml")
            .contains("version = \"1.0.0\"")
    );
    assert!(!read(&p).ok(), "still 1.0.0, still no reading");
    assert!(env_tool(&p).expect_ok().contains("WARD_GRANTED_VAR=secret"));

    let out = p
        .run(
            &[
                "plugin",
                "update",
                "sample",
                "--grant",
                "fs-read:$WORKSPACE",
            ],
            "",
        )
        .expect_ok();
    assert!(
        out.contains(
            "updated sample 1.0.0 -> 2.0.0 (grants: env:WARD_GRANTED_VAR, fs-read:$WORKSPACE)"
        ),
        "{out}"
    );
    assert!(read(&p).expect_ok().contains("private notes"));

    // Grants are edited in ward.lock.
    let out = p
        .run(&["plugin", "revoke", "sample", "fs-read"], "")
        .expect_ok();
    assert!(out.contains("sample grants: env:WARD_GRANTED_VAR"), "{out}");
    assert!(!read(&p).ok(), "revoked");
    let err = p
        .run(
            &["plugin", "grant", "sample", "net:https://example.com"],
            "",
        )
        .expect_err();
    assert!(
        err.contains("sample does not ask for `net:https://example.com`"),
        "{err}"
    );
    p.run(&["plugin", "grant", "sample", "fs-read:$WORKSPACE"], "")
        .expect_ok();
    assert!(read(&p).expect_ok().contains("private notes"));
}

#[test]
fn without_a_terminal_or_grant_flags_nothing_is_granted() {
    let p = Project::new("market-nogrant");
    let market = Market::new(&p);
    market.publish(&p, "1.0.0", ENV, None);
    configure(&p, &market.dir.display().to_string(), "", &[]);
    let out = p.run(&["plugin", "install", "sample"], "").expect_ok();
    assert!(
        out.contains("nothing granted (no terminal to ask on)"),
        "{out}"
    );
    assert_eq!(locked(&p, "grant"), toml::Value::Array(Vec::new()));
    let out = env_tool(&p).expect_ok();
    assert!(!out.contains("secret"), "ungranted means denied: {out}");
    let err = p.run(&["plugin", "install", "sample"], "").expect_err();
    assert!(err.contains("sample 1.0.0 is already installed"), "{err}");
}

/// Rewrites the archive's entries through `change` (name, bytes) into a new tar.gz.
fn rewrite(archive: &Path, out: &Path, change: impl Fn(&str, Vec<u8>) -> Vec<u8>) {
    let bytes = std::fs::read(archive).expect("archive");
    let mut input = tar::Archive::new(flate2::read::GzDecoder::new(&bytes[..]));
    let mut builder = tar::Builder::new(Vec::new());
    for entry in input.entries().expect("entries") {
        let mut entry = entry.expect("entry");
        let name = entry.path().expect("path").display().to_string();
        let mut data = Vec::new();
        std::io::Read::read_to_end(&mut entry, &mut data).expect("read entry");
        let data = change(&name, data);
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        builder
            .append_data(&mut header, &name, &data[..])
            .expect("append");
    }
    let tar = builder.into_inner().expect("tar");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&tar).expect("gzip");
    std::fs::write(out, gz.finish().expect("gzip")).expect("write archive");
}

#[test]
fn a_tampered_archive_is_refused_naming_the_file() {
    let p = Project::new("market-tamper");
    let market = Market::new(&p);
    let good = market.pack(&p, "1.0.0", ENV);
    // The component is altered after packing; the index is made from the altered
    // archive, so only the per-file digests can tell.
    let evil = market.dir.join("evil/sample-1.0.0.wardpkg");
    std::fs::create_dir_all(evil.parent().unwrap()).unwrap();
    rewrite(&good, &evil, |name, mut data| {
        if name == "ward_test_hostile.wasm" {
            data.extend_from_slice(b"\0payload");
        }
        data
    });
    let index = market.dir.join("evil/index.json");
    p.run(
        &[
            "plugin",
            "index",
            &index.display().to_string(),
            &evil.display().to_string(),
        ],
        "",
    )
    .expect_ok();
    configure(&p, &index.display().to_string(), "", &[]);
    let err = p
        .run(&["plugin", "install", "sample", "--grant", "env"], "")
        .expect_err();
    assert!(
        err.contains("package file `ward_test_hostile.wasm` has sha256 ")
            && err.contains("but plugin.toml records"),
        "the altered file is named: {err}"
    );
    assert!(
        !p.path(".ward/plugins/sample").exists(),
        "nothing installed"
    );
    assert!(!p.path("ward.lock").exists());
    assert_eq!(
        std::fs::read_dir(p.path(".ward/.staging")).map_or(0, |d| d.count()),
        0,
        "the staged files are deleted"
    );

    // An extra file slipped in next to the listed ones.
    let extra = market.dir.join("extra/sample-1.0.0.wardpkg");
    std::fs::create_dir_all(extra.parent().unwrap()).unwrap();
    {
        let bytes = std::fs::read(&good).unwrap();
        let mut input = tar::Archive::new(flate2::read::GzDecoder::new(&bytes[..]));
        let mut builder = tar::Builder::new(Vec::new());
        for entry in input.entries().unwrap() {
            let mut entry = entry.unwrap();
            let mut header = entry.header().clone();
            let name = entry.path().unwrap().into_owned();
            let mut data = Vec::new();
            std::io::Read::read_to_end(&mut entry, &mut data).unwrap();
            builder.append_data(&mut header, name, &data[..]).unwrap();
        }
        let mut header = tar::Header::new_gnu();
        header.set_size(9);
        header.set_mode(0o755);
        builder
            .append_data(&mut header, "hook.sh", &b"rm -rf ~\n"[..])
            .unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&builder.into_inner().unwrap()).unwrap();
        std::fs::write(&extra, gz.finish().unwrap()).unwrap();
    }
    let index = market.dir.join("extra/index.json");
    p.run(
        &[
            "plugin",
            "index",
            &index.display().to_string(),
            &extra.display().to_string(),
        ],
        "",
    )
    .expect_ok();
    configure(&p, &index.display().to_string(), "", &[]);
    let err = p.run(&["plugin", "install", "sample"], "").expect_err();
    assert!(
        err.contains("file `hook.sh` is not listed in plugin.toml's [files]"),
        "{err}"
    );

    // The archive swapped after indexing: its digest no longer matches the index.
    market.publish(&p, "1.0.0", ENV, None);
    std::fs::copy(&evil, &good).unwrap();
    configure(&p, &market.dir.display().to_string(), "", &[]);
    let err = p.run(&["plugin", "install", "sample"], "").expect_err();
    assert!(
        err.contains("sample-1.0.0.wardpkg: sha256 is ") && err.contains("but the index says"),
        "{err}"
    );
    assert!(!p.path(".ward/plugins/sample").exists());
}

#[test]
fn signatures_are_required_and_checked_when_the_source_says_so() {
    let p = Project::new("market-sign");
    let market = Market::new(&p);
    let (trusted_key, trusted) = market.key(&p, 0x07);
    let (rogue_key, _) = market.key(&p, 0x09);
    let require = "require_signature = true";

    // Unsigned.
    market.publish(&p, "1.0.0", ENV, None);
    configure(&p, &market.dir.display().to_string(), require, &[&trusted]);
    let err = p.run(&["plugin", "install", "sample"], "").expect_err();
    assert!(
        err.contains("sample 1.0.0: source `test` requires a signature and the index has none"),
        "{err}"
    );

    // Signed by a key nobody trusts.
    market.publish(&p, "1.0.0", ENV, Some(&rogue_key));
    let err = p.run(&["plugin", "install", "sample"], "").expect_err();
    assert!(
        err.contains("sample 1.0.0: bad signature: the signature does not verify with any trusted key; refusing it"),
        "{err}"
    );
    assert!(!p.path(".ward/plugins/sample").exists());

    // Signed by the trusted key.
    market.publish(&p, "1.0.0", ENV, Some(&trusted_key));
    let out = p.run(&["plugin", "install", "sample"], "").expect_ok();
    assert!(
        out.contains(&format!("signature verified with key {}", &trusted[..16])),
        "{out}"
    );
    assert!(p.path(".ward/plugins/sample/plugin.toml").is_file());
}

#[test]
fn bad_input_is_explained() {
    let p = Project::new("market-bad");
    let market = Market::new(&p);

    let err = p.run(&["plugin", "install", "sample"], "").expect_err();
    assert!(err.contains("no marketplace sources"), "{err}");

    let index = market.dir.join("index.json");
    std::fs::write(
        &index,
        "{\"plugins\": [\n  {\"description\": \"x\", \"versions\": []}\n]}",
    )
    .unwrap();
    configure(&p, &index.display().to_string(), "", &[]);
    let err = p.run(&["plugin", "install", "sample"], "").expect_err();
    assert!(
        err.contains(&format!(
            "index of source `test` ({}): invalid index JSON: missing field `name` at line 2",
            index.display()
        )),
        "{err}"
    );
    let err = p.run(&["plugin", "search"], "").expect_err();
    assert!(err.contains("missing field `name`"), "{err}");

    std::fs::remove_file(&index).unwrap();
    market.publish(&p, "1.0.0", ENV, None);
    let err = p.run(&["plugin", "install", "nope"], "").expect_err();
    assert!(
        err.contains("no plugin named `nope` in source(s) `test`"),
        "{err}"
    );
    let err = p
        .run(&["plugin", "install", "sample@9.9.9"], "")
        .expect_err();
    assert!(
        err.contains("plugin `sample` has no version 9.9.9 in source `test` (available: 1.0.0)"),
        "{err}"
    );
    let err = p
        .run(
            &[
                "plugin",
                "install",
                "sample",
                "--grant",
                "net:https://example.com",
            ],
            "",
        )
        .expect_err();
    assert!(
        err.contains("sample does not ask for `net:https://example.com`"),
        "{err}"
    );
    let err = p
        .run(&["plugin", "install", "sample", "--grant", "envv"], "")
        .expect_err();
    assert!(err.contains("unknown capability `envv`"), "{err}");

    // Unreachable sources: a closed port, a missing directory.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    configure(&p, &format!("http://127.0.0.1:{port}/index.json"), "", &[]);
    let err = p.run(&["plugin", "install", "sample"], "").expect_err();
    assert!(
        err.contains(&format!(
            "cannot fetch http://127.0.0.1:{port}/index.json: "
        )),
        "{err}"
    );
    configure(&p, "/nonexistent/market", "", &[]);
    let err = p.run(&["plugin", "install", "sample"], "").expect_err();
    assert!(err.contains("cannot fetch /nonexistent/market"), "{err}");

    // Config mistakes are located.
    p.write(
        "ward.toml",
        "[[marketplace.sources]]\nname = \"x\"\nurl = \"y\"\nrequire-signature = true\n",
    );
    let err = p.run(&["plugin", "search"], "").expect_err();
    assert!(
        err.contains("ward.toml:4:1: unknown key `require-signature` in [marketplace.sources[0]]"),
        "{err}"
    );

    // A broken ward.lock is reported and grants nothing, but Ward still starts.
    configure(&p, &market.dir.display().to_string(), "", &[]);
    p.write("ward.lock", "version = 1\n[[plugin]]\nname = 3\n");
    let run = p.run(&["plugin", "list"], "");
    let out = run.expect_ok();
    assert!(out.contains("ward.lock: line 3, column 8"), "{out}");
}
