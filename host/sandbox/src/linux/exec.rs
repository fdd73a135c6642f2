//! Becoming the program and watching it: the `execve` of a confined program (its
//! `PATH` looked up in the environment it is given, not the server's), and the
//! monitor's wait for it or for Ward's cancel.

use std::ffi::{CString, OsStr};
use std::io;
use std::os::fd::BorrowedFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::UnixStream;

use rustix::event::{PollFd, PollFlags};

use crate::CONFINE_FAILED;
use crate::linux::wire::Request;

/// `PATH` when the program's environment has none (as glibc's `execvp` assumes).
const DEFAULT_PATH: &[u8] = b"/usr/local/bin:/usr/bin:/bin";

/// A program ready to execute: every string converted before the fork.
pub struct Program {
    argv: Vec<CString>,
    envp: Vec<CString>,
    cwd: CString,
    /// Candidate paths of the program, in lookup order.
    candidates: Vec<CString>,
}

impl Program {
    /// Prepares `req`'s program.
    pub fn new(req: &Request) -> io::Result<Program> {
        let argv = cstrings(&req.argv)?;
        let envp = cstrings(&req.env)?;
        let cwd = CString::new(req.cwd.as_os_str().as_bytes()).map_err(io::Error::other)?;
        let name = req.argv[0].as_bytes();
        let candidates = if name.contains(&b'/') {
            vec![argv[0].clone()]
        } else {
            let path = req
                .env
                .iter()
                .find_map(|v| v.as_bytes().strip_prefix(b"PATH="))
                .unwrap_or(DEFAULT_PATH);
            path.split(|b| *b == b':')
                .map(|dir| if dir.is_empty() { &b"."[..] } else { dir })
                .filter_map(|dir| CString::new([dir, b"/", name].concat()).ok())
                .collect()
        };
        Ok(Program {
            argv,
            envp,
            cwd,
            candidates,
        })
    }

    /// The program's name, for messages.
    pub fn name(&self) -> String {
        self.argv[0].to_string_lossy().into_owned()
    }

    /// The working directory, for messages.
    pub fn cwd_display(&self) -> String {
        OsStr::from_bytes(self.cwd.as_bytes())
            .to_string_lossy()
            .into_owned()
    }

    /// Changes to the program's working directory.
    pub fn enter_directory(&self) -> io::Result<()> {
        // SAFETY: `cwd` is a NUL-terminated string that outlives the call.
        if unsafe { libc::chdir(self.cwd.as_ptr()) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Replaces this process with the program; returns only the error when every
    /// candidate failed (the most telling one: permission over not-found).
    pub fn exec(&self) -> io::Error {
        let argv = null_terminated(&self.argv);
        let envp = null_terminated(&self.envp);
        let mut telling = io::Error::from(io::ErrorKind::NotFound);
        for candidate in &self.candidates {
            // SAFETY: both arrays are NULL-terminated arrays of NUL-terminated strings
            // that outlive the call; execve only returns on failure.
            unsafe {
                libc::execve(candidate.as_ptr(), argv.as_ptr(), envp.as_ptr());
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::NotFound {
                telling = e;
            }
        }
        telling
    }
}

/// Converts a request's strings for `execve` before forking (nothing is allocated
/// between the fork and the exec).
fn cstrings(items: &[std::ffi::OsString]) -> io::Result<Vec<CString>> {
    items
        .iter()
        .map(|s| CString::new(s.as_bytes()).map_err(io::Error::other))
        .collect()
}

fn null_terminated(strings: &[CString]) -> Vec<*const libc::c_char> {
    let mut ptrs: Vec<*const libc::c_char> = strings.iter().map(|s| s.as_ptr()).collect();
    ptrs.push(std::ptr::null());
    ptrs
}

/// Whether the process behind `pidfd` has exited.
pub fn has_exited(pidfd: BorrowedFd<'_>) -> bool {
    let mut fds = [PollFd::new(&pidfd, PollFlags::IN)];
    let zero = rustix::event::Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    matches!(rustix::event::poll(&mut fds, Some(&zero)), Ok(n) if n > 0)
}

/// Waits until `pid` exits or Ward writes to (or closes) `control`, killing the
/// program then; returns the exit status in a shell's convention (128 + signal).
pub fn supervise(pid: libc::pid_t, control: &UnixStream) -> i32 {
    let pidfd = rustix::process::Pid::from_raw(pid)
        .and_then(|p| rustix::process::pidfd_open(p, rustix::process::PidfdFlags::empty()).ok());
    if let Some(pidfd) = &pidfd {
        loop {
            let mut fds = [
                PollFd::new(control, PollFlags::IN),
                PollFd::new(pidfd, PollFlags::IN),
            ];
            match rustix::event::poll(&mut fds, None) {
                Err(rustix::io::Errno::INTR) => continue,
                Err(_) => break,
                Ok(_) => {}
            }
            if !fds[1].revents().is_empty() {
                return wait_for(pid);
            }
            if !fds[0].revents().is_empty() {
                break;
            }
        }
    }
    // Cancelled (or the program cannot be watched): kill it, and its group where no
    // PID namespace takes the descendants with it.
    // SAFETY: kill(2) takes integers only; `pid` is this monitor's unreaped child.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
        libc::kill(pid, libc::SIGKILL);
    }
    wait_for(pid)
}

/// Reaps `pid` and turns how it ended into an exit status.
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
