//! The WASI filesystem host traits for [`Guard`]: every path-taking call is checked
//! against the rules (`read` to look, `edit` to change; `metadata-hash-at` alone is
//! exempt, see there), then handed to wasmtime-wasi's implementation unchanged, bar
//! the opens and listings the guard makes itself ([`super::direct`],
//! [`super::readdir`]). Calls on an already open descriptor were checked when it was
//! opened and pass straight through.

use std::path::Path;

use ward_permission::path::normalize;
use wasmtime::component::Resource;
use wasmtime_wasi::filesystem::{WasiFilesystemCtxView, WasiFilesystemView};
use wasmtime_wasi::p2::bindings::filesystem::preopens;
use wasmtime_wasi::p2::bindings::filesystem::types::{
    self, Descriptor, DescriptorFlags, ErrorCode, HostDescriptor, HostDirectoryEntryStream,
    OpenFlags,
};
use wasmtime_wasi::p2::{DynInputStream, DynOutputStream, FsError, FsResult};

use super::direct::Direct;
use super::policy::{Check, Tree};
use super::{Guard, readdir};

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
        // guest's name for each is its host path. Kept normalised: paths are joined to
        // it as they are.
        for (fd, name) in &dirs {
            self.remember(fd, normalize(Path::new(name)));
            self.state.fs.learn_real_project(fd.rep());
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
        if let Some(listing) = readdir::get(&mut self.state.table, &stream) {
            return Ok(listing.next()?);
        }
        self.fs().read_directory_entry(stream).await
    }

    fn drop(&mut self, stream: Resource<types::DirectoryEntryStream>) -> wasmtime::Result<()> {
        if readdir::remove(&mut self.state.table, &stream) {
            return Ok(());
        }
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
        let (env, project) = self.call();
        let target = self.path_at(&fd, &path)?;
        let changes =
            oflags.intersects(OpenFlags::CREATE | OpenFlags::TRUNCATE | OpenFlags::EXCLUSIVE);
        let edits =
            changes || flags.intersects(DescriptorFlags::WRITE | DescriptorFlags::MUTATE_DIRECTORY);
        // Opening for reading and writing at once is a read too; checking only `edit`
        // would make a write grant a way around a `read` deny.
        let mut checks = Vec::with_capacity(2);
        if !edits || flags.contains(DescriptorFlags::READ) {
            checks.push(Check::new(&env, &project, READ, &target)?);
        }
        if edits {
            checks.push(Check::new(&env, &project, EDIT, &target)?);
        }
        // Creating or truncating changes the file before there is a descriptor to
        // verify, so such opens are also decided (and asked) on the path resolved
        // beforehand. Any other open has no effect until the guest holds the descriptor.
        let mut held = None;
        if changes {
            for check in &mut checks {
                self.resolve_before(check, &fd, &path)?;
                check.confirm().await?;
            }
        } else {
            let how = (path_flags, oflags, flags);
            match self
                .open_direct(&mut checks, &fd, &path, &target, how)
                .await?
            {
                Direct::Opened(opened) => return Ok(opened),
                Direct::Waits(file) => held = Some(file),
                Direct::Missing | Direct::NotHere => {}
            }
        }
        // On the blocking pool: this may wait (for a FIFO's writer, say).
        let opened = self.fs().open_at(fd, path_flags, path, oflags, flags).await;
        drop(held);
        let opened = opened?;
        match self.verify_opened(&mut checks, &opened, &target).await {
            Ok(real) => {
                self.remember_resolved(&opened, target, real);
                Ok(opened)
            }
            Err(e) => {
                HostDescriptor::drop(&mut self.fs(), opened).map_err(FsError::trap)?;
                Err(e.into())
            }
        }
    }

    fn drop(&mut self, fd: Resource<Descriptor>) -> wasmtime::Result<()> {
        self.forget(&fd);
        HostDescriptor::drop(&mut self.fs(), fd)
    }

    async fn read_directory(
        &mut self,
        fd: Resource<Descriptor>,
    ) -> FsResult<Resource<types::DirectoryEntryStream>> {
        let (env, project) = self.call();
        let dir = self.path_of(&fd)?.to_path_buf();
        // A listing reads the names of the entries: a rule on `dir/*` decides it too.
        let mut check = Check::over(&env, &project, READ, &dir, Tree::Entries)?;
        self.resolve_opened(&mut check, &fd, &dir)?;
        check.confirm().await?;
        if let Some(listing) = readdir::list(self.descriptor(&fd)?) {
            return Ok(readdir::push(&mut self.state.table, listing?)?);
        }
        self.fs().read_directory(fd).await
    }

    async fn stat_at(
        &mut self,
        fd: Resource<Descriptor>,
        path_flags: types::PathFlags,
        path: String,
    ) -> FsResult<types::DescriptorStat> {
        self.check(READ, &fd, &path).await?;
        self.fs().stat_at(fd, path_flags, path).await
    }

    async fn readlink_at(&mut self, fd: Resource<Descriptor>, path: String) -> FsResult<String> {
        self.check(READ, &fd, &path).await?;
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
        self.check_over(EDIT, &fd, &path, Tree::Entries).await?;
        self.fs().create_directory_at(fd, path).await
    }

    async fn remove_directory_at(
        &mut self,
        fd: Resource<Descriptor>,
        path: String,
    ) -> FsResult<()> {
        self.check_over(EDIT, &fd, &path, Tree::Entries).await?;
        self.moved();
        self.fs().remove_directory_at(fd, path).await
    }

    async fn unlink_file_at(&mut self, fd: Resource<Descriptor>, path: String) -> FsResult<()> {
        self.check(EDIT, &fd, &path).await?;
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
        self.check(EDIT, &fd, &path).await?;
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
        self.check(EDIT, &fd, &dest_path).await?;
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
        // old name later: writing through the new name edits the original, so linking
        // needs `read` and `edit` on the original as well as `edit` on the new name
        // (and no plugin links Ward's configuration anywhere).
        self.check(READ, &fd, &old_path).await?;
        self.check(EDIT, &fd, &old_path).await?;
        self.check(EDIT, &new_descriptor, &new_path).await?;
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
        // would read it: the original also needs `read`. A directory moves everything
        // in it, so it is checked for all of that, under both names.
        let tree = self.moved_tree(&fd, &old_path);
        self.check_over(READ, &fd, &old_path, tree).await?;
        self.check_over(EDIT, &fd, &old_path, tree).await?;
        self.check_over(EDIT, &new_fd, &new_path, tree).await?;
        // A renamed directory may be one the guest holds open (or hold one).
        self.moved();
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
