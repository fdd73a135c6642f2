//! Ward's end-to-end tests, in one test binary: each module below was its own
//! `[[test]]` target, each a separate link of wasmtime and the whole host (the layout
//! wasmtime and ripgrep use for the same reason). A test's name starts with its module
//! path, so `cargo test -p ward-tests --test e2e security::` runs the security suite and
//! `cargo test -p ward-tests --test e2e security::terminal::` one boundary of it.

mod acp;
mod acp_question;
mod agents;
mod api_versions;
mod cli;
mod commands;
mod components;
mod context;
mod crash;
mod declared;
mod engine;
mod hooks;
mod hostile;
mod interactive;
mod layout;
mod market;
mod mcp_client;
mod mcp_serve;
mod media;
mod opencode;
mod opencode_json;
mod polyglot;
mod run;
mod scripted_llm;
mod security;
mod serve;
mod session;
mod sessions;
mod signatures;
mod skills;
mod snapshot;
mod subagents;
mod titles;
mod tools;
mod tui;
