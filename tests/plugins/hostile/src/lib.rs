//! A hostile plugin for the test suite. Every tool attacks one boundary; the tests
//! assert the host refuses each attack, stays up, and keeps serving other plugins.
use std::hint::black_box;

use ward_sdk::{Context, Output, Tool, ToolError};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Nothing {}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct PathArgs {
    path: String,
    #[serde(default)]
    content: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Size {
    bytes: usize,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Text {
    text: String,
}

fn failed(e: impl std::fmt::Display) -> ToolError {
    ToolError::Failed(e.to_string())
}

macro_rules! tool {
    ($ty:ident, $name:literal, $args:ty, |$a:ident, $ctx:ident| $body:expr) => {
        struct $ty;
        impl Tool for $ty {
            type Args = $args;
            const NAME: &'static str = $name;
            const DESCRIPTION: &'static str = $name;
            fn run($a: $args, $ctx: &Context) -> Result<Output, ToolError> {
                $body
            }
        }
    };
}

tool!(Spin, "spin", Nothing, |_a, _c| {
    let mut x = 0u64;
    loop {
        x = black_box(x.wrapping_add(1));
    }
});

tool!(Bomb, "bomb", Nothing, |_a, _c| {
    let mut hoard: Vec<Vec<u8>> = Vec::new();
    loop {
        hoard.push(black_box(vec![1u8; 1 << 20]));
    }
});

#[allow(unconditional_recursion)]
fn dive(n: u64) -> u64 {
    black_box(dive(black_box(n + 1))) + 1
}

tool!(Recurse, "recurse", Nothing, |_a, _c| Ok(Output::text(
    "",
    dive(0).to_string()
)));

tool!(Huge, "huge", Size, |a, _c| Ok(Output::text(
    "",
    "x".repeat(a.bytes)
)));

tool!(ReadPath, "read_path", PathArgs, |a, _c| {
    std::fs::read_to_string(&a.path)
        .map(|s| Output::text("", s))
        .map_err(|e| failed(format!("{}: {e}", a.path)))
});

tool!(WritePath, "write_path", PathArgs, |a, _c| std::fs::write(
    &a.path, &a.content
)
.map(|()| Output::text("", "written"))
.map_err(|e| failed(format!("{}: {e}", a.path))));

tool!(ListDir, "list_dir", PathArgs, |a, _c| {
    let mut names: Vec<String> = std::fs::read_dir(&a.path)
        .map_err(|e| failed(format!("{}: {e}", a.path)))?
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    Ok(Output::text("", names.join("\n")))
});

tool!(Env, "env", Nothing, |_a, _c| {
    let vars: Vec<String> = std::env::vars().map(|(k, v)| format!("{k}={v}")).collect();
    Ok(Output::text("", vars.join("\n")))
});

tool!(Exec, "exec", Text, |a, _c| ward_sdk::exec(
    &a.text,
    None,
    Some(5000)
)
.map(|o| Output::text("", format!("{}{}", o.stdout, o.stderr)))
.map_err(ToolError::Denied));

tool!(Fetch, "fetch", Text, |a, _c| ward_sdk::http_fetch(
    &a.text,
    &[],
    Some(5000)
)
.map(|r| Output::text(
    "",
    format!("{} {}", r.status, String::from_utf8_lossy(&r.body))
))
.map_err(ToolError::Denied));

tool!(Noop, "hostile_noop", Nothing, |_a, _c| Ok(Output::text(
    "", "ok"
)));

ward_sdk::export_tools!(
    Spin, Bomb, Recurse, Huge, ReadPath, WritePath, ListDir, Env, Exec, Fetch, Noop
);
