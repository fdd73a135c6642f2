//! Reading files and directories with as few filesystem calls as possible: [`File`]
//! opens a file for reading, tells its size and modification time, and reads it in
//! large blocks; [`read_dir`] lists a directory with each entry's type.
//!
//! Natively this is `std::fs`. Inside the sandbox every filesystem call crosses into
//! the host, which checks it against the permission rules, and wasi-libc adds calls of
//! its own: an inode hash with every `stat` and with every directory entry, an input
//! stream per file. There files and directories are opened, stat'ed, read and listed
//! through `wasi:filesystem` directly: one `open-at`, one `stat`, one `read` per 64 KiB,
//! one call per directory entry. Paths outside every preopened directory go through
//! `std::fs` as before, so errors read the same either way.

use std::ffi::OsString;
use std::io::{self, BufRead, Read};
use std::path::Path;

/// What kind of thing a directory entry is, without following a symlink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link.
    Symlink,
    /// Anything else, or unknown.
    Other,
}

/// One directory entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// Its name.
    pub name: OsString,
    /// Its type, not following symlinks.
    pub kind: Kind,
}

/// The entries of directory `path`, in no particular order. Entries that cannot be
/// read are left out.
pub fn read_dir(path: &Path) -> io::Result<Vec<DirEntry>> {
    #[cfg(target_arch = "wasm32")]
    if let Some(entries) = wasi::read_dir(path) {
        return entries;
    }
    Ok(std::fs::read_dir(path)?
        .flatten()
        .map(|entry| {
            let kind = match entry.file_type() {
                Ok(t) if t.is_symlink() => Kind::Symlink,
                Ok(t) if t.is_dir() => Kind::Dir,
                Ok(t) if t.is_file() => Kind::File,
                _ => Kind::Other,
            };
            DirEntry {
                name: entry.file_name(),
                kind,
            }
        })
        .collect())
}

/// What the tools need to know of an open file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Metadata {
    /// Size in bytes.
    pub len: u64,
    /// Modification time in nanoseconds since the epoch, 0 when unknown.
    pub modified: u128,
    /// A directory (opening one for reading works; reading it does not).
    pub is_dir: bool,
}

/// A file open for reading.
pub struct File {
    inner: Inner,
}

enum Inner {
    Std(std::fs::File),
    #[cfg(target_arch = "wasm32")]
    Wasi(wasi::Open),
}

impl File {
    /// Opens `path` for reading, following symlinks.
    pub fn open(path: &Path) -> io::Result<File> {
        #[cfg(target_arch = "wasm32")]
        if let Some(open) = wasi::open(path) {
            return Ok(File {
                inner: Inner::Wasi(open?),
            });
        }
        Ok(File {
            inner: Inner::Std(std::fs::File::open(path)?),
        })
    }

    /// The open file's size, modification time and type.
    pub fn metadata(&self) -> io::Result<Metadata> {
        match &self.inner {
            Inner::Std(file) => {
                let meta = file.metadata()?;
                let modified = meta
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos());
                Ok(Metadata {
                    len: meta.len(),
                    modified,
                    is_dir: meta.is_dir(),
                })
            }
            #[cfg(target_arch = "wasm32")]
            Inner::Wasi(open) => open.metadata(),
        }
    }

    /// Reads up to `len` bytes from where reading stopped, in one call; empty at the
    /// end of the file. Inside the sandbox the host's buffer is returned as it is.
    fn read_block(&mut self, len: usize, reuse: &mut Vec<u8>) -> io::Result<()> {
        match &mut self.inner {
            Inner::Std(file) => {
                // The buffer keeps its size between blocks, so it is zeroed once.
                reuse.resize(len, 0);
                let n = file.read(reuse)?;
                reuse.truncate(n);
                Ok(())
            }
            #[cfg(target_arch = "wasm32")]
            Inner::Wasi(open) => {
                *reuse = open.read_block(len)?;
                Ok(())
            }
        }
    }

    /// Reads the file from where reading stopped up to `len` bytes in all (its size,
    /// from [`File::metadata`]), or to its end if that comes first. Stopping at the
    /// known size spares the read that would only find the end.
    pub fn read_up_to(&mut self, len: u64) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
        self.by_ref().take(len).read_to_end(&mut bytes)?;
        Ok(bytes)
    }
}

impl Read for File {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match &mut self.inner {
            Inner::Std(file) => file.read(buf),
            #[cfg(target_arch = "wasm32")]
            Inner::Wasi(open) => open.read(buf),
        }
    }
}

/// A [`File`] read in large blocks, each one host call inside the sandbox, and
/// offered as a [`BufRead`] so lines can be found where they lie in the block.
pub struct BlockReader {
    file: File,
    size: usize,
    block: Vec<u8>,
    pos: usize,
    /// A read came back empty.
    end: bool,
}

