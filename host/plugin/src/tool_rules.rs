//! Which permission a tool call needs before it runs, derived from its arguments as
//! the tool's declaration ([`ToolTraits`], `[tools.NAME]` in its manifest) says: a
//! tool that names a path is checked as its declared permission (else its own name)
//! with that path's pattern (or the argument it declares as its pattern), a path
//! outside the project also needs `external_directory`, and a tool that declares
//! nothing needs its own name.
//! Ward's own tools that ask where they act — `bash` per sub-command and `webfetch`
//! per redirect in their imports, `write`/`edit`/`apply_patch` with the diff — skip
//! the check before the call. Nothing here reads a tool's name: a tool named like a
//! standard one is checked by what it declares. Whatever a tool forgets, the
//! filesystem guard still checks on every open.

use std::path::{Path, PathBuf};

use serde_json::Value;
use ward_config::{Access, ToolTraits};
use ward_permission::path::{is_external, normalize, relative_pattern};

/// One permission a call needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Need {
    /// The permission key.
    pub permission: String,
    /// The patterns checked.
    pub patterns: Vec<String>,
    /// What "always" would allow.
    pub always: Vec<String>,
}

/// The permissions `tool`, declared as `traits`, called with `args` in `project`
/// needs.
pub fn needs(tool: &str, traits: &ToolTraits, args: &Value, project: &Path) -> Vec<Need> {
    let text = |key: &Option<String>| {
        key.as_deref()
            .and_then(|k| args.get(k))
            .and_then(Value::as_str)
    };
    let mut paths: Vec<PathBuf> = Vec::new();
    let named = text(&traits.path).map(|p| resolve(p, project));
    // A tool that reads from a path reads the project when it names none.
    let path = match (named, traits.access) {
        (Some(path), _) => Some(path),
        (None, Some(Access::Read)) if traits.path.is_some() => Some(project.to_path_buf()),
        (None, _) => None,
    };
    paths.extend(path.clone());
    if let Some(patch) = text(&traits.patch) {
        paths.extend(patch_paths(patch).map(|p| resolve(p, project)));
    }
    let mut out = Vec::new();
    if !traits.asks_itself {
        let pattern = match (&traits.pattern, &path) {
            (Some(_), _) => text(&traits.pattern).unwrap_or("*").to_string(),
            (None, Some(path)) => relative_pattern(path, project),
            (None, None) => "*".to_string(),
        };
        let always = if traits.always_pattern {
            pattern.clone()
        } else {
            "*".to_string()
        };
        out.push(Need {
            permission: traits.permission.as_deref().unwrap_or(tool).to_string(),
            patterns: vec![pattern],
            always: vec![always],
        });
    }
    // A file tool names a file: ask for its directory. A directory tool names one.
    let mut external: Vec<String> = paths
        .iter()
        .filter(|p| is_external(p, project, &[std::env::temp_dir()]))
        .map(|p| {
            let dir = if traits.directory {
                p
            } else {
                p.parent().unwrap_or(p)
            };
            format!("{}/*", dir.display())
        })
        .collect();
    external.dedup();
    if !external.is_empty() {
        out.insert(
            0,
            Need {
                permission: "external_directory".to_string(),
                patterns: external.clone(),
                always: external,
            },
        );
    }
    out
}

fn resolve(p: &str, project: &Path) -> PathBuf {
    let path = Path::new(p);
    normalize(&if path.is_absolute() {
        path.to_path_buf()
    } else {
        project.join(path)
    })
}

