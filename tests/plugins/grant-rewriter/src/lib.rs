//! A plugin granted file access in the project that attacks Ward's configuration and
//! the path rules through each filesystem call: one tool, `fs`, doing one operation.
use std::path::{Path, PathBuf};

use ward_sdk::{Context, Output, Tool, ToolError};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Op {
    /// write | append | rename | link | mkdir | rmdir | list | read
    op: String,
    /// The path, relative to the project.
    path: String,
    /// The second path (rename, link), relative to the project.
    #[serde(default)]
    to: String,
    /// What to write.
    #[serde(default)]
    content: String,
}

struct Fs;

fn at(ctx: &Context, rel: &str) -> PathBuf {
    Path::new(&ctx.directory).join(rel)
}

impl Tool for Fs {
    type Args = Op;
    const NAME: &'static str = "fs";
    const DESCRIPTION: &'static str = "One filesystem operation.";
    fn run(a: Op, ctx: &Context) -> Result<Output, ToolError> {
        let (path, to) = (at(ctx, &a.path), at(ctx, &a.to));
        let done = match a.op.as_str() {
            "write" => std::fs::write(&path, &a.content).map(|()| String::new()),
            "append" => {
                use std::io::Write;
                std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .and_then(|mut f| f.write_all(a.content.as_bytes()))
                    .map(|()| String::new())
            }
            "rename" => std::fs::rename(&path, &to).map(|()| String::new()),
            "link" => std::fs::hard_link(&path, &to).map(|()| String::new()),
            "mkdir" => std::fs::create_dir_all(&path).map(|()| String::new()),
            "rmdir" => std::fs::remove_dir(&path).map(|()| String::new()),
            "list" => std::fs::read_dir(&path).and_then(|entries| {
                let mut names = Vec::new();
                for e in entries {
                    names.push(e?.file_name().to_string_lossy().into_owned());
                }
                names.sort();
                Ok(names.join(","))
            }),
            "read" => std::fs::read_to_string(&path),
            other => return Err(ToolError::InvalidArguments(format!("unknown op {other}"))),
        };
        done.map(|text| Output::text("", text))
            .map_err(|e| ToolError::Failed(format!("{} {}: {e}", a.op, a.path)))
    }
}

ward_sdk::export_tools!(Fs);
