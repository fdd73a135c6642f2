//! Finding plugins: the built-ins embedded in the binary, then `~/.config/ward/plugins/*/`,
//! `.ward/plugins/*/`, and the directories named in config. A later source replaces an
//! earlier plugin of the same name, so a project can override a user plugin — but never
//! a built-in one silently: a plugin named like a built-in is set aside until
//! [`Discovered::allow_replacements`] lets it in (the user's `[plugins.NAME] replaces`)
//! or reports it. A broken manifest is reported and skipped; the others still load.

use std::path::{Path, PathBuf};

use ward_config::{Manifest, parse_manifest};

/// Where a plugin came from, in increasing precedence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Origin {
    /// Embedded in the `ward` binary.
    Builtin,
    /// `~/.config/ward/plugins/`.
    User,
    /// `.ward/plugins/` in the project.
    Project,
    /// A path from `plugin_paths` or `[plugins.NAME] path`.
    Config,
}

impl Origin {
    /// Lower-case name for listings.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Builtin => "builtin",
            Origin::User => "user",
            Origin::Project => "project",
            Origin::Config => "config",
        }
    }
}

/// A plugin compiled into the binary.
#[derive(Clone, Copy, Debug)]
pub struct Builtin {
    /// Its `plugin.toml` text.
    pub manifest: &'static str,
    /// Its component bytes.
    pub component: &'static [u8],
    /// The component compiled by this runtime's own engine when `ward` was built
    /// (`ward plugin embed-builtins`, [`crate::embed`]); empty when it was not.
    pub precompiled: &'static [u8],
    /// The component's SHA-256, lowercase hex, computed when `ward` was built; empty
    /// when it was not (then it is computed from the bytes).
    pub sha256: &'static str,
    /// What the component declares (its tools, hooks, agents and skills), asked of it
    /// when `ward` was built ([`crate::embed`]), as a JSON object with a section per
    /// kind; empty when it was not (then it is asked at run time, as of any plugin).
    pub declared: &'static str,
}

/// Where a plugin's component bytes are.
#[derive(Clone, Debug)]
pub enum ComponentBytes {
    /// In the binary.
    Embedded {
        /// The component.
        component: &'static [u8],
        /// It compiled at build time (empty: not).
        precompiled: &'static [u8],
        /// Its SHA-256 (empty: not computed at build time).
        sha256: &'static str,
        /// Its declarations as JSON (empty: not asked at build time).
        declared: &'static str,
    },
    /// In a file.
    File(PathBuf),
}

impl ComponentBytes {
    /// Reads the bytes.
    pub fn load(&self) -> std::io::Result<std::borrow::Cow<'static, [u8]>> {
        match self {
            ComponentBytes::Embedded { component, .. } => Ok(std::borrow::Cow::Borrowed(component)),
            ComponentBytes::File(p) => std::fs::read(p).map(std::borrow::Cow::Owned),
        }
    }

    /// The SHA-256 computed when `ward` was built, for an embedded component: bytes
    /// inside the binary are trusted as the binary is, so they are not hashed again.
    pub fn embedded_sha256(&self) -> Option<&'static str> {
        match self {
            ComponentBytes::Embedded { sha256, .. } if !sha256.is_empty() => Some(sha256),
            _ => None,
        }
    }

    /// The declarations asked of an embedded component when `ward` was built.
    pub fn embedded_declarations(&self) -> Option<&'static str> {
        match self {
            ComponentBytes::Embedded { declared, .. } if !declared.is_empty() => Some(declared),
            _ => None,
        }
    }
}

/// A discovered plugin, not yet compiled.
#[derive(Clone, Debug)]
pub struct PluginSource {
    /// Where it came from.
    pub origin: Origin,
    /// The manifest's path (for built-ins, `builtin:NAME/plugin.toml`).
    pub manifest_path: PathBuf,
    /// The parsed manifest.
    pub manifest: Manifest,
    /// The component.
    pub component: ComponentBytes,
}

