//! The Landlock ruleset of a confined process: which paths it may read and write,
//! enforced by the kernel for it and everything it starts.
//!
//! Landlock is an allow-list: every file-system right the running kernel knows is
//! handled, and only the paths below get any. It also scopes signals and abstract
//! UNIX sockets to the sandbox (ABI 6), and, where the kernel has it, connecting to
//! UNIX sockets by path. Rights the kernel lacks are dropped (best effort) but a
//! kernel without Landlock at all is an error: confinement never silently vanishes.

use std::path::Path;

use landlock::{
    ABI, Access, AccessFs, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
};

use crate::SandboxError;
use crate::policy::{Policy, ReadScope};

/// The newest ABI this build knows; older kernels get the subset they support.
const ABI_WANTED: ABI = ABI::V9;

/// Device files every program may read and write (`2>/dev/null`, random numbers).
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
];

/// Restricts the calling process (and its future children) to `policy`'s paths.
pub fn restrict(policy: &Policy) -> Result<(), SandboxError> {
    let all = AccessFs::from_all(ABI_WANTED);
    let read = AccessFs::from_read(ABI_WANTED);
    let fail = |e: landlock::RulesetError| SandboxError::Landlock(e.to_string());
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(all)
        .map_err(fail)?
        .scope(Scope::from_all(ABI_WANTED))
        .map_err(fail)?
        .create()
        .map_err(fail)?;
    match &policy.read {
        ReadScope::Everywhere => ruleset = add(ruleset, Path::new("/"), read)?,
        ReadScope::Only(paths) => {
            for p in paths {
                ruleset = add(ruleset, p, read)?;
            }
            // `/dev/stdin` and friends are links into `/proc/self/fd`.
            ruleset = add(ruleset, Path::new("/dev/fd"), read)?;
        }
    }
    for p in &policy.write {
        ruleset = add(ruleset, p, all)?;
    }
    let device = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate;
    for d in DEVICES {
        ruleset = add(ruleset, Path::new(d), device)?;
    }
    let status = ruleset.restrict_self().map_err(fail)?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err(SandboxError::LandlockUnavailable);
    }
    Ok(())
}

/// Adds `access` beneath `path`, narrowed to file rights when `path` is a file; a
/// path that does not exist is skipped (a grant of a directory not made yet).
fn add(
    ruleset: landlock::RulesetCreated,
    path: &Path,
    access: BitFlags<AccessFs>,
) -> Result<landlock::RulesetCreated, SandboxError> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(ruleset);
    };
    let access = if meta.is_dir() {
        access
    } else {
        access & AccessFs::from_file(ABI_WANTED)
    };
    let Ok(fd) = PathFd::new(path) else {
        return Ok(ruleset);
    };
    ruleset
        .add_rule(PathBeneath::new(fd, access))
        .map_err(|e| SandboxError::Landlock(format!("{}: {e}", path.display())))
}
