//! Running `git` against Ward's own object store: every call names the store
//! (`--git-dir`) and the project (`--work-tree`) explicitly, with the user's and the
//! system's git configuration shut out, so nothing of the user's `.git`, hooks,
//! filters or aliases takes part, and the environment's `GIT_*` variables cannot
//! redirect it.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::{AsRawFd, BorrowedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::SnapshotError;

/// Environment variables that would point git somewhere else than we say.
const REDIRECTING: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_CEILING_DIRECTORIES",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
];

/// `git` with the environment's redirections removed and the user's and the
/// system's configuration shut out.
fn shut_in_git() -> Command {
    let mut command = Command::new("git");
    for var in REDIRECTING {
        command.env_remove(var);
    }
    command
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null");
    command
}

/// One store and the tree it snapshots.
#[derive(Clone, Debug)]
pub(crate) struct Git {
    pub(crate) git_dir: PathBuf,
    pub(crate) work_tree: PathBuf,
}

impl Git {
    /// A `git` command on this store, run in the work tree.
    fn command(&self, args: &[&str]) -> Command {
        let mut command = shut_in_git();
        command
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("LC_ALL", "C")
            .arg("--git-dir")
            .arg(&self.git_dir)
            .arg("--work-tree")
            .arg(&self.work_tree)
            // Paths we pass are file names, never patterns.
            .arg("--literal-pathspecs")
            .args(["-c", "core.quotePath=false"])
            // The index of a large project is most of what a snapshot writes: a
            // split index rewrites only the entries changed since its shared part.
            // Given here rather than in the store's config so that stores made by
            // an earlier Ward get it too. (Not with `index.skipHash`: tried with git
            // 2.47, the split index then lost its entries — `write-tree` gave the
            // empty tree.)
            .args(["-c", "core.splitIndex=true"])
            .args(args)
            .current_dir(&self.work_tree)
            .stdin(Stdio::null());
        command
    }

    /// Runs `args`, feeding `input` on stdin; returns stdout.
    pub(crate) fn run(
        &self,
        args: &[&str],
        input: Option<&[u8]>,
    ) -> Result<Vec<u8>, SnapshotError> {
        run(self.command(args), args, input)
    }

    /// The contents of each object `specs` names (an object id, or `<tree>:<path>`),
    /// in order, read in one `git cat-file --batch`; `None` for one not found. A
    /// spec must not contain a newline.
    pub(crate) fn cat_batch(&self, specs: &[&str]) -> Result<Vec<Option<Vec<u8>>>, SnapshotError> {
        let mut found = Vec::with_capacity(specs.len());
        if specs.is_empty() {
            return Ok(found);
        }
        let mut input = String::new();
        for spec in specs {
            input.push_str(spec);
            input.push('\n');
        }
        // Only the object store is read: no work tree, no lock needed.
        let mut command = shut_in_git();
        command
            .arg("--git-dir")
            .arg(&self.git_dir)
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let spawn = |source: std::io::Error| SnapshotError::Spawn { source };
        let mut child = command.spawn().map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                SnapshotError::GitMissing
            } else {
                spawn(source)
            }
        })?;
        let stdin = child.stdin.take();
        // Written from a thread: git answers (and may fill its stdout) as it reads.
        let writer = std::thread::spawn(move || {
            if let Some(mut stdin) = stdin {
                let _ = stdin.write_all(input.as_bytes());
            }
        });
        let output = |detail: String| SnapshotError::Output {
            args: "cat-file --batch".into(),
            detail,
        };
        let read = child.stdout.take().map(|stdout| {
            let mut reader = BufReader::new(stdout);
            let mut header = String::new();
            while found.len() < specs.len() {
                header.clear();
                if reader.read_line(&mut header).map_err(spawn)? == 0 {
                    return Err(output("answers ended early".into()));
                }
                // `<oid> SP <type> SP <size> LF <contents> LF`, or `<spec> missing LF`.
                let answer = header.trim_end();
                if answer.ends_with(" missing") || answer.ends_with(" ambiguous") {
                    found.push(None);
                    continue;
                }
                let fields: Vec<&str> = answer.split(' ').collect();
                let [_oid, _kind, size] = fields[..] else {
                    return Err(output(format!("unreadable answer `{answer}`")));
                };
                let size: usize = size
                    .parse()
                    .map_err(|_| output(format!("bad size in `{}`", header.trim())))?;
                let mut content = vec![0; size + 1];
                reader.read_exact(&mut content).map_err(spawn)?;
                content.truncate(size);
                found.push(Some(content));
            }
            Ok(())
        });
        let _ = writer.join();
        let _ = child.wait();
        read.unwrap_or_else(|| Err(output("no output".into())))?;
        Ok(found)
    }
}

/// The store's lock, held; every git process that writes the store is started
/// through it and inherits it.
///
/// Why inherited: a Ward killed with SIGKILL leaves its git child running (an
/// `update-index` still reading its list, say). The lock is an `flock` on an open
/// file, which the kernel releases only when every descriptor of that file is
/// closed — so with the child holding one, the next Ward waits for the orphan to
/// finish instead of racing it for `index.lock`.
pub(crate) struct Held<'a> {
    git: &'a Git,
    lock: File,
}

