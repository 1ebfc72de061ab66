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
use std::ffi::CString;
use std::panic::{AssertUnwindSafe, catch_unwind};

use ledger_core::Error;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

create_exception!(
    ledger,
    LedgerError,
    PyException,
    "Base class of every error ledger raises; `.code` is the stable code, `.path` the path concerned (or None)."
);

/// One `LedgerError` subclass per code of `Error::CODES` (plus `panic`), named
/// after it (`non-utf8-path` → `NonUtf8PathError`) and made once per
/// interpreter: the core's list is the only table, so a new code gets its class
/// without an edit here.
static CLASSES: PyOnceLock<Vec<(&'static str, Py<PyType>)>> = PyOnceLock::new();

fn classes(py: Python<'_>) -> PyResult<&Vec<(&'static str, Py<PyType>)>> {
    CLASSES.get_or_try_init(py, || {
        let base = py.get_type::<LedgerError>();
        let codes = Error::CODES.iter().copied().chain([PANIC_CODE]);
        codes
            .map(|code| {
                let name = CString::new(format!("ledger.{}", class_name(code)))?;
                let doc = CString::new(format!(
                    "LedgerError of code '{code}' (see docs/errors.md for its cause and remedy)."
                ))?;
                let class = PyErr::new_type(py, &name, Some(&doc), Some(&base), None)?;
                class.bind(py).setattr("code", code)?;
                Ok((code, class))
            })
            .collect::<PyResult<Vec<_>>>()
    })
}

/// `non-utf8-path` → `NonUtf8PathError`.
pub fn class_name(code: &str) -> String {
    let mut name: String = code
        .split('-')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect();
    name.push_str("Error");
    name
}

/// The code of `PanicError`; not a core code, the core never panics on purpose.
pub const PANIC_CODE: &str = "panic";

/// Adds the exception classes to the module, each subclass with its `code` as
/// a class attribute. (`LedgerError` itself has none: it is raised only for a
/// code this binding does not know yet, and its instance then carries it.)
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let base = py.get_type::<LedgerError>();
    base.setattr("path", py.None())?;
    m.add("LedgerError", base)?;
    for (code, class) in classes(py)? {
        m.add(class_name(code), class.bind(py))?;
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
        .ok()
        .and_then(|all| all.iter().find(|(c, _)| *c == code))
        .map_or_else(
            || py.get_type::<LedgerError>(),
            |(_, class)| class.bind(py).clone(),
        );
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
/// tests can check the translation (`ledger._ledger._panic`). Only in a build
/// with the `test-hooks` feature: a release wheel has no way to panic on purpose.
#[cfg(feature = "test-hooks")]
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
