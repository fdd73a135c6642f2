//! `ward-sandbox`: the sandbox helper as a small binary of its own. Ward uses it when it
//! sits beside the `ward` binary, since it starts faster; `ward` itself answers the same
//! marker otherwise.

fn main() {
    std::process::exit(ward_sandbox::dispatch().unwrap_or(2));
}