/// The outcome of discovery.
#[derive(Debug, Default)]
pub struct Discovered {
    /// Plugins by precedence, one per name.
    pub plugins: Vec<PluginSource>,
    /// Problems found (bad manifests, unreadable directories), each naming the file.
    pub errors: Vec<String>,
    /// Plugins named like a built-in one, which they do not replace unless allowed.
    pub shadowing: Vec<PluginSource>,
}

impl Discovered {
    /// Lets each plugin named like a built-in one replace it when `allowed(name)` (the
    /// user's explicit setting); reports the others in `errors`, and keeps the built-in.
    pub fn allow_replacements(&mut self, allowed: impl Fn(&str) -> bool) {
        for p in std::mem::take(&mut self.shadowing) {
            let name = p.manifest.name.clone();
            if allowed(&name) {
                if let Some(slot) = self.plugins.iter_mut().find(|q| q.manifest.name == name) {
                    *slot = p;
                }
                continue;
            }
            self.errors.push(format!(
                "plugin `{name}` ({}) is named like the standard plugin `{name}` and was not \
                 loaded; to use it instead, set `[plugins.{name}] replaces = [\"{name}\"]` in \
                 ward.toml",
                p.manifest_path.display()
            ));
        }
    }
}

/// Discovers plugins from `builtins` and the `(origin, directory)` search list. Each
/// directory is either a plugin itself (it holds `plugin.toml`) or a directory of them.
pub fn discover(builtins: &[Builtin], search: &[(Origin, PathBuf)]) -> Discovered {
    let mut out = Discovered::default();
    for b in builtins {
        let path = PathBuf::from("builtin:plugin.toml");
        match parse_manifest(&path, b.manifest) {
            Ok(manifest) => {
                let manifest_path = PathBuf::from(format!("builtin:{}/plugin.toml", manifest.name));
                insert(
                    &mut out,
                    PluginSource {
                        origin: Origin::Builtin,
                        manifest_path,
                        manifest,
                        component: ComponentBytes::Embedded {
                            component: b.component,
                            precompiled: b.precompiled,
                            sha256: b.sha256,
                            declared: b.declared,
                        },
                    },
                );
            }
            Err(e) => out.errors.push(e.to_string()),
        }
    }
    for (origin, dir) in search {
        if dir.join("plugin.toml").is_file() {
            load_dir(&mut out, *origin, dir);
            continue;
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.join("plugin.toml").is_file())
            .collect();
        dirs.sort();
        for d in dirs {
            load_dir(&mut out, *origin, &d);
        }
    }
    out
}

fn load_dir(out: &mut Discovered, origin: Origin, dir: &Path) {
    let path = dir.join("plugin.toml");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            out.errors.push(format!("{}: {e}", path.display()));
            return;
        }
    };
    match parse_manifest(&path, &text) {
        Ok(manifest) => {
            let component = ComponentBytes::File(dir.join(&manifest.component));
            insert(
                out,
                PluginSource {
                    origin,
                    manifest_path: path,
                    manifest,
                    component,
                },
            );
        }
        Err(e) => out.errors.push(e.to_string()),
    }
}

/// Adds `p`, replacing an earlier plugin of its name — unless that one is built in and
/// `p` is not: then `p` waits in `shadowing` (the last of its name wins there).
fn insert(out: &mut Discovered, p: PluginSource) {
    let name = &p.manifest.name;
    let shadows_builtin = p.origin != Origin::Builtin
        && out
            .plugins
            .iter()
            .any(|q| q.origin == Origin::Builtin && &q.manifest.name == name);
    if shadows_builtin {
        out.shadowing.retain(|q| &q.manifest.name != name);
        out.shadowing.push(p);
        return;
    }
    out.plugins.retain(|q| &q.manifest.name != name);
    out.plugins.push(p);
}