impl<'a> Held<'a> {
    /// `git` with `lock` (already taken) held.
    pub(crate) fn new(git: &'a Git, lock: File) -> Held<'a> {
        Held { git, lock }
    }

    /// The store the lock is on.
    pub(crate) fn git(&self) -> &'a Git {
        self.git
    }

    /// Runs `args` on the store, the git process holding the lock as well; feeds
    /// `input` on stdin; returns stdout.
    pub(crate) fn run(
        &self,
        args: &[&str],
        input: Option<&[u8]>,
    ) -> Result<Vec<u8>, SnapshotError> {
        let mut command = self.git.command(args);
        let fd = self.lock.as_raw_fd();
        // SAFETY: the closure runs in the forked child before `exec`. It only
        // clears the close-on-exec flag of a descriptor the parent keeps open for
        // the whole call (`self.lock`), through `fcntl`, which is
        // async-signal-safe; it neither allocates nor takes locks.
        unsafe {
            command.pre_exec(move || {
                let lock = BorrowedFd::borrow_raw(fd);
                rustix::io::fcntl_setfd(lock, rustix::io::FdFlags::empty())
                    .map_err(std::io::Error::from)
            });
        }
        run(command, args, input)
    }
}

/// Runs `command` (described by `args` in errors); returns stdout on success.
pub(crate) fn run(
    mut command: Command,
    args: &[&str],
    input: Option<&[u8]>,
) -> Result<Vec<u8>, SnapshotError> {
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    if input.is_some() {
        command.stdin(Stdio::piped());
    }
    let mut child = command.spawn().map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            SnapshotError::GitMissing
        } else {
            SnapshotError::Spawn { source }
        }
    })?;
    if let (Some(input), Some(mut stdin)) = (input, child.stdin.take()) {
        // Written from a thread: git may fill its stdout before reading all of stdin.
        let input = input.to_vec();
        let writer = std::thread::spawn(move || stdin.write_all(&input));
        let output = child
            .wait_with_output()
            .map_err(|source| SnapshotError::Spawn { source })?;
        let _ = writer.join();
        return finish(args, output);
    }
    let output = child
        .wait_with_output()
        .map_err(|source| SnapshotError::Spawn { source })?;
    finish(args, output)
}

fn finish(args: &[&str], output: std::process::Output) -> Result<Vec<u8>, SnapshotError> {
    if output.status.success() {
        return Ok(output.stdout);
    }
    Err(SnapshotError::Git {
        args: args.join(" "),
        status: output.status.code(),
        stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
    })
}

/// Creates an empty store at `git_dir`, atomically: it is built in
/// a sibling directory and renamed into place, so a crash never leaves half a store.
pub(crate) fn init(git_dir: &Path, excluded: &[String]) -> Result<(), SnapshotError> {
    let parent = git_dir.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|source| SnapshotError::Io {
        path: parent.to_path_buf(),
        source,
    })?;
    let name = git_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let building = parent.join(format!(".{name}.init-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&building);
    let mut command = shut_in_git();
    command
        .args(["init", "--quiet", "--bare"])
        .arg(&building)
        .stdin(Stdio::null());
    run(command, &["init"], None)?;
    // Byte-exact contents and modes; no background work; the untracked-file cache
    // keeps the per-step scan of a large tree cheap. Appended to the fresh config in
    // one write rather than a `git config` process per key (later keys win in git).
    let config = building.join("config");
    let mut text = std::fs::read_to_string(&config).map_err(|source| SnapshotError::Io {
        path: config.clone(),
        source,
    })?;
    text.push_str(
        "[core]\n\tbare = false\n\tautocrlf = false\n\tsafecrlf = false\n\tsymlinks = true\n\
         \tfileMode = true\n\tuntrackedCache = true\n\tfsmonitor = false\n\
         \thooksPath = /dev/null\n[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n",
    );
    std::fs::write(&config, text).map_err(|source| SnapshotError::Io {
        path: config.clone(),
        source,
    })?;
    let exclude = building.join("info").join("exclude");
    std::fs::create_dir_all(building.join("info")).map_err(|source| SnapshotError::Io {
        path: building.clone(),
        source,
    })?;
    // Ward's own working directories in a project are never part of a snapshot.
    let mut patterns = String::from("/.ward/cache/\n/.ward/data/\n");
    for dir in excluded {
        patterns.push_str(&format!("/{dir}/\n"));
    }
    std::fs::write(&exclude, patterns).map_err(|source| SnapshotError::Io {
        path: exclude.clone(),
        source,
    })?;
    match std::fs::rename(&building, git_dir) {
        Ok(()) => Ok(()),
        // Another process made it meanwhile: theirs is as good as ours.
        Err(_) if git_dir.join("HEAD").exists() => {
            let _ = std::fs::remove_dir_all(&building);
            Ok(())
        }
        Err(source) => Err(SnapshotError::Io {
            path: git_dir.to_path_buf(),
            source,
        }),
    }
}

/// Splits NUL-terminated output into UTF-8 strings (git writes paths as bytes; a
/// path that is not UTF-8 is kept lossily, and never matches a file on restore).
pub(crate) fn nul_fields(out: &[u8]) -> impl Iterator<Item = String> + '_ {
    out.split(|b| *b == 0)
        .filter(|f| !f.is_empty())
        .map(|f| String::from_utf8_lossy(f).into_owned())
}
