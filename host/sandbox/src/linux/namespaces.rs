//! The namespaces a confined process lives in, and the mounts made inside them.
//!
//! A user namespace (so no privilege is needed) owning a mount namespace (Ward's configuration
//! bind-mounted read-only, secrets and Ward's private state covered by empty stand-ins,
//! through which only the paths a policy shows are mounted back) and, with the network
//! off, a network namespace with no interface up — entered once by the sandbox server
//! ([`crate::linux::server`]), which is single-threaded as a new user namespace
//! requires. Each program's own PID namespace (its process tree dies with its first
//! process) and `/proc` are made per launch.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::SandboxError;

/// `MOUNT_ATTR_RDONLY` from `<linux/mount.h>` (libc does not export it).
const MOUNT_ATTR_RDONLY: u64 = 0x1;
/// `AT_RECURSIVE` from `<linux/fcntl.h>`.
const AT_RECURSIVE: libc::c_uint = 0x8000;
/// `OPEN_TREE_CLONE` from `<linux/mount.h>`: a detached copy of the mount tree.
const OPEN_TREE_CLONE: libc::c_uint = 0x1;
/// `MOVE_MOUNT_F_EMPTY_PATH` from `<linux/mount.h>`: the source is the descriptor.
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x4;

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
    set_read_only(path)
}

/// Sets every mount at and beneath `path` read-only.
fn set_read_only(path: &Path) -> Result<(), SandboxError> {
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
        return Err(SandboxError::Mount {
            path: path.to_path_buf(),
            error: io::Error::last_os_error(),
        });
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

/// Covers directory `path` like [`hide`], except for `shown` (existing paths beneath
/// it), which stay where they are, read-only: their mounts are copied first, the stand-in
/// gets a place for each, and the copies are moved there. The stand-in's directories
/// can be passed through but not listed, so nothing else beneath `path` is even named.
pub fn hide_showing(path: &Path, shown: &[std::path::PathBuf]) -> Result<(), SandboxError> {
    if shown.is_empty() {
        return hide(path);
    }
    let fail = |at: &Path| {
        let at = at.to_path_buf();
        move |error| SandboxError::Mount { path: at, error }
    };
    // Copied before the stand-in covers them (then they cannot be reached).
    let mut copies = Vec::with_capacity(shown.len());
    for inner in shown {
        let Ok(rel) = inner.strip_prefix(path) else {
            continue;
        };
        copies.push((rel, inner.is_dir(), open_tree(inner).map_err(fail(inner))?));
    }
    let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
    mount(
        Some(Path::new("tmpfs")),
        path,
        Some("tmpfs"),
        flags,
        Some("size=4k,nr_inodes=64,mode=700"),
    )
    .map_err(fail(path))?;
    let mut made = vec![path.to_path_buf()];
    for (rel, is_dir, tree) in &copies {
        let target = path.join(rel);
        let mut dir = path.to_path_buf();
        for part in rel.parent().into_iter().flat_map(Path::components) {
            dir.push(part);
            if !made.contains(&dir) {
                std::fs::create_dir(&dir).map_err(fail(&dir))?;
                made.push(dir.clone());
            }
        }
        if *is_dir {
            std::fs::create_dir(&target).map_err(fail(&target))?;
        } else {
            std::fs::File::create(&target).map_err(fail(&target))?;
        }
        move_mount(tree, &target).map_err(fail(&target))?;
    }
    // Passable, not listable: execute only.
    for dir in made.iter().rev() {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o111)).map_err(fail(dir))?;
    }
    set_read_only(path)
}

/// A detached copy of the mount tree at `path` (`open_tree(2)` with `OPEN_TREE_CLONE`).
fn open_tree(path: &Path) -> io::Result<OwnedFd> {
    let c = cstring_io(path)?;
    let flags = OPEN_TREE_CLONE | AT_RECURSIVE | libc::O_CLOEXEC as libc::c_uint;
    // SAFETY: open_tree(2) reads the NUL-terminated path, which outlives the call.
    let fd = unsafe { libc::syscall(libc::SYS_open_tree, libc::AT_FDCWD, c.as_ptr(), flags) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    let fd = libc::c_int::try_from(fd).map_err(io::Error::other)?;
    // SAFETY: open_tree returned a new descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Attaches the detached mount tree `tree` at `target`.
fn move_mount(tree: &OwnedFd, target: &Path) -> io::Result<()> {
    let c = cstring_io(target)?;
    let empty = c"";
    // SAFETY: move_mount(2) reads the two NUL-terminated paths, which outlive the call;
    // `tree` is an open descriptor.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_move_mount,
            tree.as_raw_fd(),
            empty.as_ptr(),
            libc::AT_FDCWD,
            c.as_ptr(),
            MOVE_MOUNT_F_EMPTY_PATH,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
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
