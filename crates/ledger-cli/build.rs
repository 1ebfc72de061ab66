//! Links the `ledger` binary for a fast start on Linux: position-dependent, and
//! with GCC's unwinder linked in rather than loaded from `libgcc_s.so.1`.
//!
//! A position-independent binary carries about 22,000 relative relocations that
//! the loader applies on every start, dirtying the pages they land on: on the
//! bench machine a one-file `ledger fingerprint` took 355 page faults as PIE
//! and 259 without, 0.2 ms of a 3.5 ms run (docs/performance.md, The fixed
//! cost of a run). Address-space layout randomization of the binary's own
//! image is what is given up; the stack, heap and libraries stay randomized.
//!
//! Loading `libgcc_s.so.1` costs every start one more library to map and
//! relocate, and its constructor asks the CPU what it is ten times (`cpuid`,
//! 6 µs each under the bench machine's hypervisor): 0.13 ms of a one-file
//! fingerprint. Linking its static half (`libgcc_eh.a`) instead is what
//! `gcc -static-libgcc` does; rustc names `-lgcc_s` itself, so a linker script
//! by that name, found before the compiler's own directories, points it at
//! `libgcc_eh.a`. Where the C compiler has no `libgcc_eh.a`, the binary keeps
//! `libgcc_s.so.1`.
//!
//! Only the binaries are affected: the Python and Node modules are built from
//! `ledger-core` as shared objects and stay position-independent, with the
//! shared unwinder.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CC");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }
    // The C compiler driver takes the last of `-pie`/`-no-pie`; rustc's own
    // `-pie` comes first.
    println!("cargo:rustc-link-arg-bins=-no-pie");
    if std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu")
        && let Some(dir) = static_unwinder_dir()
    {
        // The linker applies every `-L` to every `-l`, in the order given,
        // and the compiler driver's own directories come after all of these.
        println!("cargo:rustc-link-arg-bins=-L{}", dir.display());
    }
}

/// A directory holding `libgcc_s.so` as a linker script that takes
/// `libgcc_eh.a` instead, or `None` when the C compiler has no `libgcc_eh.a`.
fn static_unwinder_dir() -> Option<PathBuf> {
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let output = Command::new(compiler)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()?;
    // The driver prints the name alone when it has no such file.
    let found = PathBuf::from(String::from_utf8(output.stdout).ok()?.trim());
    if !output.status.success() || !found.is_absolute() || !found.is_file() {
        return None;
    }
    let dir = Path::new(&std::env::var_os("OUT_DIR")?).join("static-libgcc");
    std::fs::create_dir_all(&dir).ok()?;
    let script = format!("INPUT(\"{}\")\n", found.display());
    std::fs::write(dir.join("libgcc_s.so"), script).ok()?;
    Some(dir)
}