impl BlockReader {
    /// Reads `file` in blocks of `size` bytes.
    pub fn new(file: File, size: usize) -> Self {
        BlockReader {
            file,
            size: size.max(1),
            block: Vec::new(),
            pos: 0,
            end: false,
        }
    }

    /// The next `n` bytes without consuming them, fewer only at the end of the file.
    pub fn peek(&mut self, n: usize) -> io::Result<&[u8]> {
        let mut more = Vec::new();
        while self.block.len() - self.pos < n && !self.end {
            self.file.read_block(self.size, &mut more)?;
            if more.is_empty() {
                self.end = true;
            } else if self.pos == self.block.len() {
                // Nothing left unread: take the block as it came, uncopied.
                std::mem::swap(&mut self.block, &mut more);
                self.pos = 0;
            } else {
                self.block.extend_from_slice(&more);
            }
        }
        let end = self.block.len().min(self.pos + n);
        Ok(&self.block[self.pos..end])
    }
}

impl Read for BlockReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for BlockReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos >= self.block.len() && !self.end {
            self.pos = 0;
            self.file.read_block(self.size, &mut self.block)?;
            if self.block.is_empty() {
                self.end = true;
            }
        }
        Ok(&self.block[self.pos..])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.block.len());
    }
}

/// `wasi:filesystem` used directly, inside the sandbox.
#[cfg(target_arch = "wasm32")]
mod wasi {
    use std::io;
    use std::path::{Path, PathBuf};

    use wasip2::filesystem::preopens::get_directories;
    use wasip2::filesystem::types::{
        Descriptor, DescriptorFlags, DescriptorType, ErrorCode, OpenFlags, PathFlags,
    };

    use super::{DirEntry, Kind, Metadata};

    thread_local! {
        /// The preopened directories and their guest paths, asked for once per
        /// instance (every call is a fresh instance, so they cannot go stale).
        static PREOPENS: Vec<(Descriptor, PathBuf)> = get_directories()
            .into_iter()
            .map(|(dir, name)| (dir, PathBuf::from(name)))
            .collect();
    }

    /// A file opened through `wasi:filesystem`, and where reading has got to.
    pub(super) struct Open {
        file: Descriptor,
        offset: u64,
    }

    /// Opens `path` for reading relative to the preopened directory holding it (the
    /// longest match, as wasi-libc picks); `None` when no preopen holds it or it is
    /// not UTF-8.
    fn open_at(path: &Path, flags: OpenFlags) -> Option<Result<Descriptor, ErrorCode>> {
        PREOPENS.with(|preopens| {
            let (dir, rel) = preopens
                .iter()
                .filter_map(|(dir, root)| Some((dir, path.strip_prefix(root).ok()?)))
                .max_by_key(|(_, rel)| std::cmp::Reverse(rel.as_os_str().len()))?;
            let rel = match rel.to_str()? {
                "" => ".",
                rel => rel,
            };
            Some(dir.open_at(PathFlags::SYMLINK_FOLLOW, rel, flags, DescriptorFlags::READ))
        })
    }

    pub(super) fn open(path: &Path) -> Option<io::Result<Open>> {
        let opened = open_at(path, OpenFlags::empty())?;
        Some(opened.map(|file| Open { file, offset: 0 }).map_err(to_io))
    }

    /// Lists directory `path` with `read-directory`, which already carries each
    /// entry's type (wasi-libc's `readdir` also asks for an inode hash per entry).
    pub(super) fn read_dir(path: &Path) -> Option<io::Result<Vec<DirEntry>>> {
        let dir = match open_at(path, OpenFlags::DIRECTORY)? {
            Ok(dir) => dir,
            Err(code) => return Some(Err(to_io(code))),
        };
        let stream = match dir.read_directory() {
            Ok(stream) => stream,
            Err(code) => return Some(Err(to_io(code))),
        };
        let mut entries = Vec::new();
        loop {
            let entry = match stream.read_directory_entry() {
                Ok(Some(entry)) => entry,
                Ok(None) => break,
                // A name that is not UTF-8 is left out, as `std::fs::read_dir` callers
                // here skip entries in error; any other error ends the listing.
                Err(ErrorCode::IllegalByteSequence) => continue,
                Err(_) => break,
            };
            let kind = match entry.type_ {
                DescriptorType::RegularFile => Kind::File,
                DescriptorType::Directory => Kind::Dir,
                DescriptorType::SymbolicLink => Kind::Symlink,
                _ => Kind::Other,
            };
            entries.push(DirEntry {
                name: entry.name.into(),
                kind,
            });
        }
        Some(Ok(entries))
    }

    impl Open {
        pub(super) fn metadata(&self) -> io::Result<Metadata> {
            let stat = self.file.stat().map_err(to_io)?;
            let modified = stat.data_modification_timestamp.map_or(0, |t| {
                u128::from(t.seconds) * 1_000_000_000 + u128::from(t.nanoseconds)
            });
            Ok(Metadata {
                len: stat.size,
                modified,
                is_dir: stat.type_ == DescriptorType::Directory,
            })
        }

