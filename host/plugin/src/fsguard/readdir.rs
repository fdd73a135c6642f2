//! Listing a directory with the entry types the kernel already reports.
//!
//! wasmtime-wasi's `read-directory` stats every entry to learn its type: a path lookup
//! per entry, which made a third of a search's filesystem time. `getdents` already
//! gives the type of nearly every entry, so the guard lists directories itself and
//! stats only entries whose type the filesystem left unknown. The listing is made
//! whole when asked for, like wasmtime-wasi's, and handed to the guest through the
//! `directory-entry-stream` resource.
//!
//! That resource's Rust type is wasmtime-wasi's, which only it can build, so the
//! table holds a [`Listing`] under the same handle and the guard's stream methods
//! (every access to such a handle goes through them) read it back by type, falling
//! back to wasmtime-wasi for a stream it made itself.

use std::collections::VecDeque;

use wasmtime::component::{Resource, ResourceTable};
use wasmtime_wasi::filesystem::Descriptor;
use wasmtime_wasi::p2::bindings::filesystem::types::{
    DescriptorType, DirectoryEntry, DirectoryEntryStream, ErrorCode,
};

/// A directory's entries not yet read by the guest.
pub(super) struct Listing(VecDeque<Result<DirectoryEntry, ErrorCode>>);

/// Lists directory `dir`; `None` where the guard cannot (then wasmtime-wasi lists it).
pub(super) fn list(dir: &Descriptor) -> Option<Result<Listing, ErrorCode>> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{AtFlags, FileType, statat};

        let Descriptor::Dir(dir) = dir else {
            return None;
        };
        // A fresh descriptor on the directory, so listing starts at its beginning.
        let mut read = match rustix::fs::Dir::read_from(&*dir.dir) {
            Ok(read) => read,
            Err(e) => return Some(Err(ErrorCode::from(std::io::Error::from(e)))),
        };
        let mut entries = VecDeque::new();
        while let Some(entry) = read.read() {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    entries.push_back(Err(ErrorCode::from(std::io::Error::from(e))));
                    break;
                }
            };
            let name = entry.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            let Ok(name) = String::from_utf8(name.to_vec()) else {
                entries.push_back(Err(ErrorCode::IllegalByteSequence));
                continue;
            };
            let mut kind = entry.file_type();
            if kind == FileType::Unknown {
                // Only some filesystems leave the type out; ask as wasmtime-wasi would.
                let fd = match read.fd() {
                    Ok(fd) => fd,
                    Err(e) => return Some(Err(ErrorCode::from(std::io::Error::from(e)))),
                };
                match statat(fd, name.as_str(), AtFlags::SYMLINK_NOFOLLOW) {
                    Ok(stat) => kind = FileType::from_raw_mode(stat.st_mode),
                    Err(e) => {
                        entries.push_back(Err(ErrorCode::from(std::io::Error::from(e))));
                        continue;
                    }
                }
            }
            entries.push_back(Ok(DirectoryEntry {
                type_: descriptor_type(kind),
                name,
            }));
        }
        Some(Ok(Listing(entries)))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = dir;
        None
    }
}

#[cfg(target_os = "linux")]
fn descriptor_type(kind: rustix::fs::FileType) -> DescriptorType {
    use rustix::fs::FileType;
    match kind {
        FileType::RegularFile => DescriptorType::RegularFile,
        FileType::Directory => DescriptorType::Directory,
        FileType::Symlink => DescriptorType::SymbolicLink,
        FileType::Fifo => DescriptorType::Fifo,
        FileType::Socket => DescriptorType::Socket,
        FileType::CharacterDevice => DescriptorType::CharacterDevice,
        FileType::BlockDevice => DescriptorType::BlockDevice,
        FileType::Unknown => DescriptorType::Unknown,
    }
}

/// Puts `listing` in `table` as a `directory-entry-stream` handle.
pub(super) fn push(
    table: &mut ResourceTable,
    listing: Listing,
) -> Result<Resource<DirectoryEntryStream>, ErrorCode> {
    let pushed = table
        .push(listing)
        .map_err(|_| ErrorCode::InsufficientMemory)?;
    Ok(Resource::new_own(pushed.rep()))
}

/// The guard's listing behind `stream`, or `None` when the stream is wasmtime-wasi's.
pub(super) fn get<'t>(
    table: &'t mut ResourceTable,
    stream: &Resource<DirectoryEntryStream>,
) -> Option<&'t mut Listing> {
    table.get_any_mut(stream.rep()).ok()?.downcast_mut()
}

/// Removes the guard's listing behind `stream`; `false` when the stream is not one.
pub(super) fn remove(table: &mut ResourceTable, stream: &Resource<DirectoryEntryStream>) -> bool {
    if get(table, stream).is_none() {
        return false;
    }
    table
        .delete(Resource::<Listing>::new_own(stream.rep()))
        .is_ok()
}

impl Listing {
    /// The next entry, `None` at the end.
    pub(super) fn next(&mut self) -> Result<Option<DirectoryEntry>, ErrorCode> {
        self.0.pop_front().transpose()
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use wasmtime_wasi::filesystem::Dir;
    use wasmtime_wasi::{FsPerms, OpenMode};

    #[test]
    fn lists_names_with_types_through_the_table() {
        let root = std::env::temp_dir().join(format!("ward-readdir-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("f.txt"), "x").unwrap();
        std::os::unix::fs::symlink("f.txt", root.join("link")).unwrap();
        let dir = Descriptor::Dir(Dir::new(
            std::fs::File::open(&root).unwrap(),
            FsPerms::ReadOnly,
            OpenMode::READ,
            true,
        ));
        let mut table = ResourceTable::new();
        let listing = list(&dir).unwrap().unwrap();
        let stream = push(&mut table, listing).unwrap();
        let mut seen = Vec::new();
        while let Some(entry) = get(&mut table, &stream).unwrap().next().unwrap() {
            seen.push((entry.name, entry.type_));
        }
        seen.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            seen,
            [
                ("f.txt".to_string(), DescriptorType::RegularFile),
                ("link".to_string(), DescriptorType::SymbolicLink),
                ("sub".to_string(), DescriptorType::Directory),
            ]
        );
        assert!(remove(&mut table, &stream));
        assert!(!remove(&mut table, &stream));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
