//! Which permission a tool call needs before it runs, derived from its arguments:
//! `read`/`glob`/`grep`/`list` read paths, a path outside the project needs
//! `external_directory`, and any other tool needs its own name. Some are checked where
//! they act instead: `bash` and `webfetch` in the `exec` and `http-fetch` imports (per
//! sub-command, per redirect), and `write`/`edit`/`apply_patch` ask `edit` themselves,
//! with the diff, once they know what would change. Whatever a tool forgets, the
//! filesystem guard still checks on every open.

use std::path::{Path, PathBuf};

use serde_json::Value;
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

/// The permissions `tool` called with `args` needs in `project`.
pub fn needs(tool: &str, args: &Value, project: &Path) -> Vec<Need> {
    let path_arg = |key: &str| {
        args.get(key)
            .and_then(Value::as_str)
            .map(|p| resolve(p, project))
    };
    let mut out = Vec::new();
    let mut paths: Vec<PathBuf> = Vec::new();
    match tool {
        "bash" | "webfetch" => return out,
        "read" | "list" | "glob" | "grep" => {
            let key = if tool == "read" { "filePath" } else { "path" };
            let path = path_arg(key).unwrap_or_else(|| project.to_path_buf());
            let pattern = match tool {
                "read" | "list" => relative_pattern(&path, project),
                _ => args
                    .get("pattern")
                    .and_then(Value::as_str)
                    .unwrap_or("*")
                    .to_string(),
            };
            out.push(Need {
                permission: tool.to_string(),
                patterns: vec![pattern],
                always: vec!["*".to_string()],
            });
            paths.push(path);
        }
        "write" | "edit" => paths.extend(path_arg("filePath")),
        // Skills are allowed or denied by name (`skill = { "internal-*" = "deny" }`).
        "skill" => {
            let name = args.get("name").and_then(Value::as_str).unwrap_or("*");
            out.push(Need {
                permission: "skill".to_string(),
                patterns: vec![name.to_string()],
                always: vec![name.to_string()],
            });
        }
        "apply_patch" => {
            let text = args.get("patchText").and_then(Value::as_str).unwrap_or("");
            paths.extend(patch_paths(text).map(|p| resolve(p, project)));
        }
        other => out.push(Need {
            permission: other.to_string(),
            patterns: vec!["*".to_string()],
            always: vec!["*".to_string()],
        }),
    }
    // File tools name a file: ask for its directory. Directory tools name a directory.
    let names_file = matches!(tool, "read" | "write" | "edit" | "apply_patch");
    let mut external: Vec<String> = paths
        .iter()
        .filter(|p| is_external(p, project, &[std::env::temp_dir()]))
        .map(|p| {
            let dir = if names_file {
                p.parent().unwrap_or(p)
            } else {
                p
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

    #[test]
    fn edits_ask_for_themselves_inside_the_project() {
        assert!(needs("write", &json!({"filePath": "src/a.rs"}), Path::new("/p")).is_empty());
        let n = needs("edit", &json!({"filePath": "/q/a.rs"}), Path::new("/p"));
        assert_eq!(n[0].permission, "external_directory");
        assert_eq!(n[0].patterns, ["/q/*"]);
    }

    #[test]
    fn outside_the_project_needs_external_directory() {
        let n = needs("read", &json!({"filePath": "/etc/passwd"}), Path::new("/p"));
        assert_eq!(n[0].permission, "external_directory");
        assert_eq!(n[0].patterns, ["/etc/*"]);
        assert_eq!(n[1].permission, "read");
        let n = needs(
            "read",
            &json!({"filePath": "../x/y.txt"}),
            Path::new("/p/q"),
        );
        assert_eq!(n[0].patterns, ["/p/x/*"]);
    }

    #[test]
    fn patches_outside_the_project_need_external_directory() {
        let patch =
            "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: ../b/c.rs\n*** End Patch";
        let n = needs(
            "apply_patch",
            &json!({"patchText": patch}),
            Path::new("/p/q"),
        );
        assert_eq!(n.len(), 1);
        assert_eq!(n[0].patterns, ["/p/b/*"]);
    }

    #[test]
    fn other_tools_need_their_name() {
        let n = needs("my_tool", &json!({}), Path::new("/p"));
        assert_eq!(n[0].permission, "my_tool");
        assert!(needs("bash", &json!({"command": "ls"}), Path::new("/p")).is_empty());
    }
}
