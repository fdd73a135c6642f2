//! Opening for reading, done by the guard itself when no component of the path is a
//! symlink, and where that open's I/O runs.
//!
//! An open normally goes to wasmtime-wasi, after which the guard asks the kernel where
//! the opened file really is (`/proc/self/fd`, the costliest part of a checked open).
//! An open that only reads (no create, truncate or write) can instead be made here with
//! `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`: beneath the same directory
//! wasmtime-wasi would open from, and only if nothing on the way is a symlink. Then the
//! file is exactly where its path says, whatever is swapped in meanwhile, so its real
//! path is the directory's joined with the path, with no further syscall and no race.
//! Anything else (a symlink on the way, any error but a missing path) is left to
//! wasmtime-wasi, whose open stays the reference for errors and for everything a plain
//! read-open does not do.
//!
//! Where the I/O runs: wasmtime-wasi runs every filesystem operation of the
//! descriptors it makes on tokio's blocking pool (the store's WASI context does not
//! allow blocking the current thread), so a slow one holds up neither the executor nor
//! the other calls of a step. A hop to the pool costs more than a read from the page
//! cache, though (a `grep` over 5,000 files took 2.26 s with one per operation), so
//! the regular files and directories opened here do their I/O on the calling thread
//! ([`INLINE_IO`]): on those an operation takes as long as the disk, never as long as
//! someone else. The open itself is made non-blocking, so what could make it wait
//! (a FIFO with no writer, a device) is found before it does: it goes to
//! wasmtime-wasi, onto the pool, and so does all its I/O.

use wasmtime_wasi::OpenMode;
use wasmtime_wasi::filesystem::{Descriptor, Dir, File};
use wasmtime_wasi::p2::bindings::filesystem::types::{DescriptorFlags, OpenFlags, PathFlags};

/// Whether the files and directories opened here do their I/O on the calling thread
/// (wasmtime-wasi's `allow_blocking_current_thread`, per descriptor).
pub(crate) const INLINE_IO: bool = true;

/// What [`open_for_reading`] made of an open (`T`: the descriptor, then its handle).
pub(super) enum Direct<T = Descriptor> {
    /// A regular file or a directory, opened here.
    Opened(T),
    /// Nothing at the path (a component is missing): the open's answer.
    Missing,
    /// Something whose opening or I/O may wait on someone else (a FIFO, a device):
    /// wasmtime-wasi's to open, on the blocking pool. This descriptor of it (opened
    /// without waiting) is to be held until then, so that a FIFO's writer this open woke
    /// does not find its reader gone again.
    Waits(std::fs::File),
    /// Not a plain read, a symlink on the way, or an error: wasmtime-wasi's to open.
    NotHere,
}

/// Opens `path` under directory `base` for reading, if the open is a plain read and no
/// component of the path is a symlink.
pub(super) fn open_for_reading(
    base: &Descriptor,
    path_flags: PathFlags,
    path: &str,
    oflags: OpenFlags,
    flags: DescriptorFlags,
) -> Direct {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{FileType, Mode, OFlags, ResolveFlags, fstat, openat2};
        use rustix::io::Errno;

        let Descriptor::Dir(dir) = base else {
            return Direct::NotHere;
        };
        if flags != DescriptorFlags::READ || !OpenFlags::DIRECTORY.contains(oflags) {
            return Direct::NotHere;
        }
        // Non-blocking, so that opening a FIFO does not wait for its writer here. On
        // regular files and directories, Linux ignores the flag.
        let mut how = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOCTTY | OFlags::NONBLOCK;
        if oflags.contains(OpenFlags::DIRECTORY) {
            how |= OFlags::DIRECTORY;
        }
        // With no symlink allowed anywhere, following or not makes no difference.
        let _ = path_flags;
        let resolve =
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        let fd = match openat2(&*dir.dir, path, how, Mode::empty(), resolve) {
            Ok(fd) => fd,
            // Resolved beneath the directory without meeting a symlink, a missing
            // component is missing for wasmtime-wasi's open too.
            Err(Errno::NOENT) => return Direct::Missing,
            Err(_) => return Direct::NotHere,
        };
        let Ok(stat) = fstat(&fd) else {
            return Direct::NotHere;
        };
        let file = std::fs::File::from(fd);
        // What wasmtime-wasi's `open-at` makes: the parent's permissions, read mode.
        match FileType::from_raw_mode(stat.st_mode) {
            FileType::Directory => Direct::Opened(Descriptor::Dir(Dir::new(
                file,
                dir.perms,
                OpenMode::READ,
                INLINE_IO,
            ))),
            FileType::RegularFile => Direct::Opened(Descriptor::File(File::new(
                file,
                dir.perms,
                OpenMode::READ,
                INLINE_IO,
            ))),
            _ => Direct::Waits(file),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (base, path_flags, path, oflags, flags);
        Direct::NotHere
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use wasmtime_wasi::FsPerms;

    #[test]
    fn only_symlink_free_plain_reads_are_opened_here() {
        let root = std::env::temp_dir().join(format!("ward-direct-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/f.txt"), "x").unwrap();
        std::os::unix::fs::symlink("sub", root.join("alias")).unwrap();
        let base = Descriptor::Dir(Dir::new(
            std::fs::File::open(&root).unwrap(),
            FsPerms::ReadOnly,
            OpenMode::READ,
            true,
        ));
        let (follow, read, none) = (
            PathFlags::SYMLINK_FOLLOW,
            DescriptorFlags::READ,
            OpenFlags::empty(),
        );
        let open = |path, oflags, flags| open_for_reading(&base, follow, path, oflags, flags);
        assert!(matches!(
            open("sub/f.txt", none, read),
            Direct::Opened(Descriptor::File(_))
        ));
        assert!(matches!(
            open("sub", none, read),
            Direct::Opened(Descriptor::Dir(_))
        ));
        assert!(matches!(
            open("sub/../sub", OpenFlags::DIRECTORY, read),
            Direct::Opened(Descriptor::Dir(_))
        ));
        assert!(matches!(open("sub/missing", none, read), Direct::Missing));
        // A FIFO is opened without waiting for a writer, and left to wasmtime-wasi.
        let made = std::process::Command::new("mkfifo")
            .arg(root.join("sub/fifo"))
            .status()
            .unwrap();
        assert!(made.success());
        assert!(matches!(open("sub/fifo", none, read), Direct::Waits(_)));
        // A symlink on the way, an escape, a write: wasmtime-wasi's turn.
        let not_here = |d: Direct| matches!(d, Direct::NotHere);
        assert!(not_here(open("alias/f.txt", none, read)));
        assert!(not_here(open("../x", none, read)));
        assert!(not_here(open("/etc/passwd", none, read)));
        assert!(not_here(open("sub/f.txt", OpenFlags::TRUNCATE, read)));
        assert!(not_here(open(
            "sub/f.txt",
            none,
            read | DescriptorFlags::WRITE
        )));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
