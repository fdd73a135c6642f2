//! Passes the target triple this crate is built for to its code: the engine compiles
//! for that triple's baseline CPU, not for the build machine's.

#![allow(
    clippy::disallowed_macros,
    reason = "a build script talks to cargo, not to a terminal"
)]

fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    println!("cargo:rustc-env=WARD_ENGINE_TARGET={target}");
}
