//! Checks a component's imports before it is compiled: it must be built against a
//! supported version of `ward:plugin`, and may import only interfaces Ward provides and
//! the plugin's manifest declared (sockets and HTTP need `net`). Which version it was
//! built for ([`api_of`]) then chooses the bindings it is called through, and must be
//! the one its manifest's `api` names.
//!
//! Reading the import names straight from the binary means a bad component is refused
//! with a clear message, without spending a compile on it and without a link-time trap.

use wasmparser::{ComponentExternalKind, Parser, Payload};

use crate::bindings::Api;
use ward_grants::Ceiling;

/// The `ward:plugin` API versions this host implements (those of [`Api`]).
pub const SUPPORTED_API: &[&str] = &["0.1.0", "0.2.0"];

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
    /// The export section cannot be read.
    #[error("bad export section: {0}")]
    ExportSection(wasmparser::BinaryReaderError),
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
    /// Interfaces of two `ward:plugin` versions in one component.
    #[error(
        "it uses both ward:plugin@{first} and ward:plugin@{second} (`{import}`); a component \
         is built for one version"
    )]
    MixedVersions {
        /// The first version found.
        first: String,
        /// Another version.
        second: String,
        /// The import or export naming the second.
        import: String,
    },
    /// The manifest's `api` is not the version the component was built for.
    #[error(
        "its manifest says api = \"{manifest}\", but the component was built for \
         ward:plugin@{built}"
    )]
    ManifestApi {
        /// What `plugin.toml` says.
        manifest: String,
        /// What the component's imports and exports name.
        built: String,
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

/// A component's top-level instance imports and exports, e.g. `ward:plugin/host@0.1.0`.
#[derive(Debug, Default)]
pub struct ComponentNames {
    /// The imported instances.
    pub imports: Vec<String>,
    /// The exported instances.
    pub exports: Vec<String>,
}

/// The component's top-level instance import and export names.
pub fn component_names(bytes: &[u8]) -> Result<ComponentNames, CompatError> {
    let mut names = ComponentNames::default();
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
                        names.imports.push(import.name.name.to_string());
                    }
                }
            }
            Payload::ComponentExportSection(reader) if depth == 0 => {
                for export in reader {
                    let export = export.map_err(CompatError::ExportSection)?;
                    if export.kind == ComponentExternalKind::Instance {
                        names.exports.push(export.name.name.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    Ok(names)
}

/// The `ward:plugin` version the component was built for, from the versions its
/// imports and exports name (all the same one), which must be the manifest's `api`. A
/// component naming none (it uses nothing of `ward:plugin`, so will not load as any
/// kind) is taken for the manifest's version, else the latest.
pub(crate) fn api_of(names: &ComponentNames, manifest: &str) -> Result<Api, CompatError> {
    let mut found: Option<(&str, Api)> = None;
    for name in names.imports.iter().chain(&names.exports) {
        let Some(rest) = name.strip_prefix("ward:plugin/") else {
            continue;
        };
        let version = rest.split_once('@').map_or("", |(_, v)| v);
        let Some(api) = Api::parse(version) else {
            return Err(CompatError::ApiVersion {
                import: name.clone(),
                version: version.to_string(),
            });
        };
        match found {
            Some((first, seen)) if seen != api => {
                return Err(CompatError::MixedVersions {
                    first: first.to_string(),
                    second: version.to_string(),
                    import: name.clone(),
                });
            }
            _ => found = Some((version, api)),
        }
    }
    let Some((built, api)) = found else {
        return Ok(Api::parse(manifest).unwrap_or(Api::LATEST));
    };
    if built != manifest {
        return Err(CompatError::ManifestApi {
            manifest: manifest.to_string(),
            built: built.to_string(),
        });
    }
    Ok(api)
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
            check_imports(&names(&["ward:plugin/host@0.9.0"]), &Ceiling::default()).unwrap_err();
        assert!(
            matches!(&err, CompatError::ApiVersion { version, .. } if version == "0.9.0"),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "it was built for ward:plugin@0.9.0, but this Ward supports ward:plugin@0.1.0, \
             0.2.0 (import `ward:plugin/host@0.9.0`)"
        );
        for supported in SUPPORTED_API {
            let import = format!("ward:plugin/host@{supported}");
            check_imports(&[import], &Ceiling::default()).unwrap();
        }
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
    fn the_version_comes_from_the_component_and_matches_the_manifest() {
        let component = |imports: &[&str], exports: &[&str]| ComponentNames {
            imports: names(imports),
            exports: names(exports),
        };
        let old = component(&["ward:plugin/host@0.1.0"], &["ward:plugin/tool@0.1.0"]);
        assert_eq!(api_of(&old, "0.1.0").unwrap(), Api::V0_1_0);
        // An agent component may import nothing of Ward's: its export says.
        let new = component(&["wasi:io/streams@0.2.6"], &["ward:plugin/agent@0.2.0"]);
        assert_eq!(api_of(&new, "0.2.0").unwrap(), Api::V0_2_0);

        let err = api_of(&old, "0.2.0").unwrap_err();
        assert!(matches!(err, CompatError::ManifestApi { .. }), "{err:?}");
        assert_eq!(
            err.to_string(),
            "its manifest says api = \"0.2.0\", but the component was built for \
             ward:plugin@0.1.0"
        );
        let mixed = component(&["ward:plugin/host@0.1.0"], &["ward:plugin/tool@0.2.0"]);
        let err = api_of(&mixed, "0.1.0").unwrap_err();
        assert!(matches!(err, CompatError::MixedVersions { .. }), "{err:?}");
        let future = component(&[], &["ward:plugin/tool@0.9.0"]);
        let err = api_of(&future, "0.9.0").unwrap_err();
        assert!(matches!(err, CompatError::ApiVersion { .. }), "{err:?}");
        assert_eq!(api_of(&component(&[], &[]), "0.1.0").unwrap(), Api::V0_1_0);
    }

    #[test]
    fn core_modules_are_not_components() {
        let module = b"\0asm\x01\0\0\0";
        let err = component_names(module).unwrap_err();
        assert!(matches!(err, CompatError::CoreModule), "{err:?}");
        assert!(err.to_string().contains("core WebAssembly module"));
    }
}
