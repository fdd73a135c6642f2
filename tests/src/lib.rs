//! Support for Ward's end-to-end tests: temporary projects, the real `ward` binary, and
//! the test-only plugins built by this crate's build script.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

pub mod files_http;
pub mod harness;
pub mod http;
pub mod llm;
pub mod polyglot;
pub mod rig;

include!(concat!(env!("OUT_DIR"), "/test_plugins.rs"));

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// A temporary project directory (a git repository) with its own Ward data directory.
/// Removed on drop.
pub struct Project {
    /// The project root.
    pub root: PathBuf,
    /// `WARD_DATA_DIR` for commands run in it.
    pub data: PathBuf,
    /// `HOME` / `XDG_CONFIG_HOME` for commands run in it (no user config leaks in).
    pub home: PathBuf,
    /// The compiled-component cache `ward` uses: shared by all tests (so each component
    /// is compiled once per test run) unless a test sets its own.
    pub cache: PathBuf,
    base: PathBuf,
    /// Whether the user trusts the project: every `ward` command first records the
    /// project's trust (`ward trust --yes`), as a developer working in their own
    /// repository has. A [`Project::stranger`] is never trusted.
    trusted: bool,
}

impl Project {
    /// A fresh, empty project its user trusts (see [`Project::stranger`] for one
    /// they do not).
    pub fn new(name: &str) -> Project {
        Project::create(name, true)
    }

    /// A fresh, empty project the user never trusted — a repository just cloned:
    /// its own files only tighten.
    pub fn stranger(name: &str) -> Project {
        Project::create(name, false)
    }

    fn create(name: &str, trusted: bool) -> Project {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let base = std::env::temp_dir().join(format!("ward-e2e-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let root = base.join("project");
        let data = base.join("data");
        let home = base.join("home");
        for d in [&root, &data, &home] {
            std::fs::create_dir_all(d).expect("create test dirs");
        }
        let root = root.canonicalize().expect("canonical project path");
        let status = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&root)
            .status()
            .expect("git init");
        assert!(status.success());
        let cache = profile_dir()
            .map(|d| d.join("ward-test-cache"))
            .unwrap_or_else(|| data.join("cache"));
        Project {
            root,
            data,
            home,
            cache,
            base,
            trusted,
        }
    }

    /// The absolute path of `rel` in the project.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Writes a file (creating directories).
    pub fn write(&self, rel: &str, content: &str) -> PathBuf {
        let p = self.path(rel);
        if let Some(dir) = p.parent() {
            std::fs::create_dir_all(dir).expect("create dir");
        }
        std::fs::write(&p, content).expect("write file");
        p
    }

    /// Reads a file.
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }

    /// Copies test plugin `name` into `.ward/plugins/NAME/`.
    pub fn install_test_plugin(&self, name: &str) -> PathBuf {
        let (_, dir, wasm) = test_plugin(name);
        let dest = self.path(&format!(".ward/plugins/{name}"));
        std::fs::create_dir_all(&dest).expect("plugin dir");
        std::fs::copy(Path::new(dir).join("plugin.toml"), dest.join("plugin.toml"))
            .expect("copy manifest");
        let file = Path::new(wasm).file_name().expect("wasm name");
        std::fs::copy(wasm, dest.join(file)).expect("copy component");
        dest
    }

    /// A `ward` command running in the project with isolated home and data directories
    /// (after recording the project's trust, unless it is a [stranger](Self::stranger)).
    pub fn ward(&self) -> Command {
        if self.trusted {
            self.trust();
        }
        self.untrusting_ward()
    }

