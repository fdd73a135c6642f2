//! The sandbox server: `ward-sandbox __sandbox-serve SETUP`, one long-lived process per
//! distinct mount-and-network setup, that starts every confined program of that setup.
//!
//! Creating a user, mount and network namespace and starting a helper binary cost
//! milliseconds; forking a small process that already lives in them costs tens of
//! microseconds. So the server enters the namespaces once ([`Setup`]), makes the
//! read-only and hidden mounts, and then, for each launch it receives on its socket
//! (standard input), forks a *monitor*. The monitor reads the request, enters a fresh
//! PID namespace (and a mount namespace for that namespace's own `/proc`), and forks
//! the namespace's first process, which restricts itself with Landlock and executes
//! the program. The monitor waits for it and answers on the launch's control socket
//! with the exit status; a byte or end-of-file from Ward there kills it first.
//!
//! Lifetimes chain so nothing outlives Ward: the server exits when Ward's end of its
//! socket closes (Ward exited or dropped it), a monitor is killed when the server dies
//! and the first process when its monitor dies (`PR_SET_PDEATHSIG`), and when the first
//! process dies the kernel kills everything else in its PID namespace.

use std::ffi::OsString;
use std::io::{self, Write};
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::linux::wire::{LAUNCH_FDS, Request, recv_with_fds};
use crate::linux::{exec, landlock, namespaces};
use crate::policy::Policy;
use crate::{CONFINE_FAILED, SandboxError};

/// The part of a policy a server applies once, for every program it starts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    /// Whether file access is confined (a private mount table is made).
    pub confine_files: bool,
    /// Whether the network is reachable (otherwise: an empty network namespace).
    pub network: bool,
    /// Mounted read-only (those that exist when the server starts); one beneath a
    /// hidden path is shown through its stand-in.
    pub read_only: Vec<PathBuf>,
    /// Covered by an empty stand-in (those that exist when the server starts).
    pub hidden: Vec<PathBuf>,
}

impl Setup {
    /// The setup `policy` needs.
    pub fn of(policy: &Policy) -> Setup {
        Setup {
            confine_files: policy.confine_files,
            network: policy.network,
            read_only: policy.read_only.clone(),
            hidden: policy.hidden.clone(),
        }
    }

    /// A setup that confines nothing, which may run without namespaces.
    fn is_unconfined(&self) -> bool {
        !self.confine_files && self.network
    }
}

/// The first message a server sends: ready, or why not (after this byte).
pub const READY: u8 = 0;
/// See [`READY`].
pub const FAILED: u8 = 1;

/// Runs the server on its own arguments (after the marker): `SETUP`. Its socket is
/// standard input. Returns its exit status.
pub fn main(args: &[OsString]) -> i32 {
    // Whatever Ward's own parent let it inherit (a jobserver's pipes, a terminal's
    // descriptors) must not reach the programs: the server keeps only 0–2.
    // SAFETY: close_range(2) takes integers only, and no descriptor above 2 is owned by
    // anything in this process yet.
    unsafe {
        libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32);
    }
    // SAFETY: Ward starts the server with its end of the socket as standard input, and
    // nothing else in this process owns descriptor 0.
    let socket = unsafe { OwnedFd::from_raw_fd(0) };
    let namespaced = match prepare(args) {
        Ok(namespaced) => namespaced,
        Err(e) => {
            let mut msg = vec![FAILED];
            msg.extend_from_slice(e.to_string().as_bytes());
            let _ = rustix::net::send(&socket, &msg, rustix::net::SendFlags::NOSIGNAL);
            return CONFINE_FAILED;
        }
    };
    if rustix::net::send(&socket, &[READY], rustix::net::SendFlags::NOSIGNAL).is_err() {
        return CONFINE_FAILED;
    }
    // Monitors are reaped by the kernel; each answers Ward itself.
    // SAFETY: setting a signal's disposition to SIG_IGN has no memory-safety preconditions.
    unsafe {
        libc::signal(libc::SIGCHLD, libc::SIG_IGN);
    }
    // SAFETY: getpid has no preconditions.
    let server = unsafe { libc::getpid() };
    let mut payload = [0u8; 16];
    loop {
        let fds = match recv_with_fds(&socket, &mut payload) {
            Ok((0, fds)) if fds.is_empty() => return 0,
            Ok((_, fds)) => fds,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return CONFINE_FAILED,
        };
        let Ok(fds) = <[OwnedFd; LAUNCH_FDS]>::try_from(fds) else {
            continue;
        };
        // SAFETY: the server is single-threaded, so the child may do anything after fork.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            drop(socket);
            std::process::exit(monitor(fds, namespaced, server));
        }
        // The parent's copies close here; a failed fork leaves Ward's control socket
        // without a monitor, which Ward reads as a launch that never ran.
    }
}

