//! The one place where core errors (and Rust panics) become Python exceptions.
//!
//! Every core error kind has its own subclass of `ledger.LedgerError`, named
//! after its stable code (`conflict` → `ConflictError`). Each raised exception
//! carries `.code` (the core's code, also a class attribute) and `.path` (the
//! path the error is about, or `None`); `str(e)` is the core's message.
//!
//! A panic inside the core must never reach Python as pyo3's `PanicException`
//! (a `BaseException`, which `except Exception` does not catch): every core
//! call goes through [`run`] or [`detached`], which catch the unwind and raise
//! `PanicError` (code `panic`) instead. The release profile keeps
//! `panic = "unwind"` for exactly this.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

use ledger_core::Error;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyType;

create_exception!(
    ledger,
    LedgerError,
    PyException,
    "Base class of every error ledger raises; `.code` is the stable code, `.path` the path concerned (or None)."
);

/// Declares one `LedgerError` subclass per code, and the code → class table.
macro_rules! error_classes {
    ($($class:ident => $code:literal: $doc:literal,)*) => {
        $(create_exception!(ledger, $class, LedgerError, $doc);)*

        /// Every subclass with its code, in the order of `Error::CODES` (plus `panic`).
        fn classes(py: Python<'_>) -> Vec<(&'static str, Bound<'_, PyType>)> {
            vec![$(($code, py.get_type::<$class>()),)*]
        }
    };
}

error_classes! {
    InvalidPathError => "invalid-path": "A path that is not a valid workspace path (empty, '.'/'..' or empty segment, trailing '/', NUL).",
    NonUtf8PathError => "non-utf8-path": "A path that is not valid UTF-8.",
    ConflictError => "conflict": "An in-scope path with an unresolved merge conflict.",
    SpecialFileError => "special-file": "A directory where a file is listed, a FIFO, socket or device.",
    NestedRepositoryError => "nested-repository": "An undeclared nested repository or submodule in scope.",
    UnreadableError => "unreadable": "An input that cannot be read (permission, I/O error, missing workspace).",
    UnwritableError => "unwritable": "An output that cannot be written.",
    SymlinkedParentError => "symlinked-parent": "A path whose parent directory is a symlink.",
    ChangedWhileReadingError => "changed-while-reading": "A file whose size or mtime changed while it was read.",
    OutsideWorkspaceError => "outside-workspace": "A path that would leave the workspace (absolute, or with '..').",
    UntrustedRepositoryError => "untrusted-repository": "A repository owned by another user (git's safe.directory).",
    UntrustedStoreError => "untrusted-store": "A store entry ledger did not create for this user: a symlink or special file, another user's, or tracked by Git.",
    GitError => "git": "A declared repository that is not a Git repository or cannot be read.",
    BadFingerprintError => "bad-fingerprint": "Text that is not 'sha256:' and 64 lowercase hex digits.",
    MalformedRecordError => "malformed-record": "A record that is not valid JSON, has wrong fields, or does not reproduce its fingerprint.",
    UnsupportedVersionError => "unsupported-version": "A record of another format or an unknown major version.",
    MissingMaterialError => "missing-material": "A design links a material that does not exist.",
    AmbiguousMaterialError => "ambiguous-material": "A design links something that is not one workspace file.",
    GraphCycleError => "graph-cycle": "An artifact graph whose requirements form a cycle.",
    UnknownArtifactError => "unknown-artifact": "An artifact name the graph does not define.",
    BadSchemaError => "bad-schema": "A schema that cannot be read as an artifact graph.",
    MissingSourceError => "missing-source": "An approval without the observed source of the decision.",
    PrerequisiteFailedError => "prerequisite-failed": "A prerequisite command failed, so its value is unknown.",
    GateNotStartedError => "gate-not-started": "A gate's command could not be started.",
    InvalidArgumentError => "invalid-argument": "Arguments that do not fit together or are incomplete.",
    BadEntryError => "bad-entry": "An entry that is not a valid (path, kind, mode, digest).",
    DuplicateEntryError => "duplicate-entry": "The same path given twice to fingerprint_entries.",
    PointerConflictError => "pointer-conflict": "A ref moved by another writer since this write started.",
    ChainMismatchError => "chain-mismatch": "A record advanced onto a ref it does not follow.",
    CorruptRecordError => "corrupt-record": "A store file whose content is not what the store wrote.",
    BadRefNameError => "bad-ref-name": "A ref name that is not '/'-separated segments of [A-Za-z0-9._-].",
    BadRecordIdError => "bad-record-id": "Text that is not a record id (64 lowercase hex digits).",
    InvalidGitfileError => "invalid-gitfile": "A .git file that does not name a repository (git refuses it too).",
    GitEnvironmentError => "git-environment": "GIT_DIR, GIT_WORK_TREE or a like variable is set and would change git's answer.",
    UnknownChangeError => "unknown-change": "A change found neither among the active changes nor in the archive.",
    UpstreamBlockedError => "upstream-blocked": "An approval whose upstream artifact cannot be fingerprinted now.",
    AbsentArtifactError => "absent-artifact": "An approval of an artifact none of whose files exist (approve it as absent explicitly).",
    NonUtf8ValueError => "non-utf8-value": "A prerequisite value or command output that is not valid UTF-8.",
    TooLargeError => "too-large": "A file ledger reads for itself (design, schema, record, pointer) that exceeds its size bound.",
    PanicError => "panic": "A bug: the Rust code panicked. The message says where; please report it.",
}

