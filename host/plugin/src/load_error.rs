//! Why a plugin could not be loaded: its component unreadable, not the bytes its
//! manifest names, not a component this Ward can run, not compiling or linking, not
//! exporting what its manifest declares, or declaring something the host will not keep.
//!
//! A load is tried once per process and its failure kept for every later call
//! ([`crate::runtime::Plugin`]), so the error is [`Clone`]: sources that are not (an
//! I/O error, a component's parse error) are shared behind an [`Arc`], and wasmtime's
//! errors, which are neither `Clone` nor a standard error, are kept as their message.
//! Each message completes "plugin `NAME` cannot be loaded: …" ([`crate::CallError::Load`]).

use std::path::PathBuf;
use std::sync::Arc;

use crate::compat::CompatError;
use crate::tool_schema::SchemaRefused;

/// Why a plugin's component could not be loaded.
#[derive(Clone, Debug, thiserror::Error)]
pub enum LoadError {
    /// The component file could not be read.
    #[error("cannot read its component: {0}")]
    Read(Arc<std::io::Error>),
    /// The component is not the one its manifest names by digest.
    #[error(
        "{}: component `{component}` has sha256 {actual}, but the manifest says {expected}",
        manifest.display()
    )]
    ShaMismatch {
        /// The manifest giving the digest.
        manifest: PathBuf,
        /// The component file, as the manifest names it.
        component: String,
        /// The digest of the bytes read.
        actual: String,
        /// The digest the manifest gives.
        expected: String,
    },
    /// The component is not one this Ward can run (found in its imports and exports).
    #[error("{0}")]
    Compat(Arc<CompatError>),
    /// The compile could not be run (its task failed).
    #[error("compile task failed: {0}")]
    CompileTask(String),
    /// wasmtime refused to compile the component.
    #[error("cannot compile: {0}")]
    Compile(String),
    /// The component's imports could not be linked.
    #[error("cannot link: {0}")]
    Link(String),
    /// The component does not export an interface its manifest's kinds promise.
    #[error("it does not export the `ward:plugin/{interface}` interface it declares: {message}")]
    MissingExport {
        /// The interface: `tool`, `hooks`, `agent`, `skill`.
        interface: &'static str,
        /// wasmtime's reason.
        message: String,
    },
    /// The component could not be instantiated to read a declaration.
    #[error("cannot instantiate: {0}")]
    Instantiate(String),
    /// Reading a declaration (`list-tools`, `register`, …) trapped or failed.
    #[error("{reading} failed: {message}")]
    Declaring {
        /// What was being read: `listing its tools`.
        reading: &'static str,
        /// The trap.
        message: String,
    },
    /// A declaration was read, and the host will not keep it.
    #[error(transparent)]
    Refused(#[from] DeclarationRefused),
    /// A call needs an export of a kind the manifest does not declare.
    #[error("its manifest does not declare it a {kind} plugin")]
    NotDeclared {
        /// The kind the call needs: `tool`, `skill`, `hook`.
        kind: &'static str,
    },
}

impl From<CompatError> for LoadError {
    fn from(e: CompatError) -> Self {
        LoadError::Compat(Arc::new(e))
    }
}

/// A declaration the host refuses to keep.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeclarationRefused {
    /// A tool's parameter schema could make checking arguments against it costly.
    #[error("the parameter schema of its tool `{tool}` is refused: {reason}")]
    Schema {
        /// The tool.
        tool: String,
        /// Why.
        reason: SchemaRefused,
    },
    /// The declaration is larger than a call could return.
    #[error("{what} take {size} bytes, more than its output limit of {limit} bytes")]
    TooLarge {
        /// What it is: `its agent definitions`.
        what: &'static str,
        /// Its size, serialized.
        size: usize,
        /// The plugin's output limit.
        limit: usize,
    },
}