/// Enters the setup's namespaces and makes its mounts. Returns whether the namespaces
/// exist (a setup that confines nothing runs without them where the kernel has none).
fn prepare(args: &[OsString]) -> Result<bool, SandboxError> {
    let [setup] = args else {
        return Err(SandboxError::Usage);
    };
    let setup: Setup = serde_json::from_slice(setup.as_bytes())
        .map_err(|e| SandboxError::BadPolicy(e.to_string()))?;
    let entered = namespaces::enter(&namespaces::Namespaces {
        mounts: setup.confine_files,
        isolate_network: !setup.network,
    });
    if let Err(e) = entered {
        // `[sandbox] mode = "full"` still runs without user namespaces: only the
        // process group then bounds the command's descendants.
        return if setup.is_unconfined() {
            Ok(false)
        } else {
            Err(e)
        };
    }
    if setup.confine_files {
        // A read-only path beneath a hidden one is shown through its stand-in instead.
        let beneath = |p: &Path, hidden: &Path| p != hidden && p.starts_with(hidden);
        let shown_in = |hidden: &Path| -> Vec<PathBuf> {
            setup
                .read_only
                .iter()
                .filter(|p| beneath(p, hidden) && p.exists())
                .cloned()
                .collect()
        };
        for p in setup.read_only.iter().filter(|p| p.exists()) {
            if !setup.hidden.iter().any(|h| beneath(p, h)) {
                namespaces::make_read_only(p)?;
            }
        }
        for p in setup.hidden.iter().filter(|p| p.exists()) {
            namespaces::hide_showing(p, &shown_in(p))?;
        }
    }
    Ok(true)
}

/// One launch: reads the request, starts the program in its own PID namespace, waits
/// for it (or for Ward to cancel it) and answers with its exit status.
fn monitor(fds: [OwnedFd; LAUNCH_FDS], namespaced: bool, server: libc::pid_t) -> i32 {
    // SAFETY: plain signal-disposition and prctl calls taking integers only.
    unsafe {
        libc::signal(libc::SIGCHLD, libc::SIG_DFL);
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        if libc::getppid() != server {
            return CONFINE_FAILED;
        }
    }
    let [control, stdin, stdout, stderr] = fds;
    let mut control = UnixStream::from(control);
    let status = match launch(&mut control, [&stdin, &stdout, &stderr], namespaced) {
        Ok(pid) => {
            drop((stdin, stdout, stderr));
            exec::supervise(pid, &control)
        }
        Err(e) => {
            let mut err = std::fs::File::from(stderr);
            let _ = writeln!(err, "ward sandbox: {e}");
            CONFINE_FAILED
        }
    };
    let _ = rustix::net::send(
        &control,
        &status.to_le_bytes(),
        rustix::net::SendFlags::NOSIGNAL,
    );
    0
}

/// Reads the request and forks the program's first process into a new PID namespace.
fn launch(
    control: &mut UnixStream,
    stdio: [&OwnedFd; 3],
    namespaced: bool,
) -> Result<libc::pid_t, SandboxError> {
    let req = Request::read_from(control).map_err(SandboxError::Spawn)?;
    let program = exec::Program::new(&req).map_err(SandboxError::Spawn)?;
    if namespaced {
        let mut flags = libc::CLONE_NEWPID;
        if req.policy.confine_files {
            // Its own `/proc` is mounted in a mount table of its own.
            flags |= libc::CLONE_NEWNS;
        }
        // SAFETY: unshare(2) takes flags only; the monitor is single-threaded.
        if unsafe { libc::unshare(flags) } != 0 {
            return Err(SandboxError::Namespaces(io::Error::last_os_error()));
        }
    }
    // Lets the first process see if this monitor died before it could ask to die with it.
    // SAFETY: getpid has no preconditions.
    let me = rustix::process::Pid::from_raw(unsafe { libc::getpid() })
        .ok_or_else(|| SandboxError::Spawn(io::Error::other("no pid")))?;
    let monitor = rustix::process::pidfd_open(me, rustix::process::PidfdFlags::empty())
        .map_err(|e| SandboxError::Spawn(e.into()))?;
    // SAFETY: the monitor is single-threaded, so the child may do anything after fork.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(SandboxError::Spawn(io::Error::last_os_error()));
    }
    if pid == 0 {
        std::process::exit(first_process(
            &req.policy,
            &program,
            stdio,
            &monitor,
            namespaced,
        ));
    }
    Ok(pid)
}

/// The PID namespace's first process: dies with its monitor, takes its standard
/// streams, confines itself and becomes the program. Returns only on failure.
fn first_process(
    policy: &Policy,
    program: &exec::Program,
    stdio: [&OwnedFd; 3],
    monitor: &OwnedFd,
    namespaced: bool,
) -> i32 {
    // SAFETY: prctl, setpgid and signal take integers only.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        // Rust ignores SIGPIPE; the program must get the default back (`yes | head`).
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        // Without a PID namespace the monitor kills the group instead.
        libc::setpgid(0, 0);
    }
    // Checked before the streams take descriptors 0–2, one of which may be `monitor`.
    if exec::has_exited(monitor.as_fd()) {
        return CONFINE_FAILED;
    }
    // The streams arrived as descriptors above 2 (0–2 were the server's own when it
    // received them), so no `dup2` here overwrites a stream not yet moved.
    for (fd, target) in stdio.iter().zip(0..) {
        // SAFETY: dup2 takes descriptors only; `fd` is open (owned by the caller).
        if unsafe { libc::dup2(fd.as_raw_fd(), target) } < 0 {
            return CONFINE_FAILED;
        }
    }
    if let Err(e) = program.enter_directory() {
        eprintln!("ward sandbox: cannot enter {}: {e}", program.cwd_display());
        return CONFINE_FAILED;
    }
    if policy.confine_files {
        if namespaced {
            namespaces::mount_own_proc();
        }
        if let Err(e) = landlock::restrict(policy) {
            eprintln!("ward sandbox: {e}");
            return CONFINE_FAILED;
        }
    }
    let e = program.exec();
    eprintln!("ward sandbox: cannot run {}: {e}", program.name());
    if e.kind() == io::ErrorKind::NotFound {
        127
    } else {
        126
    }
}
