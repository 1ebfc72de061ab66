//! Python arguments into owned Rust values: paths given as `str` or
//! `os.PathLike`, and path collections. Everything is extracted before the GIL
//! is released, so the core never sees a Python object.

use std::collections::BTreeMap;
use std::path::PathBuf;

use ledger_core::{DisplayPath, Error};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyMapping, PyString};

use crate::errors;

/// A path argument (`str` or `os.PathLike`) as UTF-8 text. The core works on
/// UTF-8 paths only; anything else is `NonUtf8PathError`, never a lossy name.
pub fn path_text(arg: &Bound<'_, PyAny>) -> PyResult<String> {
    let path: PathBuf = arg.extract()?;
    path.into_os_string().into_string().map_err(|raw| {
        let bytes = std::os::unix::ffi::OsStrExt::as_bytes(raw.as_os_str());
        errors::to_py(
            arg.py(),
            &Error::NonUtf8Path {
                path: DisplayPath::from_bytes(bytes),
            },
        )
    })
}

/// A path argument extracted as UTF-8 text (see [`path_text`]).
pub struct PathArg(pub String);

impl PathArg {
    /// The default workspace of the Python API: the current directory.
    pub fn dot() -> Self {
        PathArg(".".to_owned())
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for PathArg {
    type Error = PyErr;

    fn extract(obj: pyo3::Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        path_text(&obj).map(PathArg)
    }
}

/// Whether `arg` is one path rather than a collection of them (a `str` is
/// iterable, but iterating it would give one-character "paths").
fn is_single_path(arg: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(arg.is_instance_of::<PyString>() || arg.hasattr("__fspath__")?)
}

/// `None`, one path, or an iterable of paths, as a list of UTF-8 texts.
pub fn path_list(arg: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<String>> {
    let Some(arg) = arg.filter(|a| !a.is_none()) else {
        return Ok(Vec::new());
    };
    if is_single_path(arg)? {
        return Ok(vec![path_text(arg)?]);
    }
    arg.try_iter()?
        .map(|item| path_text(&item?))
        .collect::<PyResult<_>>()
}

/// The reason recorded for an exclusion given without one. It is the text the
/// CLI records for `--exclude`, so that a scope declared here equals the same
/// scope declared on the command line (gate evidence compares scopes).
pub use ledger_core::DEFAULT_EXCLUSION_REASON;

/// `exclude=`: `None`, one path, an iterable of paths (default reason), or a
/// mapping of path → reason.
pub fn exclusions(arg: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<(String, String)>> {
    let Some(arg) = arg.filter(|a| !a.is_none()) else {
        return Ok(Vec::new());
    };
    if let Ok(mapping) = arg.cast::<PyMapping>() {
        return mapping
            .items()?
            .iter()
            .map(|item| {
                let (path, reason): (Bound<'_, PyAny>, String) = item.extract()?;
                Ok((path_text(&path)?, reason))
            })
            .collect();
    }
    Ok(path_list(Some(arg))?
        .into_iter()
        .map(|path| (path, DEFAULT_EXCLUSION_REASON.to_owned()))
        .collect())
}

/// `text` as Python's `repr()` writes it, for `__repr__` methods.
pub fn quoted(py: Python<'_>, text: &str) -> String {
    PyString::new(py, text)
        .repr()
        .map_or_else(|_| format!("{text:?}"), |r| r.to_string())
}

/// `True` / `False`, for `__repr__` methods.
pub fn py_bool(value: bool) -> &'static str {
    if value { "True" } else { "False" }
}

/// An iterable of `str` (a list, a tuple, a generator...) as owned strings.
/// A bare `str` is refused: iterating it would give its characters.
pub fn strings(arg: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if arg.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "expected an iterable of str, not a str",
        ));
    }
    arg.try_iter()?.map(|item| item?.extract()).collect()
}

/// Any mapping (`dict` or another `collections.abc.Mapping`) of `str` keys,
/// with values converted by `value`, ordered by key.
pub fn mapping<'py, T>(
    arg: &Bound<'py, PyAny>,
    value: impl Fn(&Bound<'py, PyAny>) -> PyResult<T>,
) -> PyResult<BTreeMap<String, T>> {
    let mapping = arg.cast::<PyMapping>()?;
    mapping
        .items()?
        .iter()
        .map(|item| {
            let (key, v): (String, Bound<'py, PyAny>) = item.extract()?;
            Ok((key, value(&v)?))
        })
        .collect()
}
