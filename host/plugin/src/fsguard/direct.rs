//! Opening for reading, done by the guard itself when no component of the path is a
//! symlink.
//!
//! An open normally goes to wasmtime-wasi, after which the guard asks the kernel where
//! the opened file really is (`/proc/self/fd`, the costliest part of a checked open).
//! An open that only reads (no create, truncate or write) can instead be made here with
//! `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`: beneath the same directory
//! wasmtime-wasi would open from, and only if nothing on the way is a symlink. Then the
//! file is exactly where its path says, whatever is swapped in meanwhile, so its real
//! path is the directory's joined with the path, with no further syscall and no race.
//! Anything else (a symlink on the way, any error) is left to wasmtime-wasi, whose open
//! stays the reference for errors and for everything a plain read-open does not do.

use std::sync::Arc;

use wasmtime_wasi::OpenMode;
use wasmtime_wasi::filesystem::{Descriptor, File};
use wasmtime_wasi::p2::bindings::filesystem::types::{DescriptorFlags, OpenFlags, PathFlags};

/// Whether files opened here do their I/O on the calling thread. Must match
/// `allow_blocking_current_thread` in `StoreState::new`, which wasmtime-wasi gives the
/// files it opens (and keeps private).
pub(crate) const BLOCKING_FILE_IO: bool = true;

/// Opens `path` under directory `base` for reading, if the open is a plain read and no
/// component of the path is a symlink; `None` means "use wasmtime-wasi's open".
pub(super) fn open_for_reading(
    base: &Descriptor,
    path_flags: PathFlags,
    path: &str,
    oflags: OpenFlags,
    flags: DescriptorFlags,
) -> Option<Descriptor> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{FileType, Mode, OFlags, ResolveFlags, fstat, openat2};

        let Descriptor::Dir(dir) = base else {
            return None;
        };
        if flags != DescriptorFlags::READ || !OpenFlags::DIRECTORY.contains(oflags) {
            return None;
        }
        let mut how = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOCTTY;
        if oflags.contains(OpenFlags::DIRECTORY) {
            how |= OFlags::DIRECTORY;
        }
        // With no symlink allowed anywhere, following or not makes no difference.
        let _ = path_flags;
        let resolve =
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        let fd = openat2(&*dir.dir, path, how, Mode::empty(), resolve).ok()?;
        let is_dir = FileType::from_raw_mode(fstat(&fd).ok()?.st_mode) == FileType::Directory;
        let file = std::fs::File::from(fd);
        // What wasmtime-wasi's `open-at` makes: the parent's permissions, read mode.
        if is_dir {
            let mut opened = dir.clone();
            opened.dir = Arc::new(file);
            opened.open_mode = OpenMode::READ;
            Some(Descriptor::Dir(opened))
        } else {
            Some(Descriptor::File(File::new(
                file,
                dir.perms,
                OpenMode::READ,
                BLOCKING_FILE_IO,
            )))
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (base, path_flags, path, oflags, flags);
        None
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use wasmtime_wasi::FsPerms;
    use wasmtime_wasi::filesystem::Dir;

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
            Some(Descriptor::File(_))
        ));
        assert!(matches!(open("sub", none, read), Some(Descriptor::Dir(_))));
        assert!(matches!(
            open("sub/../sub", OpenFlags::DIRECTORY, read),
            Some(Descriptor::Dir(_))
        ));
        // A symlink on the way, an escape, a missing file, a write: wasmtime-wasi's turn.
        assert!(open("alias/f.txt", none, read).is_none());
        assert!(open("../x", none, read).is_none());
        assert!(open("/etc/passwd", none, read).is_none());
        assert!(open("sub/missing", none, read).is_none());
        assert!(open("sub/f.txt", OpenFlags::TRUNCATE, read).is_none());
        assert!(open("sub/f.txt", none, read | DescriptorFlags::WRITE).is_none());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
