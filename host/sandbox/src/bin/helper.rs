//! A bare sandbox helper, for the sandbox crate's own tests: the `ward` binary answers
//! the same marker in production.

fn main() {
    std::process::exit(ward_sandbox::dispatch().unwrap_or(2));
}
