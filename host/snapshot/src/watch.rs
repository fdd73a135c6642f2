//! Which of the project's paths changed since the last snapshot, as the kernel tells
//! it (inotify), so a snapshot can look at those paths instead of scanning every
//! file of the project (git's `ls-files` over 10,000 files costs more than the rest
//! of a snapshot together).
//!
//! How it stays exact:
//! - Watches are set on every directory a snapshot can take files from (the walk
//!   honours `.gitignore` as git does, skips `.git` and Ward's own directories) by a
//!   thread of its own, started by the first snapshot. Only a full scan that
//!   *begins* after every watch is in place becomes the baseline; until then each
//!   snapshot scans everything, as without a watcher.
//! - Events are read when a snapshot begins, under the store's lock: the kernel
//!   queues an event when the write happens, so a tool's write that returned before
//!   the snapshot began is always seen.
//! - Anything the watcher cannot follow exactly makes the next snapshot scan
//!   everything and the watches be set again from scratch: a lost event (the
//!   kernel's queue overflowed), a `.gitignore` changed, a directory renamed, the
//!   project itself moved or removed, a name that is not UTF-8, more changed paths
//!   than a pathspec list should carry.
//! - A new directory gets watches (with its subdirectories) as its creation is read,
//!   and the directory itself is handed to the snapshot whole, so files made in it
//!   before its watch existed are found by git.
//! - Without inotify (no instances or watches left, another system) the watcher
//!   turns itself off and every snapshot scans everything.
//!
//! What it cannot see, as git's own file-system monitor cannot: a file changed
//! through a hard link from outside the project, or through a shared memory map.

use std::collections::{BTreeSet, HashMap};
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use rustix::fs::inotify::{self, ReadFlags, WatchFlags};
use rustix::io::Errno;

/// More changed paths than this and the snapshot scans everything instead.
const MAX_PATHS: usize = 512;
/// More directories than this and the watcher turns itself off (the kernel's
/// default per-user watch limit is 8,192 on small machines).
const MAX_WATCHES: usize = 8_000;

/// What a snapshot must look at.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Every file of the project. `baseline`: the watches were all in place before
    /// this scan began, so once it succeeds the watcher can answer for the next.
    Everything { baseline: bool },
    /// Only these paths (files or directories) changed since the last snapshot.
    Paths(BTreeSet<String>),
}

/// The watcher of one project, shared by every clone of its [`crate::Snapshots`].
#[derive(Clone, Debug)]
pub(crate) struct Watch {
    shared: Arc<Mutex<State>>,
}

#[derive(Debug)]
struct State {
    root: PathBuf,
    /// Directories (relative) never watched: Ward's own.
    excluded: Vec<String>,
    phase: Phase,
    /// Which setup is current: a setup finishing after a reset is discarded.
    generation: u64,
    /// A full scan that began with every watch in place has succeeded, and every
    /// change since is in `changed`.
    baseline: bool,
    changed: BTreeSet<String>,
}

#[derive(Debug)]
enum Phase {
    Idle,
    SettingUp,
    Ready(Watching),
    Off,
}

#[derive(Debug)]
struct Watching {
    fd: OwnedFd,
    /// Watch descriptor → the directory it watches, relative to the root ("" for it).
    dirs: HashMap<i32, String>,
}

/// What reading the events found that the watches cannot follow.
struct Reset;

impl Watch {
    /// A watcher for `root`, not started; `excluded` are directories (relative to
    /// `root`) never snapshotted.
    pub(crate) fn new(root: &Path, excluded: &[String]) -> Watch {
        let mut excluded = excluded.to_vec();
        excluded.extend([".ward/cache".to_string(), ".ward/data".to_string()]);
        Watch {
            shared: Arc::new(Mutex::new(State {
                root: root.to_path_buf(),
                excluded,
                phase: Phase::Idle,
                generation: 0,
                baseline: false,
                changed: BTreeSet::new(),
            })),
        }
    }

    /// Whether changes are being followed (every watch in place).
    pub(crate) fn is_ready(&self) -> bool {
        self.shared
            .lock()
            .is_ok_and(|state| matches!(state.phase, Phase::Ready(_)))
    }

    /// Starts setting the watches up, unless they are (or are being) already.
    pub(crate) fn start_early(&self) {
        if let Ok(mut state) = self.shared.lock()
            && matches!(state.phase, Phase::Idle)
        {
            self.start(&mut state);
        }
    }

