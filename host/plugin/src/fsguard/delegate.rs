//! The WASI filesystem host traits for [`Guard`]: every path-taking call is checked
//! against the rules (`read` to look, `edit` to change; `metadata-hash-at` alone is
//! exempt, see there), then handed to wasmtime-wasi's implementation unchanged. Calls
//! on an already open descriptor were checked when it was opened and pass straight
//! through.

use wasmtime::component::Resource;
use wasmtime_wasi::filesystem::{WasiFilesystemCtxView, WasiFilesystemView};
use wasmtime_wasi::p2::bindings::filesystem::preopens;
use wasmtime_wasi::p2::bindings::filesystem::types::{
    self, Descriptor, DescriptorFlags, ErrorCode, HostDescriptor, HostDirectoryEntryStream,
    OpenFlags,
};
use wasmtime_wasi::p2::{DynInputStream, DynOutputStream, FsError, FsResult};

use super::Guard;

const READ: &str = "read";
const EDIT: &str = "edit";

impl Guard<'_> {
    /// wasmtime-wasi's own filesystem implementation over this store.
    fn fs(&mut self) -> WasiFilesystemCtxView<'_> {
        self.state.filesystem()
    }
}

impl preopens::Host for Guard<'_> {
    fn get_directories(&mut self) -> wasmtime::Result<Vec<(Resource<Descriptor>, String)>> {
        let dirs = preopens::Host::get_directories(&mut self.fs())?;
        // Preopens are made at their real absolute paths (see `StoreState::new`), so the
        // guest's name for each is its host path.
        for (fd, name) in &dirs {
            self.remember(fd, name.into());
        }
        Ok(dirs)
    }
}

impl types::Host for Guard<'_> {
    fn convert_error_code(&mut self, err: FsError) -> wasmtime::Result<ErrorCode> {
        types::Host::convert_error_code(&mut self.fs(), err)
    }

    fn filesystem_error_code(
        &mut self,
        err: Resource<wasmtime::Error>,
    ) -> wasmtime::Result<Option<ErrorCode>> {
        types::Host::filesystem_error_code(&mut self.fs(), err)
    }
}

impl HostDirectoryEntryStream for Guard<'_> {
    async fn read_directory_entry(
        &mut self,
        stream: Resource<types::DirectoryEntryStream>,
    ) -> FsResult<Option<types::DirectoryEntry>> {
        self.fs().read_directory_entry(stream).await
    }

    fn drop(&mut self, stream: Resource<types::DirectoryEntryStream>) -> wasmtime::Result<()> {
        HostDirectoryEntryStream::drop(&mut self.fs(), stream)
    }
}

