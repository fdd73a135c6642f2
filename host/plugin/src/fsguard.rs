//! The guarded `wasi:filesystem`: the permission rules applied to every filesystem
//! access a plugin makes inside its grant.
//!
//! Owns how WASI is linked for plugins. Every interface is linked exactly as
//! wasmtime-wasi's `add_to_linker_async` links it, except `wasi:filesystem/types` and
//! `wasi:filesystem/preopens`, which go through [`GuardedFs`]: it remembers the host
//! path behind each descriptor (preopens sit at their real absolute paths, so the
//! guest's name for one is its host path) and, before delegating a path-taking call to
//! wasmtime-wasi's own implementation, checks the `read` / `edit` rules for the path
//! ([`policy`]). The preopens remain the hard boundary; this layer only narrows what a
//! grant lets through (SPEC §2.3).
//!
//! - [`delegate`]: the WASI host traits, each a check followed by the delegation.
//! - [`policy`]: turning a host path into rule patterns (lexical and symlink-resolved)
//!   and deciding, asking and auditing.

mod delegate;
mod policy;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use ward_permission::path::normalize;
use wasmtime::component::{HasData, Linker, Resource, ResourceTable};
use wasmtime_wasi::cli::{WasiCli, WasiCliView};
use wasmtime_wasi::clocks::{WasiClocks, WasiClocksView};
use wasmtime_wasi::p2::bindings::filesystem::types::{Descriptor, ErrorCode};
use wasmtime_wasi::p2::bindings::{self, cli, clocks, filesystem, io, random, sockets};
use wasmtime_wasi::random::WasiRandom;
use wasmtime_wasi::sockets::{WasiSockets, WasiSocketsView};

use crate::state::StoreState;

/// Links WASI 0.2 for plugins: wasmtime-wasi's asynchronous set of interfaces, with the
/// filesystem guarded. Mirrors `wasmtime_wasi::p2::add_to_linker_with_options_async`
/// (and the `add_async_io_to_linker` / `add_nonblocking_to_linker` it calls) line for
/// line; keep the two in step when wasmtime is upgraded.
pub(crate) fn add_to_linker(linker: &mut Linker<StoreState>) -> wasmtime::Result<()> {
    let options = bindings::LinkOptions::default();
    let l = linker;
    type S = StoreState;

    // wasi:io
    io::error::add_to_linker::<S, Io>(l, |t| &mut t.table)?;
    io::poll::add_to_linker::<S, Io>(l, |t| &mut t.table)?;
    io::streams::add_to_linker::<S, Io>(l, |t| &mut t.table)?;

    // The non-blocking interfaces.
    clocks::wall_clock::add_to_linker::<S, WasiClocks>(l, S::clocks)?;
    clocks::monotonic_clock::add_to_linker::<S, WasiClocks>(l, S::clocks)?;
    filesystem::preopens::add_to_linker::<S, GuardedFs>(l, GuardedFs::view)?;
    random::random::add_to_linker::<S, WasiRandom>(l, |t| t.wasi.random())?;
    random::insecure::add_to_linker::<S, WasiRandom>(l, |t| t.wasi.random())?;
    random::insecure_seed::add_to_linker::<S, WasiRandom>(l, |t| t.wasi.random())?;
    cli::exit::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::environment::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::stdin::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::stdout::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::stderr::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::terminal_input::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::terminal_output::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::terminal_stdin::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::terminal_stdout::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::terminal_stderr::add_to_linker::<S, WasiCli>(l, S::cli)?;
    sockets::tcp_create_socket::add_to_linker::<S, WasiSockets>(l, S::sockets)?;
    sockets::instance_network::add_to_linker::<S, WasiSockets>(l, S::sockets)?;
    sockets::network::add_to_linker::<S, WasiSockets>(l, &(&options).into(), S::sockets)?;
    sockets::ip_name_lookup::add_to_linker::<S, WasiSockets>(l, S::sockets)?;

    // The blocking ones.
    filesystem::types::add_to_linker::<S, GuardedFs>(l, GuardedFs::view)?;
    sockets::tcp::add_to_linker::<S, WasiSockets>(l, S::sockets)?;
    sockets::udp::add_to_linker::<S, WasiSockets>(l, S::sockets)?;
    sockets::udp_create_socket::add_to_linker::<S, WasiSockets>(l, S::sockets)?;
    Ok(())
}

/// `wasi:io` works on the resource table alone (wasmtime-wasi's own `HasIo` is private).
struct Io;

impl HasData for Io {
    type Data<'a> = &'a mut ResourceTable;
}

/// The [`HasData`] the guarded filesystem interfaces are linked with.
pub(crate) struct GuardedFs;

impl HasData for GuardedFs {
    type Data<'a> = Guard<'a>;
}

impl GuardedFs {
    fn view(state: &mut StoreState) -> Guard<'_> {
        Guard { state }
    }
}

/// A call's store seen through the filesystem guard; implements the WASI filesystem
/// host traits.
pub(crate) struct Guard<'a> {
    state: &'a mut StoreState,
}

/// What the guard keeps per call: the host path behind each live descriptor.
pub(crate) struct Descriptors {
    /// Absolute, lexically normalised host path per descriptor, keyed by
    /// `Resource::rep()`. Entries are added when a descriptor is handed out (preopens,
    /// `open-at`) and removed when the guest drops it, so a reused table slot never
    /// inherits a stale path.
    paths: HashMap<u32, PathBuf>,
    /// The project root with symlinks resolved, so resolved paths inside the project
    /// still become project-relative patterns.
    real_project: PathBuf,
}

impl Descriptors {
    /// No descriptors yet, for a call in `project`.
    pub(crate) fn new(project: &Path) -> Self {
        Descriptors {
            paths: HashMap::new(),
            real_project: std::fs::canonicalize(project).unwrap_or_else(|_| normalize(project)),
        }
    }
}

impl Guard<'_> {
    /// The host path behind `fd`. A descriptor the guard did not hand out has no path
    /// to check, so it is refused rather than waved through.
    fn path_of(&self, fd: &Resource<Descriptor>) -> Result<PathBuf, ErrorCode> {
        self.state
            .fs
            .paths
            .get(&fd.rep())
            .cloned()
            .ok_or(ErrorCode::BadDescriptor)
    }

    /// The host path `path` names relative to directory `fd`, normalised lexically.
    fn path_at(&self, fd: &Resource<Descriptor>, path: &str) -> Result<PathBuf, ErrorCode> {
        Ok(normalize(&self.path_of(fd)?.join(path)))
    }

    fn remember(&mut self, fd: &Resource<Descriptor>, path: PathBuf) {
        self.state.fs.paths.insert(fd.rep(), path);
    }

    fn forget(&mut self, fd: &Resource<Descriptor>) {
        self.state.fs.paths.remove(&fd.rep());
    }

    /// Checks `permission` (`read` or `edit`) for the host path `path` against the
    /// call's rules; `Err` is what the guest gets instead of the access.
    async fn check(&mut self, permission: &str, path: &Path) -> Result<(), ErrorCode> {
        let env = self.state.env.clone();
        let real_project = self.state.fs.real_project.clone();
        policy::check(&env, &real_project, permission, path).await
    }
}
