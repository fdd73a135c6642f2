//! The guarded `wasi:filesystem`: the permission rules applied to every filesystem
//! access a plugin makes inside its grant.
//!
//! Owns how WASI is linked for plugins. Every interface is linked exactly as
//! wasmtime-wasi's `add_to_linker_async` links it, except `wasi:filesystem/types` and
//! `wasi:filesystem/preopens`, which go through [`GuardedFs`]: it remembers the host
//! path behind each descriptor (preopens sit at their real absolute paths, so the
//! guest's name for one is its host path) and checks the `read` / `edit` rules for
//! every path-taking call, on the lexical path and on where it really leads. The call
//! itself is then wasmtime-wasi's, except read-only opens of symlink-free paths and
//! directory listings, which the guard makes itself to spare syscalls. The preopens
//! remain the hard boundary; this layer only narrows what a grant lets through
//! (SPEC §2.3).
//!
//! - [`delegate`]: the WASI host traits, each a check followed by the call.
//! - [`access`]: the check of one access, before it or on the opened descriptor.
//! - [`policy`]: turning a host path into rule patterns and deciding, asking and
//!   auditing; refusing every plugin's writes to Ward's configuration and state
//!   (only Ward's own tools get a person's question there) and any access to its
//!   data directory, and deciding directory
//!   operations for what lies beneath the directory.
//! - [`resolve`]: where a path really leads.
//! - [`direct`]: read-only opens made by the guard, and which descriptors do their
//!   I/O on the calling thread (regular files and directories) and which on tokio's
//!   blocking pool (everything wasmtime-wasi opens); [`readdir`]: listings.
//!
//! Nothing resolved is cached beyond the descriptor it belongs to, so a symlink
//! swapped in during a call is seen by the next access; an open is decided on what
//! was opened, so not even a swap between check and open slips through.

mod access;
mod delegate;
mod direct;
mod policy;
mod readdir;
mod resolve;

use std::cell::OnceCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ward_permission::path::normalize;
use wasmtime::component::{HasData, Linker, Resource, ResourceTable};
use wasmtime_wasi::cli::{WasiCli, WasiCliView};
use wasmtime_wasi::clocks::{WasiClocks, WasiClocksView};
use wasmtime_wasi::p2::bindings::filesystem::types::{Descriptor, ErrorCode};
use wasmtime_wasi::p2::bindings::{self, cli, clocks, filesystem, io, random, sockets};
use wasmtime_wasi::random::WasiRandom;
use wasmtime_wasi::sockets::{WasiSockets, WasiSocketsView};

use crate::state::{CallEnv, StoreState};

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

/// What the guard keeps per call: what it knows of each live descriptor.
pub(crate) struct Descriptors {
    /// Per descriptor, keyed by `Resource::rep()`. Entries are added when a descriptor
    /// is handed out (preopens, `open-at`) and removed when the guest drops it, so a
    /// reused table slot never inherits a stale path.
    known: HashMap<u32, Known>,
    /// The project root, normalised; shared so a check can hold it across `await`s.
    project: Arc<Path>,
    /// The project root with symlinks resolved, so resolved paths inside the project
    /// still become project-relative patterns. Found on first use: most calls never
    /// touch the filesystem, and resolving costs a syscall per component.
    real_project: OnceCell<PathBuf>,
}

/// One descriptor the guard handed out.
struct Known {
    /// Absolute, lexically normalised host path: the guest's name for it.
    path: PathBuf,
    /// Where it really is (symlinks resolved), as the kernel reported for the open
    /// descriptor; `None` when unknown or possibly out of date (after a rename).
    real: Option<PathBuf>,
}

impl Descriptors {
    /// No descriptors yet, for a call in `project`.
    pub(crate) fn new(project: &Path) -> Self {
        Descriptors {
            known: HashMap::new(),
            project: normalize(project).into(),
            real_project: OnceCell::new(),
        }
    }

    /// Takes the project root's real path from preopen `rep` when that preopen is the
    /// project root: the kernel already told where it really is, so finding out again
    /// would cost another syscall on every call that touches a file.
    fn learn_real_project(&self, rep: u32) {
        if let Some(Known {
            path,
            real: Some(real),
        }) = self.known.get(&rep)
            && **path == *self.project
        {
            let _ = self.real_project.set(real.clone());
        }
    }

    fn real_project(&self) -> &Path {
        self.real_project
            .get_or_init(|| resolve::real_dir(&self.project))
    }
}

impl Guard<'_> {
    /// The call's environment and normalised project root, for a [`Check`].
    fn call(&self) -> (Arc<CallEnv>, Arc<Path>) {
        (self.state.env.clone(), self.state.fs.project.clone())
    }

    /// The host path behind `fd`. A descriptor the guard did not hand out has no path
    /// to check, so it is refused rather than waved through.
    fn path_of(&self, fd: &Resource<Descriptor>) -> Result<&Path, ErrorCode> {
        self.state
            .fs
            .known
            .get(&fd.rep())
            .map(|k| k.path.as_path())
            .ok_or(ErrorCode::BadDescriptor)
    }

    /// The host path `path` names relative to directory `fd`, normalised lexically.
    fn path_at(&self, fd: &Resource<Descriptor>, path: &str) -> Result<PathBuf, ErrorCode> {
        let base = self.path_of(fd)?;
        // Most paths are plain `a/b/c`: joined to a normalised base they are normalised
        // already (this runs for every filesystem access).
        let plain = path
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..");
        if plain {
            return Ok(base.join(path));
        }
        Ok(normalize(&base.join(path)))
    }

    /// The open descriptor behind `fd` in the store's table.
    fn descriptor(&self, fd: &Resource<Descriptor>) -> Result<&Descriptor, ErrorCode> {
        self.state
            .table
            .get(fd)
            .map_err(|_| ErrorCode::BadDescriptor)
    }

    /// Records a descriptor handed to the guest: its lexical path, and where it really
    /// is, asked of the descriptor itself.
    fn remember(&mut self, fd: &Resource<Descriptor>, path: PathBuf) {
        let real = self.descriptor(fd).ok().and_then(resolve::descriptor_path);
        self.remember_resolved(fd, path, real);
    }

    /// Records a descriptor handed to the guest whose real path is already known.
    fn remember_resolved(
        &mut self,
        fd: &Resource<Descriptor>,
        path: PathBuf,
        real: Option<PathBuf>,
    ) {
        self.state.fs.known.insert(fd.rep(), Known { path, real });
    }

    fn forget(&mut self, fd: &Resource<Descriptor>) {
        self.state.fs.known.remove(&fd.rep());
    }

    /// Forgets where every open directory really is, after a rename or removal that
    /// may have moved one; each is asked again when next used.
    fn moved(&mut self) {
        for known in self.state.fs.known.values_mut() {
            known.real = None;
        }
    }

    /// The real path of directory `fd`, asked of the descriptor when not known.
    fn real_of(&mut self, fd: &Resource<Descriptor>) -> Option<PathBuf> {
        if let Some(real) = self
            .state
            .fs
            .known
            .get(&fd.rep())
            .and_then(|k| k.real.clone())
        {
            return Some(real);
        }
        let real = resolve::descriptor_path(self.descriptor(fd).ok()?)?;
        if let Some(known) = self.state.fs.known.get_mut(&fd.rep()) {
            known.real = Some(real.clone());
        }
        Some(real)
    }
}
