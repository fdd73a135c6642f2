//! The first-party plugins compiled into this binary by `build.rs`.

include!(concat!(env!("OUT_DIR"), "/builtins.rs"));
