//! Where a guest path really leads: the host path with symlinks resolved, found as
//! cheaply as the situation allows.
//!
//! - An opened descriptor is asked where it is (`/proc/self/fd`): one `readlinkat`,
//!   and the answer is about the very object the guest gets, so no race can change it.
//! - A path not opened yet (`stat-at`, a file about to be created) is first tried
//!   with one `openat2(RESOLVE_NO_SYMLINKS)` from the descriptor it is relative to: if
//!   that succeeds the path contains no symlink and resolves to the descriptor's real
//!   path joined with it. Otherwise (a symlink, a missing file) every component is
//!   resolved ([`resolve`]).
//!
//! Nothing is cached between checks, so a symlink swapped in during a call is seen
//! by the next check.

use std::path::{Path, PathBuf};

use ward_permission::path::normalize;
use wasmtime_wasi::filesystem::Descriptor;

/// The real path of the file or directory `desc` is open on, or `None` when it cannot
/// be told (no `/proc`, not Linux, or the file was deleted since it was opened).
pub(super) fn descriptor_path(desc: &Descriptor) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStringExt;
        let fd = match desc {
            Descriptor::File(f) => &f.file,
            Descriptor::Dir(d) => &d.dir,
        };
        // `readlinkat` on the process's already open `/proc/self/fd` looks up one
        // component, where `/proc/self/fd/N` would walk four (one a magic link).
        let proc_fd = rustix_linux_procfs::proc_self_fd().ok()?;
        let name = rustix::path::DecInt::from_fd(&**fd);
        let link = rustix::fs::readlinkat(proc_fd, name.as_c_str(), Vec::new()).ok()?;
        let link = PathBuf::from(std::ffi::OsString::from_vec(link.into_bytes()));
        // The kernel names an unlinked file `<old path> (deleted)`; that is no path to
        // check, so the caller falls back to resolving the path the guest gave.
        let deleted = link.as_os_str().as_encoded_bytes().ends_with(b" (deleted)");
        (link.is_absolute() && !deleted).then_some(link)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = desc;
        None
    }
}

/// The real path `rel` names from directory `base`, whose real path is `base_real`
/// and lexical path joined with `rel` is `lexical`; `None` when it cannot be resolved.
pub(super) fn resolve_at(
    base: &Descriptor,
    base_real: Option<&Path>,
    rel: &str,
    lexical: &Path,
) -> Option<PathBuf> {
    if let Some(real) = base_real.and_then(|real| without_symlinks(base, real, rel)) {
        return Some(real);
    }
    resolve(lexical)
}

/// `base_real` joined with `rel` if `rel` exists under `base` and none of its
/// components is a symlink (one `openat2`), else `None`.
#[cfg(target_os = "linux")]
fn without_symlinks(base: &Descriptor, base_real: &Path, rel: &str) -> Option<PathBuf> {
    use rustix::fs::{Mode, OFlags, ResolveFlags, openat2};
    let dir = match base {
        Descriptor::Dir(d) => &d.dir,
        Descriptor::File(_) => return None,
    };
    // `O_PATH` opens nothing for reading and follows nothing: the walk alone is wanted.
    let flags = OFlags::PATH | OFlags::CLOEXEC;
    openat2(&**dir, rel, flags, Mode::empty(), ResolveFlags::NO_SYMLINKS).ok()?;
    Some(normalize(&base_real.join(rel)))
}

#[cfg(not(target_os = "linux"))]
fn without_symlinks(_: &Descriptor, _: &Path, _: &str) -> Option<PathBuf> {
    None
}

/// Directory `path` (absolute, normalised) with its symlinks resolved: itself when one
/// `openat2(RESOLVE_NO_SYMLINKS)` shows it has none (the usual case, and one syscall
/// where `realpath` takes one per component), else canonicalised; itself when it
/// cannot be resolved.
pub(super) fn real_dir(path: &Path) -> PathBuf {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{CWD, Mode, OFlags, ResolveFlags, openat2};
        let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
        if path.is_absolute()
            && openat2(CWD, path, flags, Mode::empty(), ResolveFlags::NO_SYMLINKS).is_ok()
        {
            return normalize(path);
        }
    }
    std::fs::canonicalize(path).unwrap_or_else(|_| normalize(path))
}

/// `path` with every symlink resolved, as far as it exists (see
/// [`ward_permission::path::resolve_links`]).
pub(super) fn resolve(path: &Path) -> Option<PathBuf> {
    ward_permission::path::resolve_links(path)
}

// Two attributes, not `cfg(all(test, unix))`: clippy's allow-*-in-tests only sees a
// plain `cfg(test)` (rust-clippy#16369).
#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ward-resolve-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.canonicalize().unwrap()
    }

    #[test]
    fn missing_files_resolve_through_their_directory() {
        let root = temp("missing");
        std::fs::create_dir_all(root.join("real")).unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("alias")).unwrap();
        assert_eq!(
            resolve(&root.join("alias/new.txt")),
            Some(root.join("real/new.txt"))
        );
        // A dangling link resolves to where it would create the file.
        std::os::unix::fs::symlink(root.join("real/later.env"), root.join("dangling")).unwrap();
        assert_eq!(
            resolve(&root.join("dangling")),
            Some(root.join("real/later.env"))
        );
        // A loop cannot be resolved.
        std::os::unix::fs::symlink(root.join("loop"), root.join("loop")).unwrap();
        assert_eq!(resolve(&root.join("loop")), None);
        // Directories: as they are without symlinks, else canonicalised.
        assert_eq!(real_dir(&root.join("real")), root.join("real"));
        assert_eq!(real_dir(&root.join("alias")), root.join("real"));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn descriptors_and_symlink_free_paths_resolve_without_walking() {
        use wasmtime_wasi::filesystem::{Dir, File};
        use wasmtime_wasi::{FsPerms, OpenMode};

        let root = temp("fd");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/f.txt"), "x").unwrap();
        std::fs::write(root.join(".env"), "SECRET").unwrap();
        std::os::unix::fs::symlink("../.env", root.join("a/innocent")).unwrap();
        let dir = |p: &Path| {
            Descriptor::Dir(Dir::new(
                std::fs::File::open(p).unwrap(),
                FsPerms::ReadOnly,
                OpenMode::READ,
                false,
            ))
        };
        let base = dir(&root);
        assert_eq!(descriptor_path(&base), Some(root.clone()));
        let file = Descriptor::File(File::new(
            std::fs::File::open(root.join("a/innocent")).unwrap(),
            FsPerms::ReadOnly,
            OpenMode::READ,
            false,
        ));
        // The descriptor opened through the link is where the link leads.
        assert_eq!(descriptor_path(&file), Some(root.join(".env")));

        let at = |rel: &str| resolve_at(&base, Some(&root), rel, &normalize(&root.join(rel)));
        assert_eq!(at("a/b/f.txt"), Some(root.join("a/b/f.txt")));
        assert_eq!(at("a/b/../b/f.txt"), Some(root.join("a/b/f.txt")));
        // A symlink in the path: resolved the slow way, to its target.
        assert_eq!(at("a/innocent"), Some(root.join(".env")));
        assert_eq!(at("a/new.txt"), Some(root.join("a/new.txt")));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
