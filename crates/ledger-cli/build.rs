//! Links the `ledger` binary as a position-dependent executable.
//!
//! A position-independent one carries about 22,000 relative relocations that
//! the loader applies on every start, dirtying the pages they land on: on the
//! bench machine a one-file `ledger fingerprint` took 355 page faults as PIE
//! and 259 without, 0.2 ms of a 3.5 ms run (docs/performance.md, The fixed
//! cost of a run). Address-space layout randomization of the binary's own
//! image is what is given up; the stack, heap and libraries stay randomized.
//! Only the binary is affected: the Python and Node modules are built from
//! `ledger-core` as shared objects and stay position-independent.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        // The C compiler driver takes the last of `-pie`/`-no-pie`; rustc's own
        // `-pie` comes first.
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