    /// Called as a snapshot begins, holding the store's lock: reads what happened
    /// and says what the snapshot must look at. Starts the watcher the first time.
    pub(crate) fn begin(&self) -> Scope {
        let Ok(mut state) = self.shared.lock() else {
            return Scope::Everything { baseline: false };
        };
        let state = &mut *state;
        if matches!(state.phase, Phase::Idle) {
            self.start(state);
        }
        let reset = match &mut state.phase {
            Phase::Ready(watching) => {
                let (root, excluded) = (&state.root, &state.excluded);
                watching.drain(root, excluded, &mut state.changed).err()
            }
            _ => None,
        };
        if reset.is_some() {
            state.baseline = false;
            state.changed.clear();
            self.start(state);
        }
        let ready = matches!(state.phase, Phase::Ready(_));
        if ready && state.baseline && state.changed.len() <= MAX_PATHS {
            // Until this snapshot is written ([`Watch::done`]), nothing answers for
            // the next: a failed one must not lose the paths taken here.
            state.baseline = false;
            return Scope::Paths(std::mem::take(&mut state.changed));
        }
        // This scan covers whatever was recorded; until it succeeds nothing answers
        // for the next one.
        state.baseline = false;
        state.changed.clear();
        Scope::Everything { baseline: ready }
    }

    /// Called when the snapshot begun with `scope` has been written: from now on
    /// the recorded changes are exactly those since it. A failed snapshot does not
    /// call this, and the next one scans everything.
    pub(crate) fn done(&self, scope: &Scope) {
        if let Ok(mut state) = self.shared.lock() {
            match scope {
                Scope::Everything { baseline: true } | Scope::Paths(_) => state.baseline = true,
                Scope::Everything { baseline: false } => {}
            }
        }
    }

    /// Starts setting the watches up from scratch on a thread of its own.
    fn start(&self, state: &mut State) {
        state.generation += 1;
        state.phase = Phase::SettingUp;
        let (generation, root, excluded) =
            (state.generation, state.root.clone(), state.excluded.clone());
        let shared = Arc::downgrade(&self.shared);
        let spawned = std::thread::Builder::new()
            .name("ward-snapshot-watch".into())
            .spawn(move || set_up(&shared, generation, &root, &excluded));
        if spawned.is_err() {
            state.phase = Phase::Off;
        }
    }
}

/// Sets every watch, then hands them to the shared state (if it still wants them).
fn set_up(shared: &Weak<Mutex<State>>, generation: u64, root: &Path, excluded: &[String]) {
    let watching = Watching::new(root, excluded);
    let Some(shared) = shared.upgrade() else {
        return;
    };
    let Ok(mut state) = shared.lock() else {
        return;
    };
    if state.generation != generation {
        return;
    }
    state.phase = match watching {
        Some(watching) => Phase::Ready(watching),
        None => {
            tracing::debug!("snapshot: no file-system watcher, every snapshot scans the project");
            Phase::Off
        }
    };
}

impl Watching {
    /// Watches on every directory under `root` a snapshot takes files from; `None`
    /// when the kernel refuses (no inotify, limits reached) or there are too many.
    fn new(root: &Path, excluded: &[String]) -> Option<Watching> {
        let fd =
            inotify::init(inotify::CreateFlags::CLOEXEC | inotify::CreateFlags::NONBLOCK).ok()?;
        let mut watching = Watching {
            fd,
            dirs: HashMap::new(),
        };
        watching.add(root, "").ok()?;
        let walk = ignore::WalkBuilder::new(root)
            .standard_filters(false)
            .git_ignore(true)
            .require_git(false)
            .follow_links(false)
            .filter_entry(move |entry| !is_git_dir(entry.file_name()))
            .build();
        watching.add_walked(root, walk, excluded).ok()?;
        Some(watching)
    }

    /// Watches every directory `walk` yields below its start, but Ward's own;
    /// `Err` when the kernel refuses, or a name is not UTF-8 (it could not be named
    /// to git: the watcher gives up rather than miss what happens there).
    fn add_walked(
        &mut self,
        root: &Path,
        walk: ignore::Walk,
        excluded: &[String],
    ) -> Result<(), Reset> {
        for entry in walk.flatten() {
            if entry.depth() == 0 || !entry.file_type().is_some_and(|t| t.is_dir()) {
                continue;
            }
            let rel = relative(root, entry.path()).ok_or(Reset)?;
            if !is_excluded(&rel, excluded) {
                self.add(entry.path(), &rel)?;
            }
        }
        Ok(())
    }

    /// Watches directory `path` (`rel` under the root); `Err` when the kernel
    /// refuses or the limit is reached.
    fn add(&mut self, path: &Path, rel: &str) -> Result<(), Reset> {
        if self.dirs.len() >= MAX_WATCHES {
            return Err(Reset);
        }
        let flags = WatchFlags::MODIFY
            | WatchFlags::ATTRIB
            | WatchFlags::CLOSE_WRITE
            | WatchFlags::CREATE
            | WatchFlags::DELETE
            | WatchFlags::MOVED_FROM
            | WatchFlags::MOVED_TO
            | WatchFlags::DELETE_SELF
            | WatchFlags::MOVE_SELF
            | WatchFlags::ONLYDIR
            | WatchFlags::DONT_FOLLOW
            | WatchFlags::EXCL_UNLINK;
        match inotify::add_watch(&self.fd, path, flags) {
            Ok(wd) => {
                self.dirs.insert(wd, rel.to_string());
                Ok(())
            }
            // Gone already: its removal is (or will be) an event of its parent.
            Err(Errno::NOENT) | Err(Errno::NOTDIR) => Ok(()),
            Err(_) => Err(Reset),
        }
    }

