//! The helper that confines a program: `ward __sandbox-exec POLICY -- PROGRAM ARGS…`.
//!
//! Ward's spawners start the helper instead of the program (with `posix_spawn`, which a
//! `pre_exec` closure would rule out). The helper is single-threaded, as entering a new
//! user namespace requires: it enters the namespaces, makes the mounts, forks the
//! namespace's first process — which restricts itself with Landlock and executes the
//! program — and waits for it, exiting as it did. When that first process exits the
//! kernel kills everything left in its PID namespace, and when the helper dies the first
//! process is killed with it, so no descendant outlives the call that started it.

use std::convert::Infallible;
use std::ffi::{CString, OsString};
use std::io;
use std::os::unix::ffi::OsStrExt;

use crate::linux::{landlock, namespaces};
use crate::policy::Policy;
use crate::{CONFINE_FAILED, SandboxError};

/// Runs the helper on its own arguments (after the marker): `POLICY -- PROGRAM ARGS…`.
/// Returns only on failure, with the exit status to use.
pub fn main(args: &[OsString]) -> i32 {
    match run(args) {
        Ok(never) => match never {},
        Err(e) => {
            eprintln!("ward sandbox: {e}");
            CONFINE_FAILED
        }
    }
}

fn run(args: &[OsString]) -> Result<Infallible, SandboxError> {
    let (policy, program) = match args {
        [policy, sep, program @ ..] if sep == "--" && !program.is_empty() => (policy, program),
        _ => return Err(SandboxError::Usage),
    };
    let policy: Policy = serde_json::from_slice(policy.as_bytes())
        .map_err(|e| SandboxError::BadPolicy(e.to_string()))?;
    let argv = program
        .iter()
        .map(|a| CString::new(a.as_bytes()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| SandboxError::Usage)?;

    let entered = namespaces::enter(&namespaces::Namespaces {
        mounts: policy.confine_files,
        isolate_network: !policy.network,
    });
    if let Err(e) = entered {
        // A policy that confines nothing (`[sandbox] mode = "full"`) runs where the
        // kernel has no user namespaces too, only without the PID namespace: the
        // spawner's process-group kill is then what ends its descendants.
        if !policy.is_unconfined() {
            return Err(e);
        }
        return Err(SandboxError::Spawn(become_program(&argv)));
    }
    if policy.confine_files {
        for p in policy.read_only.iter().filter(|p| p.exists()) {
            namespaces::make_read_only(p)?;
        }
        for p in policy.hidden.iter().filter(|p| p.exists()) {
            namespaces::hide(p)?;
        }
    }

    // SAFETY: the helper is single-threaded, so the child may do anything after fork.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(SandboxError::Spawn(io::Error::last_os_error()));
    }
    if pid == 0 {
        std::process::exit(first_process(&policy, &argv));
    }
    std::process::exit(wait_for(pid));
}

/// The PID namespace's first process: dies with the helper, confines itself and
/// becomes the program. Returns the exit status only when that fails.
fn first_process(policy: &Policy, argv: &[CString]) -> i32 {
    // SAFETY: prctl with PR_SET_PDEATHSIG takes a signal number only.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    }
    if policy.confine_files {
        namespaces::mount_own_proc();
        if let Err(e) = landlock::restrict(policy) {
            eprintln!("ward sandbox: {e}");
            return CONFINE_FAILED;
        }
    }
    let e = become_program(argv);
    eprintln!(
        "ward sandbox: cannot run {}: {e}",
        argv[0].to_string_lossy()
    );
    if e.kind() == io::ErrorKind::NotFound {
        127
    } else {
        126
    }
}

/// Replaces this process with the program; returns only the error when that fails.
fn become_program(argv: &[CString]) -> io::Error {
    let mut ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    ptrs.push(std::ptr::null());
    // SAFETY: `ptrs` is a NULL-terminated array of NUL-terminated strings that outlive
    // the call (`argv` is never empty: the usage check requires a program); execvp only
    // returns on failure.
    unsafe {
        libc::execvp(ptrs[0], ptrs.as_ptr());
    }
    io::Error::last_os_error()
}

/// Waits for `pid` and turns how it ended into the helper's exit status (a shell's
/// convention: 128 + the signal when killed).
fn wait_for(pid: libc::pid_t) -> i32 {
    let mut status = 0;
    loop {
        // SAFETY: waitpid writes the status into a local.
        let rc = unsafe { libc::waitpid(pid, &mut status, 0) };
        if rc == pid {
            break;
        }
        if rc < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return CONFINE_FAILED;
        }
    }
    if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else if libc::WIFSIGNALED(status) {
        128 + libc::WTERMSIG(status)
    } else {
        CONFINE_FAILED
    }
}