/// The code of [`PanicError`]; not a core code, the core never panics on purpose.
pub const PANIC_CODE: &str = "panic";

/// Adds the exception classes to the module, each subclass with its `code` as
/// a class attribute. (`LedgerError` itself has none: it is raised only for a
/// code this binding does not know yet, and its instance then carries it.)
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let base = py.get_type::<LedgerError>();
    base.setattr("path", py.None())?;
    m.add("LedgerError", base)?;
    for (code, class) in classes(py) {
        class.setattr("code", code)?;
        m.add(class.name()?, class)?;
    }
    Ok(())
}

/// Translates a core error: the subclass of its code, `.code`, `.path`, and the
/// core's message. A code without a subclass (a newer core) gets `LedgerError`.
pub fn to_py(py: Python<'_>, error: &Error) -> PyErr {
    raise(py, error.code(), error.path(), error.to_string())
}

/// Builds the exception of `code` with its attributes set on the instance.
fn raise(py: Python<'_>, code: &str, path: Option<&str>, message: String) -> PyErr {
    let class = classes(py)
        .into_iter()
        .find(|(c, _)| *c == code)
        .map_or_else(|| py.get_type::<LedgerError>(), |(_, class)| class);
    let err = PyErr::from_type(class, (message,));
    let value = err.value(py);
    // Setting attributes on a fresh exception instance cannot fail; if it
    // did, the error to raise is still the ledger error, without them.
    let _ = value.setattr("code", code);
    let _ = value.setattr("path", path);
    err
}

/// The text a panic carried.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic payload".to_owned())
}

/// The outcome of a core call, with a panic caught.
type Caught<T> = Result<Result<T, Error>, String>;

fn caught<T>(f: impl FnOnce() -> Result<T, Error>) -> Caught<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| panic_message(&*payload))
}

fn translate<T>(py: Python<'_>, outcome: Caught<T>) -> PyResult<T> {
    match outcome {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(to_py(py, &error)),
        Err(message) => Err(raise(
            py,
            PANIC_CODE,
            None,
            format!("ledger panicked (a bug, please report it): {message}"),
        )),
    }
}

/// Runs a quick core call (parsing, validation) with the GIL held.
pub fn run<T>(py: Python<'_>, f: impl FnOnce() -> Result<T, Error>) -> PyResult<T> {
    translate(py, caught(f))
}

/// Runs a core call that touches the disk, hashes or runs commands with the
/// GIL released, so that other Python threads run meanwhile. The closure
/// holds only owned Rust values (extracted before), never a Python object:
/// `Python::detach` enforces that with its `Ungil` (`Send`) bound.
pub fn detached<T, F>(py: Python<'_>, f: F) -> PyResult<T>
where
    F: FnOnce() -> Result<T, Error> + Send,
    T: Send,
{
    let outcome = py.detach(move || caught(f));
    translate(py, outcome)
}

/// Raises `PanicError` through the same path as a real panic, so that the
/// tests can check the translation (`ledger._ledger._panic`).
#[pyfunction]
#[pyo3(name = "_panic")]
pub fn panic_for_test(py: Python<'_>, message: String) -> PyResult<()> {
    detached(py, move || -> Result<(), Error> {
        #[allow(clippy::panic)]
        {
            panic!("{message}")
        }
    })
}
