//! The namespaces a confined process lives in, and the mounts made inside them.
//!
//! A user namespace (so no privilege is needed) owning a mount namespace (Ward's configuration
//! bind-mounted read-only, secrets covered by empty stand-ins) and, with the network
//! off, a network namespace with no interface up — entered once by the sandbox server
//! ([`crate::linux::server`]), which is single-threaded as a new user namespace
//! requires. Each program's own PID namespace (its process tree dies with its first
//! process) and `/proc` are made per launch.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::SandboxError;

/// `MOUNT_ATTR_RDONLY` from `<linux/mount.h>` (libc does not export it).
const MOUNT_ATTR_RDONLY: u64 = 0x1;
/// `AT_RECURSIVE` from `<linux/fcntl.h>`.
const AT_RECURSIVE: libc::c_uint = 0x8000;

/// `struct mount_attr` from `<linux/mount.h>`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// Which namespaces to enter.
pub struct Namespaces {
    /// A private mount table (for read-only and hidden paths).
    pub mounts: bool,
    /// A network namespace with nothing in it.
    pub isolate_network: bool,
}

/// Enters the namespaces: a new user namespace mapping the caller's own uid and gid,
/// and the others asked for. (Each program's PID namespace is made per launch.)
pub fn enter(ns: &Namespaces) -> Result<(), SandboxError> {
    // SAFETY: getuid/getgid have no preconditions.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    let mut flags = libc::CLONE_NEWUSER;
    if ns.mounts {
        flags |= libc::CLONE_NEWNS;
    }
    if ns.isolate_network {
        flags |= libc::CLONE_NEWNET;
    }
    // SAFETY: unshare(2) takes flags only; the server is single-threaded, as a new
    // user namespace requires.
    if unsafe { libc::unshare(flags) } != 0 {
        return Err(SandboxError::Namespaces(io::Error::last_os_error()));
    }
    let write = |file: &str, text: String| {
        std::fs::write(file, text).map_err(|e| SandboxError::Namespaces(with_context(e, file)))
    };
    // Without this an unprivileged process may not write its gid map.
    write("/proc/self/setgroups", "deny".to_string())?;
    write("/proc/self/uid_map", format!("{uid} {uid} 1"))?;
    write("/proc/self/gid_map", format!("{gid} {gid} 1"))?;
    if ns.mounts {
        // Nothing mounted from here on may propagate back to the host's mount table.
        mount(
            None,
            Path::new("/"),
            None,
            libc::MS_REC | libc::MS_PRIVATE,
            None,
        )
        .map_err(|error| SandboxError::Mount {
            path: "/".into(),
            error,
        })?;
    }
    Ok(())
}

/// Makes `path` (and every mount beneath it) read-only in this mount namespace.
pub fn make_read_only(path: &Path) -> Result<(), SandboxError> {
    let fail = |error| SandboxError::Mount {
        path: path.to_path_buf(),
        error,
    };
    mount(Some(path), path, None, libc::MS_BIND | libc::MS_REC, None).map_err(fail)?;
    let c = cstring(path)?;
    let attr = MountAttr {
        attr_set: MOUNT_ATTR_RDONLY,
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    // SAFETY: mount_setattr(2) reads `attr` (of the size given) and the NUL-terminated
    // path; both outlive the call.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            c.as_ptr(),
            AT_RECURSIVE,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    if rc != 0 {
        return Err(fail(io::Error::last_os_error()));
    }
    Ok(())
}

/// Covers `path` with an empty stand-in: an empty read-only directory for a directory,
/// `/dev/null` for a file.
pub fn hide(path: &Path) -> Result<(), SandboxError> {
    let fail = |error| SandboxError::Mount {
        path: path.to_path_buf(),
        error,
    };
    if path.is_dir() {
        let flags = libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
        mount(
            Some(Path::new("tmpfs")),
            path,
            Some("tmpfs"),
            flags,
            Some("size=4k,mode=000"),
        )
        .map_err(fail)
    } else {
        mount(
            Some(Path::new("/dev/null")),
            path,
            None,
            libc::MS_BIND,
            None,
        )
        .map_err(fail)
    }
}

/// Mounts a `/proc` of the new PID namespace, so the process sees only its own tree.
/// Called in the namespace's first process. Where the kernel refuses (a container
/// whose `/proc` is partly masked), the old `/proc` stays; Landlock still denies
/// reading another process's memory or environment.
pub fn mount_own_proc() {
    let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
    let _ = mount(
        Some(Path::new("proc")),
        Path::new("/proc"),
        Some("proc"),
        flags,
        None,
    );
}

fn mount(
    source: Option<&Path>,
    target: &Path,
    fstype: Option<&str>,
    flags: libc::c_ulong,
    data: Option<&str>,
) -> io::Result<()> {
    let source = source.map(cstring_io).transpose()?;
    let target = cstring_io(target)?;
    let fstype = fstype.map(CString::new).transpose()?;
    let data = data.map(CString::new).transpose()?;
    let ptr = |c: &Option<CString>| c.as_ref().map_or(std::ptr::null(), |c| c.as_ptr());
    // SAFETY: every pointer is null or a NUL-terminated string that outlives the call.
    let rc = unsafe {
        libc::mount(
            ptr(&source),
            target.as_ptr(),
            ptr(&fstype),
            flags,
            ptr(&data).cast(),
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn cstring_io(path: &Path) -> io::Result<CString> {
    Ok(CString::new(path.as_os_str().as_bytes())?)
}

fn cstring(path: &Path) -> Result<CString, SandboxError> {
    cstring_io(path).map_err(|error| SandboxError::Mount {
        path: path.to_path_buf(),
        error,
    })
}

fn with_context(e: io::Error, what: &str) -> io::Error {
    io::Error::new(e.kind(), format!("{what}: {e}"))
}
