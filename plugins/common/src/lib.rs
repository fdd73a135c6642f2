//! Logic shared by Ward's standard tools (the `plugins/*` components): resolving path
//! arguments, walking directories with `.gitignore` support, glob matching, output
//! truncation, binary detection and unified diffs.
//!
//! Everything here is plain Rust over `std::fs`, so it runs both inside the WASI sandbox
//! and natively in unit tests; [`fs`] alone talks to `wasi:filesystem` directly inside
//! the sandbox, to read files in fewer calls.

pub mod diff;
pub mod fs;
pub mod glob;
pub mod ignore;
pub mod path;
pub mod permission;
pub mod text;
pub mod truncate;
pub mod walk;

pub mod testing;

pub use glob::Glob;
pub use path::{display_path, fs_error, resolve};
pub use truncate::{MAX_BYTES, MAX_LINE_CHARS, MAX_LINES};