    /// Records that the user trusts what the project's files ask for now, as
    /// `ward trust --yes` does (nothing for a [stranger](Self::stranger), whose
    /// tests say `ward trust` themselves). A configuration Ward refuses is left for
    /// the command under test to report.
    pub fn trust(&self) {
        if !self.trusted {
            return;
        }
        let _ = self
            .untrusting_ward()
            .args(["trust", "--yes"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }

    /// [`Project::ward`] without recording trust first.
    pub fn untrusting_ward(&self) -> Command {
        let mut cmd = Command::new(ward_binary());
        cmd.current_dir(&self.root)
            .env("WARD_DATA_DIR", &self.data)
            .env("WARD_CACHE_DIR", &self.cache)
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env_remove("WARD_CONFIG")
            .env_remove("WARD_CONFIG_CONTENT")
            .stdin(Stdio::null());
        cmd
    }

    /// Runs `ward ARGS`, feeding `stdin`.
    pub fn run(&self, args: &[&str], stdin: &str) -> Run {
        let mut cmd = self.ward();
        cmd.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn ward");
        {
            use std::io::Write;
            let mut input = child.stdin.take().expect("stdin");
            let _ = input.write_all(stdin.as_bytes());
        }
        Run(child.wait_with_output().expect("wait for ward"))
    }
}

impl Project {
    /// [`Project::run`] on a blocking thread, for async tests (whose runtime also hosts
    /// the scripted LLM server the command talks to).
    pub async fn run_async(&self, args: &[&str], stdin: &str) -> Run {
        let project = Project::clone_handle(self);
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let stdin = stdin.to_string();
        tokio::task::spawn_blocking(move || {
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            project.run(&refs, &stdin)
        })
        .await
        .expect("ward task")
    }

    /// A second handle on the same directories that does not delete them when dropped,
    /// for running `ward` on a blocking thread while the test keeps the project.
    pub fn clone_handle(p: &Project) -> Project {
        Project {
            root: p.root.clone(),
            data: p.data.clone(),
            home: p.home.clone(),
            cache: p.cache.clone(),
            base: PathBuf::new(),
            trusted: p.trusted,
        }
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        if self.base.as_os_str().is_empty() {
            return;
        }
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

/// The outcome of a `ward` run.
pub struct Run(pub Output);

impl Run {
    /// Standard output.
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.0.stdout).into_owned()
    }
    /// Standard error.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.0.stderr).into_owned()
    }
    /// Whether it exited 0.
    pub fn ok(&self) -> bool {
        self.0.status.success()
    }
    /// Asserts success and returns stdout.
    pub fn expect_ok(&self) -> String {
        assert!(
            self.ok(),
            "ward failed: {}\nstdout: {}",
            self.stderr(),
            self.stdout()
        );
        self.stdout()
    }
    /// Asserts failure and returns stderr.
    pub fn expect_err(&self) -> String {
        assert!(!self.ok(), "ward succeeded unexpectedly: {}", self.stdout());
        self.stderr()
    }
}

/// `target/<profile>`: the directory above the running test's `deps/`.
fn profile_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    exe.parent().and_then(Path::parent).map(Path::to_path_buf)
}

/// The `ward` binary of this build (`target/<profile>/ward`, next to the test's `deps/`).
pub fn ward_binary() -> PathBuf {
    let bin = profile_dir().expect("target dir").join("ward");
    assert!(
        bin.is_file(),
        "{} is missing: run `cargo build -p ward` first",
        bin.display()
    );
    bin
}

/// The process sandbox as `ward` sets it up, with this build's `ward` binary as the
/// helper.
pub fn sandbox_settings() -> ward_plugin::SandboxSettings {
    ward_plugin::SandboxSettings {
        helper: Some(ward_sandbox::helper_beside(&ward_binary())),
        ..ward_plugin::SandboxSettings::default()
    }
}

/// `(name, source directory, component path)` of test plugin `name`.
pub fn test_plugin(name: &str) -> (&'static str, &'static str, &'static str) {
    *TEST_PLUGINS
        .iter()
        .find(|(n, _, _)| *n == name)
        .unwrap_or_else(|| panic!("no test plugin `{name}`"))
}

/// The compiled artifacts (`.cwasm`) in a component cache directory, sorted.
pub fn compiled_in(cache: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut dirs = vec![cache.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "cwasm") {
                found.push(path.display().to_string());
            }
        }
    }
    found.sort();
    found
}
