//! Ward's process sandbox: every process Ward spawns — a `bash` tool command, a
//! plugin's `exec` — runs confined by the kernel.
//!
//! The WebAssembly sandbox ends where a process begins, so processes get their own:
//! - **Landlock** (Linux ≥ 5.13) restricts file access to an allow-list of paths
//!   ([`Policy::read`], [`Policy::write`]), for the process and all it starts; it also
//!   keeps signals and abstract UNIX sockets inside the sandbox.
//! - **Namespaces** (unprivileged user namespaces): a PID namespace so every
//!   descendant dies with the command, a mount namespace where Ward's configuration and
//!   `.git` are bind-mounted read-only and secrets and Ward's private state are
//!   covered, and — without network — a network namespace with no interface up.
//!
//! Both are needed: Landlock cannot make a subdirectory of a writable tree read-only
//! or hide a file, and namespaces alone do not confine reads. So what must stay out of
//! reach whatever a program was granted — Ward's data directory beneath a granted
//! `~/.local` — is covered in the mount table, which Landlock's grants cannot undo; a
//! [`Launcher`] adds it ([`Private`]) to every policy it launches, so no spawner can
//! forget it. Spawners start programs
//! through a [`Launcher`], which keeps one sandbox server per mount-and-network setup
//! (the small `ward-sandbox` binary, or `ward` itself, which answers the server's
//! marker first thing in `main`: [`dispatch`]) and asks it for each program. Where the
//! kernel lacks either mechanism the server refuses to run the program ([`probe`] says
//! why): Ward never runs a command unconfined that was meant to be confined.

mod policy;

#[cfg(target_os = "linux")]
mod linux {
    pub mod exec;
    pub mod landlock;
    pub mod launcher;
    pub mod namespaces;
    pub mod server;
    pub mod wire;
}

#[cfg(target_os = "linux")]
pub use linux::launcher::{
    Control, KeepAlive, Launched, Launcher, Program, STATUS_LEN, exit_status,
};

use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub use policy::{HOME_SECRETS, Mode, Policy, Private, ReadScope, SYSTEM_READ, home_secrets};

/// Exit status of a launch the sandbox could not confine (it never runs the program
/// unconfined instead); its reason is on standard error, after `ward sandbox:`.
pub const CONFINE_FAILED: i32 = 125;

/// The first argument that makes the `ward` (or `ward-sandbox`) binary a sandbox server.
pub const SERVE_ARG: &str = "__sandbox-serve";

/// Why a program could not be confined.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The server was started with arguments it does not understand.
    #[error("usage: ward {SERVE_ARG} SETUP")]
    Usage,
    /// The policy argument is not a valid policy.
    #[error("invalid sandbox policy: {0}")]
    BadPolicy(String),
    /// The kernel refused the namespaces.
    #[error(
        "cannot create the sandbox's namespaces ({0}); unprivileged user namespaces are required (`[sandbox] mode = \"full\"` runs the bash tool's commands unconfined)"
    )]
    Namespaces(std::io::Error),
    /// A mount inside the sandbox failed.
    #[error("cannot set up the sandbox's view of {}: {error}", path.display())]
    Mount {
        /// The path being mounted.
        path: PathBuf,
        /// What the kernel said.
        error: std::io::Error,
    },
    /// The kernel refused the Landlock ruleset.
    #[error("cannot apply the Landlock ruleset: {0}")]
    Landlock(String),
    /// The kernel has no Landlock.
    #[error(
        "this kernel does not enforce Landlock (Linux 5.13 or later with Landlock enabled is required; `[sandbox] mode = \"full\"` runs the bash tool's commands unconfined)"
    )]
    LandlockUnavailable,
    /// Starting the confined process failed.
    #[error("cannot start the confined process: {0}")]
    Spawn(std::io::Error),
    /// The sandbox server could not set up the sandbox (its reason).
    #[error("{0}")]
    Server(String),
    /// This operating system has no sandbox implementation.
    #[error("process sandboxing is only implemented on Linux")]
    Unsupported,
}

/// If this process was started as a sandbox server, runs it and returns its exit
/// status. Call it first thing in `main`, before any thread is started (a new user
/// namespace needs a single-threaded process).
pub fn dispatch() -> Option<i32> {
    let mut args = std::env::args_os().skip(1);
    if args.next()? != SERVE_ARG {
        return None;
    }
    let rest: Vec<OsString> = args.collect();
    #[cfg(target_os = "linux")]
    {
        Some(linux::server::main(&rest))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = rest;
        eprintln!("ward sandbox: {}", SandboxError::Unsupported);
        Some(CONFINE_FAILED)
    }
}

/// The helper to run: `ward-sandbox` beside `ward_binary` when it is there (a small
/// binary, quick to start), else `ward_binary` itself (which answers the same marker).
pub fn helper_beside(ward_binary: &Path) -> PathBuf {
    let small = ward_binary.with_file_name(HELPER_BINARY);
    if small.is_file() {
        small
    } else {
        ward_binary.to_path_buf()
    }
}

/// The file name of the small helper binary.
pub const HELPER_BINARY: &str = "ward-sandbox";

/// What the running kernel offers the sandbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Support {
    /// The Landlock ABI version (0: none).
    pub landlock_abi: i32,
    /// Whether an unprivileged user namespace can be created.
    pub user_namespaces: bool,
}

impl Support {
    /// Whether confined commands can run here.
    pub fn sufficient(&self) -> bool {
        self.landlock_abi >= 1 && self.user_namespaces
    }
}

/// Asks the kernel what it supports (for `ward plugin list` and error messages).
pub fn probe() -> Support {
    #[cfg(target_os = "linux")]
    {
        Support {
            landlock_abi: landlock_abi(),
            user_namespaces: std::fs::read_to_string("/proc/sys/user/max_user_namespaces")
                .ok()
                .and_then(|s| s.trim().parse::<u64>().ok())
                .is_some_and(|n| n > 0),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        Support {
            landlock_abi: 0,
            user_namespaces: false,
        }
    }
}

#[cfg(target_os = "linux")]
fn landlock_abi() -> i32 {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: landlock_create_ruleset with a null attribute and the VERSION flag only
    // returns the ABI version (or -1); it reads no memory.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    i32::try_from(v).unwrap_or(0).max(0)
}
