//! How the `ward` binary is linked.
//!
//! Its relative relocations are packed (`-z pack-relative-relocs`, `DT_RELR`): about
//! 75,000 of them, 1.7 MiB of `.rela.dyn` that the loader read in full on every start —
//! file pages in every run's peak RSS, and time before `main` — become a few KiB of
//! bitmaps. The binary stays position-independent (its address is still randomised).
//! `DT_RELR` needs glibc 2.36 at run time, so it is used only when building for the
//! machine the build runs on and that machine has glibc 2.36 or later (a binary
//! built for another machine is linked as before); `WARD_PACKED_RELOCS=0` turns it off.
//!
//! In release builds the functions a one-shot run executes are placed together at the
//! front of the text (`link/warm.ld`, made by `scripts/link-order.py`, which says why
//! and how): the kernel maps code 64 KiB around each page a run touches, so where the
//! code lies decides most of a run's resident set. A name in the script that no
//! longer exists matches nothing; `WARD_LINK_ORDER=0` links without it.

use std::path::Path;
use std::process::Command;

/// Prints the link arguments for the binaries of this package.
pub fn configure(manifest_dir: &Path) {
    warm_first(manifest_dir);
    packed_relocations();
}

/// Places the warm path's functions first (release builds of ELF targets).
fn warm_first(manifest_dir: &Path) {
    let script = manifest_dir.join("link/warm.ld");
    println!("cargo:rerun-if-changed={}", script.display());
    println!("cargo:rerun-if-env-changed=WARD_LINK_ORDER");
    let wanted = std::env::var("WARD_LINK_ORDER").map_or(true, |v| v != "0");
    let release = std::env::var("PROFILE").is_ok_and(|p| p == "release");
    let elf = std::env::var("CARGO_CFG_TARGET_OBJECT_FORMAT").is_ok_and(|f| f == "elf")
        || std::env::var("TARGET").is_ok_and(|t| t.contains("-linux-"));
    if wanted && release && elf && script.is_file() {
        println!("cargo:rustc-link-arg-bins=-Wl,-T,{}", script.display());
    }
}

/// Packs the relative relocations where the run-time C library can read them.
fn packed_relocations() {
    println!("cargo:rerun-if-env-changed=WARD_PACKED_RELOCS");
    if std::env::var("WARD_PACKED_RELOCS").is_ok_and(|v| v == "0") {
        return;
    }
    let target = std::env::var("TARGET").unwrap_or_default();
    let host = std::env::var("HOST").unwrap_or_default();
    if target != host || !target.ends_with("-linux-gnu") || !host_glibc_has_relr() {
        return;
    }
    println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
}

/// Whether the build machine's glibc is 2.36 or later (`getconf GNU_LIBC_VERSION`
/// prints `glibc 2.36`).
fn host_glibc_has_relr() -> bool {
    let Ok(out) = Command::new("getconf").arg("GNU_LIBC_VERSION").output() else {
        return false;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let Some(version) = text.trim().strip_prefix("glibc ") else {
        return false;
    };
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (major, minor) >= (2, 36)
}