        pub(super) fn read_block(&mut self, len: usize) -> io::Result<Vec<u8>> {
            let want = u64::try_from(len).unwrap_or(u64::MAX);
            let (data, _end) = self.file.read(want, self.offset).map_err(to_io)?;
            self.offset += data.len() as u64;
            Ok(data)
        }

        pub(super) fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if buf.is_empty() {
                return Ok(0);
            }
            let want = u64::try_from(buf.len()).unwrap_or(u64::MAX);
            let (data, _end) = self.file.read(want, self.offset).map_err(to_io)?;
            let n = data.len().min(buf.len());
            buf[..n].copy_from_slice(&data[..n]);
            self.offset += n as u64;
            Ok(n)
        }
    }

    /// The error wasi-libc would have reported: its `errno` for the code, so messages
    /// read the same as through `std::fs`.
    fn to_io(code: ErrorCode) -> io::Error {
        // wasi-libc's errno values (the WASI preview 1 numbering).
        let errno = match code {
            ErrorCode::Access => 2,
            ErrorCode::WouldBlock => 6,
            ErrorCode::Already => 7,
            ErrorCode::BadDescriptor => 8,
            ErrorCode::Busy => 10,
            ErrorCode::Deadlock => 16,
            ErrorCode::Quota => 19,
            ErrorCode::Exist => 20,
            ErrorCode::FileTooLarge => 22,
            ErrorCode::IllegalByteSequence => 25,
            ErrorCode::InProgress => 26,
            ErrorCode::Interrupted => 27,
            ErrorCode::Invalid => 28,
            ErrorCode::Io => 29,
            ErrorCode::IsDirectory => 31,
            ErrorCode::Loop => 32,
            ErrorCode::TooManyLinks => 34,
            ErrorCode::MessageSize => 35,
            ErrorCode::NameTooLong => 37,
            ErrorCode::NoDevice => 43,
            ErrorCode::NoEntry => 44,
            ErrorCode::NoLock => 46,
            ErrorCode::InsufficientMemory => 48,
            ErrorCode::InsufficientSpace => 51,
            ErrorCode::NotDirectory => 54,
            ErrorCode::NotEmpty => 55,
            ErrorCode::NotRecoverable => 56,
            ErrorCode::Unsupported => 58,
            ErrorCode::NoTty => 59,
            ErrorCode::NoSuchDevice => 60,
            ErrorCode::Overflow => 61,
            ErrorCode::NotPermitted => 63,
            ErrorCode::Pipe => 64,
            ErrorCode::ReadOnly => 69,
            ErrorCode::InvalidSeek => 70,
            ErrorCode::TextFileBusy => 74,
            ErrorCode::CrossDevice => 75,
        };
        io::Error::from_raw_os_error(errno)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TempDir;

    #[test]
    fn reads_up_to_the_known_size_with_metadata() -> io::Result<()> {
        let t = TempDir::new("fs")?;
        let path = t.write("a.txt", "hello world")?;
        let mut file = File::open(&path)?;
        let meta = file.metadata()?;
        assert_eq!(meta.len, 11);
        assert!(!meta.is_dir && meta.modified > 0);
        let mut head = [0; 6];
        file.read_exact(&mut head)?;
        assert_eq!(&head, b"hello ");
        assert_eq!(file.read_up_to(meta.len - 6)?, b"world");
        assert!(File::open(t.path())?.metadata()?.is_dir);
        let mut blocks = BlockReader::new(File::open(&path)?, 4);
        assert_eq!(blocks.peek(6)?, b"hello ");
        let mut all = String::new();
        blocks.read_to_string(&mut all)?;
        assert_eq!(all, "hello world");
        assert!(blocks.peek(1)?.is_empty());
        let missing = File::open(&t.path().join("missing")).err();
        assert_eq!(missing.map(|e| e.kind()), Some(io::ErrorKind::NotFound));
        Ok(())
    }

    #[cfg(unix)]
    #[test]
    fn lists_entries_with_their_types() -> io::Result<()> {
        let t = TempDir::new("fs-dir")?;
        t.write("a.txt", "")?;
        t.write("sub/b.txt", "")?;
        std::os::unix::fs::symlink("a.txt", t.path().join("link"))?;
        let mut entries = read_dir(t.path())?;
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        let got: Vec<(&str, Kind)> = entries
            .iter()
            .map(|e| (e.name.to_str().unwrap_or_default(), e.kind))
            .collect();
        assert_eq!(
            got,
            [
                ("a.txt", Kind::File),
                ("link", Kind::Symlink),
                ("sub", Kind::Dir)
            ]
        );
        assert!(read_dir(&t.path().join("a.txt")).is_err());
        Ok(())
    }
}