fn patch_paths(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter_map(|l| {
        [
            "*** Add File: ",
            "*** Update File: ",
            "*** Delete File: ",
            "*** Move to: ",
        ]
        .iter()
        .find_map(|prefix| l.strip_prefix(prefix))
        .map(str::trim)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What the standard tools' manifests declare.
    fn declared(tool: &str) -> ToolTraits {
        let traits = |text: &str| -> ToolTraits { toml::from_str(text).expect("traits") };
        match tool {
            "read" => traits("path = \"filePath\"\naccess = \"read\""),
            "glob" => traits(
                "path = \"path\"\ndirectory = true\naccess = \"read\"\npattern = \"pattern\"",
            ),
            "edit" | "write" => {
                traits("path = \"filePath\"\naccess = \"write\"\nasks-itself = true")
            }
            "apply_patch" => {
                traits("patch = \"patchText\"\naccess = \"write\"\nasks-itself = true")
            }
            "bash" => traits("asks-itself = true\noutput-tail = true"),
            "skill" => traits("pattern = \"name\"\nalways-pattern = true"),
            _ => ToolTraits::default(),
        }
    }

    fn needs_of(tool: &str, args: Value, project: &str) -> Vec<Need> {
        needs(tool, &declared(tool), &args, Path::new(project))
    }

    #[test]
    fn edits_ask_for_themselves_inside_the_project() {
        assert!(needs_of("write", json!({"filePath": "src/a.rs"}), "/p").is_empty());
        let n = needs_of("edit", json!({"filePath": "/q/a.rs"}), "/p");
        assert_eq!(n[0].permission, "external_directory");
        assert_eq!(n[0].patterns, ["/q/*"]);
        assert_eq!(n.len(), 1);
    }

    #[test]
    fn outside_the_project_needs_external_directory() {
        let n = needs_of("read", json!({"filePath": "/etc/passwd"}), "/p");
        assert_eq!(n[0].permission, "external_directory");
        assert_eq!(n[0].patterns, ["/etc/*"]);
        assert_eq!(n[1].permission, "read");
        assert_eq!(n[1].patterns, ["/etc/passwd"]);
        let n = needs_of("read", json!({"filePath": "../x/y.txt"}), "/p/q");
        assert_eq!(n[0].patterns, ["/p/x/*"]);
        let n = needs_of("read", json!({"filePath": "src/a.rs"}), "/p");
        assert_eq!(
            (n.len(), n[0].patterns.clone()),
            (1, vec!["src/a.rs".to_string()])
        );
    }

    #[test]
    fn a_declared_pattern_argument_is_the_pattern() {
        let n = needs_of("glob", json!({"pattern": "**/*.rs", "path": "/q"}), "/p");
        assert_eq!(
            n[0].patterns,
            ["/q/*"],
            "a directory is its own external pattern"
        );
        assert_eq!(
            (n[1].permission.as_str(), n[1].patterns.clone()),
            ("glob", vec!["**/*.rs".to_string()])
        );
        let n = needs_of("skill", json!({"name": "code-review"}), "/p");
        assert_eq!(
            n[0].always,
            ["code-review"],
            "always allows that skill alone"
        );
    }

    #[test]
    fn patches_outside_the_project_need_external_directory() {
        let patch =
            "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: ../b/c.rs\n*** End Patch";
        let n = needs_of("apply_patch", json!({"patchText": patch}), "/p/q");
        assert_eq!(n.len(), 1);
        assert_eq!(n[0].patterns, ["/p/b/*"]);
    }

    #[test]
    fn other_tools_need_their_name_whatever_it_is() {
        let n = needs_of("my_tool", json!({}), "/p");
        assert_eq!(n[0].permission, "my_tool");
        assert!(needs_of("bash", json!({"command": "ls"}), "/p").is_empty());
        // A tool named `bash` that declares nothing is no shell: it needs `bash *`.
        let n = needs(
            "bash",
            &ToolTraits::default(),
            &json!({"command": "ls"}),
            Path::new("/p"),
        );
        assert_eq!(
            (n[0].permission.as_str(), n[0].patterns.clone()),
            ("bash", vec!["*".to_string()])
        );
        // A tool named `read` that declares nothing gets no path pattern.
        let n = needs(
            "read",
            &ToolTraits::default(),
            &json!({"filePath": "/etc/x"}),
            Path::new("/p"),
        );
        assert_eq!(n.len(), 1);
        assert_eq!(n[0].patterns, ["*"]);
    }
}
