//! What each kind of installation opens, on real directory layouts: a file argument,
//! commands installed under `~/.local/bin` (npm, pipx), `node_modules/.bin`, a
//! virtualenv with an editable install, plain programs.

use std::os::unix::fs::symlink;

use super::*;

/// A temporary tree with a fake home in it.
struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Tree {
    fn new() -> Tree {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        Tree { _dir: dir, root }
    }

    fn home(&self) -> PathBuf {
        self.root.join("home/u")
    }

    /// Writes `text` to `rel` (made executable when it starts with `#!`).
    fn file(&self, rel: &str, text: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        if text.starts_with("#!") {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        path
    }

    /// A link at `rel` to `target` (as written: relative targets stay relative).
    fn link(&self, rel: &str, target: &str) -> PathBuf {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        symlink(target, &path).unwrap();
        path
    }

    /// A package `dir` named `name` depending on `deps`.
    fn package(&self, dir: &str, name: &str, deps: &[&str]) {
        let deps: serde_json::Map<String, serde_json::Value> = deps
            .iter()
            .map(|d| (d.to_string(), serde_json::Value::from("*")))
            .collect();
        let manifest = serde_json::json!({"name": name, "dependencies": deps});
        self.file(&format!("{dir}/package.json"), &manifest.to_string());
        self.file(&format!("{dir}/index.js"), "");
    }

    fn reach(&self, path: &Path, named: Named) -> Vec<PathBuf> {
        let home = self.home();
        let bounds = Bounds {
            home: Some(&home),
            path: OsStr::new("/usr/local/bin:/usr/bin:/bin"),
        };
        reach(path, named, &bounds)
    }
}

/// Whether `opened` lets `path` be read (it or a directory above it is open).
fn readable(opened: &[PathBuf], path: &Path) -> bool {
    opened.iter().any(|o| path.starts_with(o))
}

#[test]
fn a_file_argument_opens_that_file_only() {
    let t = Tree::new();
    t.file("home/u/other/package.json", "{}");
    let named = t.file("home/u/other/src/notes.txt", "notes");
    let sibling = t.file("home/u/other/src/secret.txt", "secret");
    let opened = t.reach(&named, Named::Argument);
    assert_eq!(opened, std::slice::from_ref(&named));
    assert!(!readable(&opened, &sibling));
    // Through a link: the link and the file it leads to, nothing beside either.
    let link = t.link("home/u/project/notes-link", named.to_str().unwrap());
    let opened = t.reach(&link, Named::Argument);
    assert_eq!(opened, [named, link]);
    // A script kept straight in the home, and one under a pyproject.
    let script = t.file("home/u/server.py", "");
    assert_eq!(t.reach(&script, Named::Argument), [script]);
    t.file("home/u/py/pyproject.toml", "");
    let script = t.file("home/u/py/src/server.py", "");
    assert_eq!(t.reach(&script, Named::Argument), [script]);
}

#[test]
fn an_npm_package_named_as_an_argument_opens_it_and_its_dependencies() {
    let t = Tree::new();
    let proj = "home/u/tools";
    t.file(&format!("{proj}/package.json"), "{}");
    t.file(&format!("{proj}/.env"), "KEY=1");
    t.package(
        &format!("{proj}/node_modules/@s/server"),
        "@s/server",
        &["dep", "@s/util"],
    );
    t.package(&format!("{proj}/node_modules/dep"), "dep", &["nested"]);
    t.package(
        &format!("{proj}/node_modules/dep/node_modules/nested"),
        "nested",
        &[],
    );
    t.package(
        &format!("{proj}/node_modules/@s/util"),
        "@s/util",
        &["missing-peer"],
    );
    t.package(&format!("{proj}/node_modules/unrelated"), "unrelated", &[]);
    t.file(
        &format!("{proj}/node_modules/.cache/build.json"),
        "project source",
    );
    let main = t.file(&format!("{proj}/node_modules/@s/server/dist/index.js"), "");
    let opened = t.reach(&main, Named::Argument);
    let m = t.root.join(proj).join("node_modules");
    for open in ["@s/server", "dep", "dep/node_modules/nested", "@s/util"] {
        assert!(
            readable(&opened, &m.join(open).join("package.json")),
            "{open}: {opened:?}"
        );
    }
    for shut in [
        "unrelated/index.js",
        ".cache/build.json",
        "../.env",
        "../package.json",
    ] {
        assert!(!readable(&opened, &m.join(shut)), "{shut}: {opened:?}");
    }
}

#[test]
fn node_modules_bin_opens_the_package_not_the_project() {
    let t = Tree::new();
    let proj = "home/u/app";
    t.file(&format!("{proj}/package.json"), "{}");
    t.file(&format!("{proj}/src/main.rs"), "code");
    t.package(&format!("{proj}/node_modules/srv"), "srv", &["hoisted"]);
    t.package(&format!("{proj}/node_modules/hoisted"), "hoisted", &[]);
    t.package(&format!("{proj}/node_modules/other"), "other", &[]);
    t.file(
        &format!("{proj}/node_modules/srv/bin/cli.js"),
        "#!/usr/bin/env node\n",
    );
    let bin = t.link(
        &format!("{proj}/node_modules/.bin/srv"),
        "../srv/bin/cli.js",
    );
    let opened = t.reach(&bin, Named::Program);
    let m = t.root.join(proj).join("node_modules");
    assert!(readable(&opened, &m.join("srv/bin/cli.js")), "{opened:?}");
    assert!(readable(&opened, &m.join("hoisted/index.js")), "{opened:?}");
    assert!(!readable(&opened, &m.join("other/index.js")), "{opened:?}");
    assert!(
        !readable(&opened, &t.root.join(proj).join("src/main.rs")),
        "{opened:?}"
    );
    assert!(!opened.contains(&m), "{opened:?}");
}

#[test]
fn an_npm_command_in_local_bin_opens_its_package_not_the_prefix() {
    let t = Tree::new();
    let lib = "home/u/.local/lib/node_modules";
    t.package(&format!("{lib}/srv"), "srv", &["dep"]);
    t.package(&format!("{lib}/srv/node_modules/dep"), "dep", &[]);
    t.package(&format!("{lib}/other"), "other", &[]);
    t.file(&format!("{lib}/srv/bin/srv.js"), "#!/usr/bin/env node\n");
    let data = t.file("home/u/.local/share/ward/server.token", "token");
    let bin = t.link(
        "home/u/.local/bin/srv",
        "../lib/node_modules/srv/bin/srv.js",
    );
    let beside = t.file("home/u/.local/bin/other-tool", "#!/bin/sh\n");
    let opened = t.reach(&bin, Named::Program);
    let local = t.home().join(".local");
    assert!(readable(
        &opened,
        &local.join("lib/node_modules/srv/bin/srv.js")
    ));
    assert!(readable(
        &opened,
        &local.join("lib/node_modules/srv/node_modules/dep/index.js")
    ));
    assert!(
        !readable(&opened, &local.join("lib/node_modules/other/index.js")),
        "{opened:?}"
    );
    assert!(!readable(&opened, &data), "{opened:?}");
    assert!(!readable(&opened, &beside), "{opened:?}");
    for broad in [
        local.clone(),
        local.join("lib"),
        local.join("bin"),
        local.join("lib/node_modules"),
    ] {
        assert!(!opened.contains(&broad), "{broad:?}: {opened:?}");
    }
}

#[test]
fn a_pipx_command_in_local_bin_opens_its_environment_and_interpreter() {
    let t = Tree::new();
    // The interpreter the environment was made from, in a prefix of its own.
    let base = t.file("opt/py/bin/python3.12", "\x7fELF");
    t.file("opt/py/lib/python3.12/os.py", "");
    t.file("opt/py/lib/libpython3.12.so.1.0", "");
    let elsewhere = t.file("opt/py/share/other/data", "");
    let venv = "home/u/.local/share/pipx/venvs/tool";
    t.file(&format!("{venv}/pyvenv.cfg"), "home = /opt/py/bin\n");
    t.link(&format!("{venv}/bin/python"), base.to_str().unwrap());
    t.file(
        &format!("{venv}/bin/tool"),
        &format!("#!{}/{venv}/bin/python\n", t.root.display()),
    );
    t.file(
        &format!("{venv}/lib/python3.12/site-packages/tool/__init__.py"),
        "",
    );
    let bin = t.link(
        "home/u/.local/bin/tool",
        "../share/pipx/venvs/tool/bin/tool",
    );
    let data = t.file("home/u/.local/share/ward/ward.db", "");
    let opened = t.reach(&bin, Named::Program);
    let v = t.root.join(venv);
    assert!(readable(
        &opened,
        &v.join("lib/python3.12/site-packages/tool/__init__.py")
    ));
    assert!(
        readable(&opened, &t.root.join("opt/py/lib/python3.12/os.py")),
        "{opened:?}"
    );
    assert!(
        readable(&opened, &t.root.join("opt/py/lib/libpython3.12.so.1.0")),
        "{opened:?}"
    );
    assert!(!readable(&opened, &elsewhere), "{opened:?}");
    assert!(!readable(&opened, &data), "{opened:?}");
    assert!(!opened.contains(&t.root.join("opt/py")), "{opened:?}");
}

#[test]
fn an_editable_install_opens_its_source() {
    let t = Tree::new();
    let src = t.root.join("home/u/work/srv/src");
    t.file("home/u/work/srv/src/srv/__init__.py", "");
    t.file("home/u/work/srv/.env", "KEY=1");
    t.file("home/u/work/srv/.venv/pyvenv.cfg", "home = /usr/bin\n");
    t.file(
        "home/u/work/srv/.venv/lib/python3.12/site-packages/_srv.pth",
        &format!("# editable\nimport _hook\n{}\n", src.display()),
    );
    let server = t.file("home/u/work/srv/.venv/bin/srv", "#!/usr/bin/python3\n");
    let opened = t.reach(&server, Named::Program);
    assert!(
        readable(&opened, &src.join("srv/__init__.py")),
        "{opened:?}"
    );
    assert!(
        !readable(&opened, &t.root.join("home/u/work/srv/.env")),
        "{opened:?}"
    );
}

#[test]
fn plain_programs_open_their_own_directory_unless_it_is_a_bin() {
    let t = Tree::new();
    let tool = t.file("opt/tool/server", "\x7fELF");
    assert!(
        t.reach(&tool, Named::Program)
            .contains(&t.root.join("opt/tool"))
    );
    let bin = t.file("home/u/.local/bin/server", "\x7fELF");
    assert_eq!(t.reach(&bin, Named::Program), [bin]);
    // Nothing inferred is the home or above it.
    let in_home = t.file("home/u/server.mjs", "");
    assert_eq!(t.reach(&in_home, Named::Program), [in_home]);
    t.file("home/u/package.json", "{}");
    let script = t.file("home/u/scripts/s.mjs", "");
    assert_eq!(
        t.reach(&script, Named::Program),
        [t.root.join("home/u/scripts"), script]
    );
}
