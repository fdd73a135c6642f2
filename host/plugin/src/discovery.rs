//! Finding plugins: the built-ins embedded in the binary, then `~/.config/ward/plugins/*/`,
//! `.ward/plugins/*/`, and the directories named in config. A later source replaces an
//! earlier plugin of the same name, so a project can override a user plugin, and a user
//! a built-in. A broken manifest is reported and skipped; the others still load.

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
}

/// Where a plugin's component bytes are.
#[derive(Clone, Debug)]
pub enum ComponentBytes {
    /// In the binary.
    Embedded(&'static [u8]),
    /// In a file.
    File(PathBuf),
}

impl ComponentBytes {
    /// Reads the bytes.
    pub fn load(&self) -> std::io::Result<std::borrow::Cow<'static, [u8]>> {
        match self {
            ComponentBytes::Embedded(b) => Ok(std::borrow::Cow::Borrowed(b)),
            ComponentBytes::File(p) => std::fs::read(p).map(std::borrow::Cow::Owned),
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
                    &mut out.plugins,
                    PluginSource {
                        origin: Origin::Builtin,
                        manifest_path,
                        manifest,
                        component: ComponentBytes::Embedded(b.component),
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
                &mut out.plugins,
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

fn insert(list: &mut Vec<PluginSource>, p: PluginSource) {
    list.retain(|q| q.manifest.name != p.manifest.name);
    list.push(p);
}