impl HostDescriptor for Guard<'_> {
    async fn open_at(
        &mut self,
        fd: Resource<Descriptor>,
        path_flags: types::PathFlags,
        path: String,
        oflags: OpenFlags,
        flags: DescriptorFlags,
    ) -> FsResult<Resource<Descriptor>> {
        let target = self.path_at(&fd, &path)?;
        let edits = oflags
            .intersects(OpenFlags::CREATE | OpenFlags::TRUNCATE | OpenFlags::EXCLUSIVE)
            || flags.intersects(DescriptorFlags::WRITE | DescriptorFlags::MUTATE_DIRECTORY);
        // Opening for reading and writing at once is a read too; checking only `edit`
        // would make a write grant a way around a `read` deny.
        if !edits || flags.contains(DescriptorFlags::READ) {
            self.check(READ, &target).await?;
        }
        if edits {
            self.check(EDIT, &target).await?;
        }
        let opened = self
            .fs()
            .open_at(fd, path_flags, path, oflags, flags)
            .await?;
        self.remember(&opened, target);
        Ok(opened)
    }

    fn drop(&mut self, fd: Resource<Descriptor>) -> wasmtime::Result<()> {
        self.forget(&fd);
        HostDescriptor::drop(&mut self.fs(), fd)
    }

    async fn read_directory(
        &mut self,
        fd: Resource<Descriptor>,
    ) -> FsResult<Resource<types::DirectoryEntryStream>> {
        let dir = self.path_of(&fd)?;
        self.check(READ, &dir).await?;
        self.fs().read_directory(fd).await
    }

    async fn stat_at(
        &mut self,
        fd: Resource<Descriptor>,
        path_flags: types::PathFlags,
        path: String,
    ) -> FsResult<types::DescriptorStat> {
        let target = self.path_at(&fd, &path)?;
        self.check(READ, &target).await?;
        self.fs().stat_at(fd, path_flags, path).await
    }

    async fn readlink_at(&mut self, fd: Resource<Descriptor>, path: String) -> FsResult<String> {
        let target = self.path_at(&fd, &path)?;
        self.check(READ, &target).await?;
        self.fs().readlink_at(fd, path).await
    }

    async fn metadata_hash_at(
        &mut self,
        fd: Resource<Descriptor>,
        path_flags: types::PathFlags,
        path: String,
    ) -> FsResult<types::MetadataHashValue> {
        // Not checked: the hash identifies a file (device, inode) and says nothing of its
        // contents, and wasi-libc's `readdir` asks for it for every entry to fill in
        // `d_ino`. Checking it would make listing any directory holding a denied file
        // fail, and make every listing near a `.env` ask the user. The names themselves
        // are covered by `read` on the directory.
        self.fs().metadata_hash_at(fd, path_flags, path).await
    }

    async fn create_directory_at(
        &mut self,
        fd: Resource<Descriptor>,
        path: String,
    ) -> FsResult<()> {
        let target = self.path_at(&fd, &path)?;
        self.check(EDIT, &target).await?;
        self.fs().create_directory_at(fd, path).await
    }

    async fn remove_directory_at(
        &mut self,
        fd: Resource<Descriptor>,
        path: String,
    ) -> FsResult<()> {
        let target = self.path_at(&fd, &path)?;
        self.check(EDIT, &target).await?;
        self.fs().remove_directory_at(fd, path).await
    }

    async fn unlink_file_at(&mut self, fd: Resource<Descriptor>, path: String) -> FsResult<()> {
        let target = self.path_at(&fd, &path)?;
        self.check(EDIT, &target).await?;
        self.fs().unlink_file_at(fd, path).await
    }

    async fn set_times_at(
        &mut self,
        fd: Resource<Descriptor>,
        path_flags: types::PathFlags,
        path: String,
        atim: types::NewTimestamp,
        mtim: types::NewTimestamp,
    ) -> FsResult<()> {
        let target = self.path_at(&fd, &path)?;
        self.check(EDIT, &target).await?;
        self.fs()
            .set_times_at(fd, path_flags, path, atim, mtim)
            .await
    }

    async fn symlink_at(
        &mut self,
        fd: Resource<Descriptor>,
        src_path: String,
        dest_path: String,
    ) -> FsResult<()> {
        // Only the new link is written; what it points to is checked whenever the link
        // is used, since every path is also checked with its symlinks resolved.
        let target = self.path_at(&fd, &dest_path)?;
        self.check(EDIT, &target).await?;
        self.fs().symlink_at(fd, src_path, dest_path).await
    }

    async fn link_at(
        &mut self,
        fd: Resource<Descriptor>,
        old_path_flags: types::PathFlags,
        old_path: String,
        new_descriptor: Resource<Descriptor>,
        new_path: String,
    ) -> FsResult<()> {
        // A hard link is the same file under a new name, and no resolving reveals the
        // old name later: linking needs `read` on the original as well as `edit` on
        // the new name.
        let old = self.path_at(&fd, &old_path)?;
        let new = self.path_at(&new_descriptor, &new_path)?;
        self.check(READ, &old).await?;
        self.check(EDIT, &new).await?;
        self.fs()
            .link_at(fd, old_path_flags, old_path, new_descriptor, new_path)
            .await
    }

    async fn rename_at(
        &mut self,
        fd: Resource<Descriptor>,
        old_path: String,
        new_fd: Resource<Descriptor>,
        new_path: String,
    ) -> FsResult<()> {
        // Renaming edits both names, and moving a file out from under a `read` rule
        // would read it: the original also needs `read`.
        let old = self.path_at(&fd, &old_path)?;
        let new = self.path_at(&new_fd, &new_path)?;
        self.check(READ, &old).await?;
        self.check(EDIT, &old).await?;
        self.check(EDIT, &new).await?;
        self.fs().rename_at(fd, old_path, new_fd, new_path).await
    }

    // Descriptor-only calls: the descriptor was checked when it was opened.

    async fn advise(
        &mut self,
        fd: Resource<Descriptor>,
        offset: types::Filesize,
        len: types::Filesize,
        advice: types::Advice,
    ) -> FsResult<()> {
        self.fs().advise(fd, offset, len, advice).await
    }

    async fn sync_data(&mut self, fd: Resource<Descriptor>) -> FsResult<()> {
        self.fs().sync_data(fd).await
    }

    async fn get_flags(&mut self, fd: Resource<Descriptor>) -> FsResult<DescriptorFlags> {
        self.fs().get_flags(fd).await
    }

    async fn get_type(&mut self, fd: Resource<Descriptor>) -> FsResult<types::DescriptorType> {
        self.fs().get_type(fd).await
    }

    async fn set_size(&mut self, fd: Resource<Descriptor>, size: types::Filesize) -> FsResult<()> {
        self.fs().set_size(fd, size).await
    }

    async fn set_times(
        &mut self,
        fd: Resource<Descriptor>,
        atim: types::NewTimestamp,
        mtim: types::NewTimestamp,
    ) -> FsResult<()> {
        self.fs().set_times(fd, atim, mtim).await
    }

    async fn read(
        &mut self,
        fd: Resource<Descriptor>,
        len: types::Filesize,
        offset: types::Filesize,
    ) -> FsResult<(Vec<u8>, bool)> {
        self.fs().read(fd, len, offset).await
    }

    async fn write(
        &mut self,
        fd: Resource<Descriptor>,
        buf: Vec<u8>,
        offset: types::Filesize,
    ) -> FsResult<types::Filesize> {
        self.fs().write(fd, buf, offset).await
    }

    async fn sync(&mut self, fd: Resource<Descriptor>) -> FsResult<()> {
        self.fs().sync(fd).await
    }

    async fn stat(&mut self, fd: Resource<Descriptor>) -> FsResult<types::DescriptorStat> {
        self.fs().stat(fd).await
    }

    fn read_via_stream(
        &mut self,
        fd: Resource<Descriptor>,
        offset: types::Filesize,
    ) -> FsResult<Resource<DynInputStream>> {
        self.fs().read_via_stream(fd, offset)
    }

    fn write_via_stream(
        &mut self,
        fd: Resource<Descriptor>,
        offset: types::Filesize,
    ) -> FsResult<Resource<DynOutputStream>> {
        self.fs().write_via_stream(fd, offset)
    }

    fn append_via_stream(
        &mut self,
        fd: Resource<Descriptor>,
    ) -> FsResult<Resource<DynOutputStream>> {
        self.fs().append_via_stream(fd)
    }

    async fn is_same_object(
        &mut self,
        a: Resource<Descriptor>,
        b: Resource<Descriptor>,
    ) -> wasmtime::Result<bool> {
        self.fs().is_same_object(a, b).await
    }

    async fn metadata_hash(
        &mut self,
        fd: Resource<Descriptor>,
    ) -> FsResult<types::MetadataHashValue> {
        self.fs().metadata_hash(fd).await
    }
}
