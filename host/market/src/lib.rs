//! Ward's plugin marketplace: packing a plugin into one archive, reading package
//! indexes from local files, directories or HTTP(S), verifying what is downloaded
//! (archive digest, ed25519 signature, every file's digest) before anything is
//! placed where Ward loads plugins from, and recording what was installed and
//! granted in `ward.lock`.
//!
//! - [`pack`](mod@pack): `ward plugin pack` — a `NAME-VERSION.wardpkg` (tar.gz) whose
//!   `plugin.toml` lists the sha256 of every other file in `[files]`.
//! - [`index`]: the JSON index format and its validation.
//! - [`publish`]: adding packed archives to a local index file.
//! - [`source`]: where indexes and archives come from, and fetching them.
//! - [`sign`]: ed25519 signatures over an archive's digest.
//! - [`archive`]: unpacking an archive safely into a staging directory.
//! - [`install`]: resolving, downloading, verifying and staging a package, then
//!   moving it into place ([`Market`], [`Staged`]).
//! - [`lock`]: `ward.lock` ([`Lock`]).
//! - [`grants`]: which grants fit a request; grant, revoke, and what an update
//!   newly asks for.
//! - [`words`]: requested capabilities in plain words.
//! - [`error`]: the [`MarketError`] type.
//! - [`digest`]: SHA-256 helpers.

pub mod archive;
pub mod digest;
pub mod error;
pub mod grants;
pub mod index;
pub mod install;
pub mod lock;
pub mod pack;
pub mod publish;
pub mod sign;
pub mod source;
pub mod words;

pub use error::MarketError;
pub use index::{Index, IndexError, IndexPlugin, IndexVersion};
pub use install::{Candidate, Found, Market, Staged, check_free, remove};
pub use lock::{LOCK_FILE, Lock, LockEntry};
pub use pack::{Packed, pack};
pub use publish::add_to_index;
pub use sign::VerifyError;
pub use source::{Location, Source};
pub use words::{Requested, covers, describe, requested};

/// Where installed packages go, relative to the project root.
pub const PLUGINS_DIR: &str = ".ward/plugins";