    /// Watches a directory that appeared and everything under it except `.git`,
    /// unless `.gitignore` leaves it out; `Err` when the kernel refuses.
    ///
    /// Below the new directory no `.gitignore` is consulted: watching more than git
    /// takes costs events, watching less would lose changes.
    fn add_tree(&mut self, root: &Path, rel: &str, excluded: &[String]) -> Result<(), Reset> {
        // A directory reached through a symlink is not the project's (the link was
        // made after the event was queued): it is never watched.
        if is_excluded(rel, excluded)
            || crate::under_symlink(root, rel)
            || gitignored_dir(root, rel)
        {
            return Ok(());
        }
        self.add(&root.join(rel), rel)?;
        let walk = ignore::WalkBuilder::new(root.join(rel))
            .standard_filters(false)
            .follow_links(false)
            .filter_entry(move |entry| !is_git_dir(entry.file_name()))
            .build();
        self.add_walked(root, walk, excluded)
    }

    /// Reads every queued event into `changed`; `Err` when one cannot be followed.
    fn drain(
        &mut self,
        root: &Path,
        excluded: &[String],
        changed: &mut BTreeSet<String>,
    ) -> Result<(), Reset> {
        let mut buffer = [MaybeUninit::<u8>::uninit(); 16 * 1024];
        let mut new_dirs = Vec::new();
        {
            let mut reader = inotify::Reader::new(&self.fd, &mut buffer);
            loop {
                let event = match reader.next() {
                    Ok(event) => event,
                    Err(Errno::AGAIN) => break,
                    Err(Errno::INTR) => continue,
                    Err(_) => return Err(Reset),
                };
                let flags = event.events();
                if flags.contains(ReadFlags::QUEUE_OVERFLOW)
                    || flags.intersects(ReadFlags::DELETE_SELF | ReadFlags::MOVE_SELF)
                        && self.dirs.get(&event.wd()).is_some_and(|d| d.is_empty())
                    || flags.contains(ReadFlags::UNMOUNT)
                {
                    return Err(Reset);
                }
                if flags.contains(ReadFlags::IGNORED) {
                    self.dirs.remove(&event.wd());
                    continue;
                }
                let (Some(dir), Some(name)) = (self.dirs.get(&event.wd()), event.file_name())
                else {
                    continue;
                };
                let Ok(name) = name.to_str() else {
                    return Err(Reset);
                };
                if name == ".gitignore" {
                    return Err(Reset);
                }
                let path = if dir.is_empty() {
                    name.to_string()
                } else {
                    format!("{dir}/{name}")
                };
                if flags.contains(ReadFlags::ISDIR) {
                    // A renamed directory: its watches now follow it under a name
                    // this map does not know.
                    if flags.intersects(ReadFlags::MOVED_FROM | ReadFlags::MOVED_TO) {
                        return Err(Reset);
                    }
                    if flags.contains(ReadFlags::CREATE) && name != ".git" {
                        new_dirs.push(path.clone());
                    }
                }
                changed.insert(path);
            }
        }
        for dir in new_dirs {
            self.add_tree(root, &dir, excluded)?;
        }
        Ok(())
    }
}

/// Whether the `.gitignore` files from the root down to its parent leave directory
/// `rel` out, the deepest file that says anything deciding (as in git).
fn gitignored_dir(root: &Path, rel: &str) -> bool {
    let path = root.join(rel);
    let mut ignored = false;
    let mut level = root.to_path_buf();
    let parents = Path::new(rel)
        .parent()
        .into_iter()
        .flat_map(|p| p.components());
    for component in std::iter::once(None).chain(parents.map(Some)) {
        if let Some(component) = component {
            level.push(component);
        }
        let file = level.join(".gitignore");
        if !file.is_file() {
            continue;
        }
        let mut builder = ignore::gitignore::GitignoreBuilder::new(&level);
        // A line git would not parse is skipped by it; a file that cannot be read
        // at all decides nothing here.
        let _ = builder.add(&file);
        let Ok(matcher) = builder.build() else {
            continue;
        };
        let found = matcher.matched(&path, true);
        if found.is_ignore() {
            ignored = true;
        } else if found.is_whitelist() {
            ignored = false;
        }
    }
    ignored
}

fn is_git_dir(name: &std::ffi::OsStr) -> bool {
    name == ".git"
}

/// `path` relative to `root`, as the snapshot names it; `None` if not UTF-8.
fn relative(root: &Path, path: &Path) -> Option<String> {
    path.strip_prefix(root)
        .ok()?
        .to_str()
        .map(|rel| rel.to_string())
}

/// Whether `rel` is one of Ward's own directories (or under one).
fn is_excluded(rel: &str, excluded: &[String]) -> bool {
    excluded.iter().any(|dir| {
        rel == dir
            || rel
                .strip_prefix(dir.as_str())
                .is_some_and(|rest| rest.starts_with('/'))
    })
}
