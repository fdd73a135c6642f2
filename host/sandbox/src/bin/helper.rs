//! `ward-sandbox`: the sandbox server as a small binary of its own. Ward uses it when it
//! sits beside the `ward` binary, since it starts faster and forks cheaper; `ward`
//! itself answers the same marker otherwise.

fn main() {
    std::process::exit(ward_sandbox::dispatch().unwrap_or(2));
}
