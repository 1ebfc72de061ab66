//! Each verb's exit codes, as its `--help` states them: only its own
//! (`ledger --help` lists them all).

/// The last line of every table: how ledger reports an error of its own.
macro_rules! exit_codes {
    ($($line:literal),* $(,)?) => {
        concat!(
            "Exit codes:\n",
            $($line, "\n",)*
            "  2  error: a blocking condition, bad input or bad usage; stderr says\n",
            "     `error[<code>]: <message naming the path>` (JSON with --json) and\n",
            "     stdout stays empty"
        )
    };
}

/// A verb that answers or fails.
pub const PLAIN: &str = exit_codes!("  0  success");
/// `verify`.
pub const VERIFY: &str = exit_codes!(
    "  0  the fingerprints match",
    "  1  the files changed since the record (the changes are listed)"
);
/// `overlap`.
pub const OVERLAP: &str = exit_codes!(
    "  0  the file sets are disjoint",
    "  1  some path is in more than one (each is listed with their names)"
);
/// `status`.
pub const STATUS: &str = exit_codes!(
    "  0  every artifact is approved",
    "  1  some artifact is not approved (the causes are listed)"
);
/// `store check`.
pub const STORE_CHECK: &str = exit_codes!(
    "  0  the store is clean",
    "  1  problems were found (listed)"
);
/// `validate check`.
pub const VALIDATE_CHECK: &str = exit_codes!(
    "  0  the PASS stands",
    "  1  it does not (changed paths, stale gates)"
);
/// `finalize check`.
pub const FINALIZE_CHECK: &str = exit_codes!(
    "  0  every difference is an expected completion output",
    "  1  a new change blocks (listed path by path)"
);
/// `gate check`.
pub const GATE_CHECK: &str = exit_codes!(
    "  0  the evidence is fresh",
    "  1  it is stale (every reason listed)"
);
