//! Checks a component's imports before it is compiled: it must be built against a
//! supported version of `ward:plugin`, and may import only interfaces Ward provides and
//! the plugin's manifest declared (sockets and HTTP need `net`).
//!
//! Reading the import names straight from the binary means a bad component is refused
//! with a clear message, without spending a compile on it and without a link-time trap.

use wasmparser::{ComponentExternalKind, Parser, Payload};

use crate::grants::Ceiling;

/// The `ward:plugin` API versions this host implements.
pub const SUPPORTED_API: &[&str] = &["0.1.0"];

/// WASI interfaces every plugin may import (all are inert beyond its preopens).
const BASE_WASI: &[&str] = &[
    "wasi:cli/environment",
    "wasi:cli/exit",
    "wasi:cli/stdin",
    "wasi:cli/stdout",
    "wasi:cli/stderr",
    "wasi:cli/terminal-input",
    "wasi:cli/terminal-output",
    "wasi:cli/terminal-stdin",
    "wasi:cli/terminal-stdout",
    "wasi:cli/terminal-stderr",
    "wasi:clocks/monotonic-clock",
    "wasi:clocks/wall-clock",
    "wasi:filesystem/types",
    "wasi:filesystem/preopens",
    "wasi:io/error",
    "wasi:io/poll",
    "wasi:io/streams",
    "wasi:random/random",
    "wasi:random/insecure",
    "wasi:random/insecure-seed",
];

/// WASI interfaces that reach the network; allowed only with a `net` ceiling.
const NET_WASI: &[&str] = &[
    "wasi:sockets/network",
    "wasi:sockets/instance-network",
    "wasi:sockets/ip-name-lookup",
    "wasi:sockets/tcp",
    "wasi:sockets/tcp-create-socket",
    "wasi:sockets/udp",
    "wasi:sockets/udp-create-socket",
];

/// Why a component cannot be loaded by this Ward, found in its imports before any
/// compile. The message completes "plugin `NAME` cannot be loaded: …".
#[derive(Debug, thiserror::Error)]
pub enum CompatError {
    /// The bytes are not WebAssembly at all.
    #[error("not a valid WebAssembly component: {0}")]
    Invalid(wasmparser::BinaryReaderError),
    /// A core module where a component is needed.
    #[error(
        "this is a core WebAssembly module, not a component (build with the wasm32-wasip2 \
         target or `wasm-tools component new`)"
    )]
    CoreModule,
    /// The import section cannot be read.
    #[error("bad import section: {0}")]
    ImportSection(wasmparser::BinaryReaderError),
    /// Built against a `ward:plugin` version this Ward does not implement.
    #[error(
        "it was built for ward:plugin@{version}, but this Ward supports ward:plugin@{} \
         (import `{import}`)",
        SUPPORTED_API.join(", ")
    )]
    ApiVersion {
        /// The import naming the version.
        import: String,
        /// The version it names.
        version: String,
    },
    /// An interface Ward does not provide.
    #[error("it imports `{import}`, which Ward does not provide")]
    NotProvided {
        /// The import.
        import: String,
    },
    /// Networking without the `net` capability in the manifest.
    #[error("it imports `{import}` but its manifest does not declare the `net` capability")]
    NetUndeclared {
        /// The import.
        import: String,
    },
    /// Raw WASI networking, which Ward never links.
    #[error(
        "it imports `{import}`; Ward plugins reach the network through the host's \
         `http-fetch`, not raw WASI networking"
    )]
    RawNetwork {
        /// The import.
        import: String,
    },
}

/// The component's top-level import names, e.g. `ward:plugin/host@0.1.0`.
pub fn import_names(bytes: &[u8]) -> Result<Vec<String>, CompatError> {
    let mut names = Vec::new();
    let mut depth = 0usize;
    for payload in Parser::new(0).parse_all(bytes) {
        let payload = payload.map_err(CompatError::Invalid)?;
        match payload {
            Payload::Version { encoding, .. }
                if depth == 0 && encoding != wasmparser::Encoding::Component =>
            {
                return Err(CompatError::CoreModule);
            }
            Payload::ModuleSection { .. } | Payload::ComponentSection { .. } => depth += 1,
            Payload::End(_) => depth = depth.saturating_sub(1),
            Payload::ComponentImportSection(reader) if depth == 0 => {
                for import in reader {
                    let import = import.map_err(CompatError::ImportSection)?;
                    if import.ty.kind() == ComponentExternalKind::Instance {
                        names.push(import.name.name.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    Ok(names)
}

/// Checks the imports against the supported API versions and the manifest's ceiling.
pub fn check_imports(names: &[String], ceiling: &Ceiling) -> Result<(), CompatError> {
    for name in names {
        let import = || name.clone();
        let (iface, version) = name.split_once('@').unwrap_or((name.as_str(), ""));
        if let Some(rest) = iface.strip_prefix("ward:plugin/") {
            if !SUPPORTED_API.contains(&version) {
                return Err(CompatError::ApiVersion {
                    import: import(),
                    version: version.to_string(),
                });
            }
            if rest != "host" && rest != "types" {
                return Err(CompatError::NotProvided { import: import() });
            }
            continue;
        }
        if BASE_WASI.contains(&iface) {
            continue;
        }
        if NET_WASI.contains(&iface) || iface.starts_with("wasi:http/") {
            if ceiling.net.is_empty() {
                return Err(CompatError::NetUndeclared { import: import() });
            }
            return Err(CompatError::RawNetwork { import: import() });
        }
        return Err(CompatError::NotProvided { import: import() });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn version_mismatch_names_both_versions() {
        let err =
            check_imports(&names(&["ward:plugin/host@0.2.0"]), &Ceiling::default()).unwrap_err();
        assert!(
            matches!(&err, CompatError::ApiVersion { version, .. } if version == "0.2.0"),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "it was built for ward:plugin@0.2.0, but this Ward supports ward:plugin@0.1.0 \
             (import `ward:plugin/host@0.2.0`)"
        );
    }

    #[test]
    fn undeclared_interfaces_are_refused() {
        let err =
            check_imports(&names(&["wasi:sockets/tcp@0.2.0"]), &Ceiling::default()).unwrap_err();
        assert!(matches!(err, CompatError::NetUndeclared { .. }), "{err:?}");
        assert!(
            err.to_string()
                .contains("does not declare the `net` capability"),
            "{err}"
        );
        let err = check_imports(&names(&["evil:spy/keys"]), &Ceiling::default()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "it imports `evil:spy/keys`, which Ward does not provide"
        );
        check_imports(
            &names(&["ward:plugin/host@0.1.0", "wasi:filesystem/types@0.2.6"]),
            &Ceiling::default(),
        )
        .unwrap();
    }

    #[test]
    fn core_modules_are_not_components() {
        let module = b"\0asm\x01\0\0\0";
        let err = import_names(module).unwrap_err();
        assert!(matches!(err, CompatError::CoreModule), "{err:?}");
        assert!(err.to_string().contains("core WebAssembly module"));
    }
}
