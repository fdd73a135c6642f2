//! The checks behind each guarded call: a path relative to a descriptor is decided on
//! its lexical form and on where it really leads, either resolved just before the
//! access or, for opens, read off what was actually opened.

use std::path::{Path, PathBuf};

use ward_permission::path::normalize;
use wasmtime::component::Resource;
use wasmtime_wasi::p2::FsResult;
use wasmtime_wasi::p2::bindings::filesystem::types::{
    Descriptor, DescriptorFlags, ErrorCode, OpenFlags, PathFlags,
};

use super::direct::Direct;
use super::policy::{Check, Tree};
use super::{Guard, direct, resolve};

impl Guard<'_> {
    /// Checks `permission` (`read` or `edit`) for `path` relative to directory `fd`,
    /// lexically and resolved, before the access; `Err` is what the guest gets instead.
    pub(super) async fn check(
        &mut self,
        permission: &'static str,
        fd: &Resource<Descriptor>,
        path: &str,
    ) -> Result<(), ErrorCode> {
        self.check_over(permission, fd, path, Tree::Path).await
    }

    /// [`Guard::check`] for an operation touching `tree` of the path.
    pub(super) async fn check_over(
        &mut self,
        permission: &'static str,
        fd: &Resource<Descriptor>,
        path: &str,
        tree: Tree,
    ) -> Result<(), ErrorCode> {
        let (env, project) = self.call();
        let target = self.path_at(fd, path)?;
        let mut check = Check::over(&env, &project, permission, &target, tree)?;
        self.resolve_before(&mut check, fd, path)?;
        check.confirm().await
    }

    /// How much of `path` relative to `fd` renaming it moves: all of it when it is a
    /// directory (not following a final symlink, which is renamed itself).
    pub(super) fn moved_tree(&self, fd: &Resource<Descriptor>, path: &str) -> Tree {
        let is_dir = self
            .path_at(fd, path)
            .ok()
            .and_then(|p| std::fs::symlink_metadata(p).ok())
            .is_some_and(|m| m.is_dir());
        if is_dir { Tree::All } else { Tree::Path }
    }

    /// Adds to `check` the pattern of `path` relative to `fd` with its symlinks
    /// resolved now, before the access. The access may race with a symlink swapped in
    /// meanwhile; opens avoid that with [`Guard::verify_opened`].
    pub(super) fn resolve_before(
        &mut self,
        check: &mut Check<'_>,
        fd: &Resource<Descriptor>,
        path: &str,
    ) -> Result<(), ErrorCode> {
        let lexical = self.path_at(fd, path)?;
        let base_real = self.real_of(fd);
        let real = resolve::resolve_at(self.descriptor(fd)?, base_real.as_deref(), path, &lexical);
        match real {
            Some(real) => check.resolved(&real, self.state.fs.real_project()),
            None => Ok(()),
        }
    }

    /// Adds to `check` the real path of the open descriptor `fd` (or, when the kernel
    /// cannot tell, of its lexical path `lexical` resolved now), and returns the former.
    pub(super) fn resolve_opened(
        &self,
        check: &mut Check<'_>,
        fd: &Resource<Descriptor>,
        lexical: &Path,
    ) -> Result<Option<PathBuf>, ErrorCode> {
        let real = self.descriptor(fd).ok().and_then(resolve::descriptor_path);
        if let Some(resolved) = real.clone().or_else(|| resolve::resolve(lexical)) {
            check.resolved(&resolved, self.state.fs.real_project())?;
        }
        Ok(real)
    }

    /// Opens `path` under `fd` for reading in the guard itself when [`direct`] can,
    /// finishing `checks` on the real path that open guarantees; else what
    /// [`direct::open_for_reading`] said, for wasmtime-wasi to open it.
    pub(super) async fn open_direct(
        &mut self,
        checks: &mut [Check<'_>],
        fd: &Resource<Descriptor>,
        path: &str,
        lexical: &Path,
        how: (PathFlags, OpenFlags, DescriptorFlags),
    ) -> FsResult<Direct<Resource<Descriptor>>> {
        let Some(base_real) = self.real_of(fd) else {
            return Ok(Direct::NotHere);
        };
        let (path_flags, oflags, flags) = how;
        let base = self.descriptor(fd)?;
        let opened = match direct::open_for_reading(base, path_flags, path, oflags, flags) {
            Direct::Opened(opened) => opened,
            Direct::Missing => return Err(ErrorCode::NoEntry.into()),
            Direct::Waits(held) => return Ok(Direct::Waits(held)),
            Direct::NotHere => return Ok(Direct::NotHere),
        };
        // Dropping `opened` on a refusal below closes it: the guest never sees it.
        let real = if self.path_of(fd)? == base_real {
            lexical.to_path_buf()
        } else {
            normalize(&base_real.join(path))
        };
        for check in checks.iter_mut() {
            check.resolved(&real, self.state.fs.real_project())?;
        }
        for check in checks.iter_mut() {
            check.confirm().await?;
        }
        let opened = self.state.table.push(opened)?;
        self.remember_resolved(&opened, lexical.to_path_buf(), Some(real));
        Ok(Direct::Opened(opened))
    }

    /// Finishes `checks` on the descriptor just opened at `lexical`: decides each on
    /// where the file really is and asks what needs asking. Returns the real path.
    ///
    /// Deciding after the open, on the descriptor, leaves no window for a symlink
    /// swapped in after the check: what is checked is what the guest gets.
    pub(super) async fn verify_opened(
        &mut self,
        checks: &mut [Check<'_>],
        opened: &Resource<Descriptor>,
        lexical: &Path,
    ) -> Result<Option<PathBuf>, ErrorCode> {
        let mut real = None;
        for check in checks.iter_mut() {
            real = self.resolve_opened(check, opened, lexical)?;
        }
        for check in checks {
            check.confirm().await?;
        }
        Ok(real)
    }
}
