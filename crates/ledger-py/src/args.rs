//! Python arguments into owned Rust values: paths given as `str` or
//! `os.PathLike`, the scope keywords, texts taken exactly, and mappings.
//! Everything is extracted before the GIL is released, so the core never sees
//! a Python object.

use std::collections::BTreeMap;
use std::path::PathBuf;

use camino::Utf8PathBuf;
use ledger_core::{DisplayPath, Error, Scope, ScopeLists, TaskRule};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyMapping, PyString};

use crate::errors;

/// A path as UTF-8 text. The core works on UTF-8 paths only; anything else is
/// `NonUtf8PathError`, never a lossy name.
pub fn utf8(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    path.into_os_string().into_string().map_err(|raw| {
        let bytes = std::os::unix::ffi::OsStrExt::as_bytes(raw.as_os_str());
        let path = DisplayPath::from_bytes(bytes);
        errors::to_py(py, &Error::NonUtf8Path { path })
    })
}

/// A path argument (`str` or `os.PathLike`) as UTF-8 text ([`utf8`]).
pub fn path_text(arg: &Bound<'_, PyAny>) -> PyResult<String> {
    utf8(arg.py(), arg.extract()?)
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

/// `None`, one path, or an iterable of paths, as a list of UTF-8 texts. A
/// `str` is one path: iterating it would give one-character "paths".
fn paths(arg: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if arg.is_none() {
        return Ok(Vec::new());
    }
    if arg.is_instance_of::<PyString>() || arg.hasattr("__fspath__")? {
        return Ok(vec![path_text(arg)?]);
    }
    arg.try_iter()?.map(|item| path_text(&item?)).collect()
}

/// `exclude=`: paths (the reason the CLI records for `--exclude`, so that both
/// declare the same scope) or a mapping of path → reason.
fn exclusions(arg: &Bound<'_, PyAny>) -> PyResult<Vec<(String, Option<String>)>> {
    let Ok(mapping) = arg.cast::<PyMapping>() else {
        return Ok(paths(arg)?.into_iter().map(|p| (p, None)).collect());
    };
    let items = mapping.items()?;
    let pair = |item: Bound<'_, PyAny>| -> PyResult<_> {
        let (path, reason): (Bound<'_, PyAny>, String) = item.extract()?;
        Ok((path_text(&path)?, Some(reason)))
    };
    items.iter().map(pair).collect()
}

/// The scope a workspace and the scope keywords (`**scope`) of `Scope()`,
/// `fingerprint()` and `inventory()` declare — the keywords the CLI's scope
/// flags are: `repos`, `roots`, `paths`, `exclude`, `tasks`, `task_rule`,
/// `purpose`. Every path and the rule name are validated by the core.
pub fn scope(
    py: Python<'_>,
    workspace: PathArg,
    keywords: Option<&Bound<'_, PyDict>>,
) -> PyResult<Scope> {
    let mut lists = ScopeLists::default();
    let mut rule = TaskRule::default();
    for (key, value) in keywords.into_iter().flat_map(|k| k.iter()) {
        match key.extract::<String>()?.as_str() {
            "repos" => lists.repositories = paths(&value)?,
            "roots" => lists.roots = paths(&value)?,
            "paths" => lists.paths = paths(&value)?,
            "exclude" => lists.exclusions = exclusions(&value)?,
            "tasks" => lists.tasks = paths(&value)?,
            "task_rule" => {
                rule = task_rule_or_default(py, value.extract::<Option<String>>()?.as_deref())?
            }
            "purpose" => lists.purpose = value.extract()?,
            other => {
                return Err(PyTypeError::new_err(format!(
                    "unexpected keyword argument '{other}': a scope takes repos, roots, paths, exclude, tasks, task_rule and purpose"
                )));
            }
        }
    }
    let workspace = Utf8PathBuf::from(workspace.0);
    errors::run(py, || Scope::from_lists_with(workspace, &lists, rule))
}

/// A task rule by name (docs/format.md §4): `task-checkbox-v1` or
/// `openspec-checkbox`; any other name is the core's `InvalidArgumentError`.
pub fn task_rule(py: Python<'_>, name: &str) -> PyResult<TaskRule> {
    errors::run(py, || name.parse())
}

/// An optional rule name (`None`: the default, `task-checkbox-v1`).
pub fn task_rule_or_default(py: Python<'_>, name: Option<&str>) -> PyResult<TaskRule> {
    name.map_or(Ok(TaskRule::default()), |name| task_rule(py, name))
}

/// A `str` as exact UTF-8 text. One that is not valid Unicode (lone
/// surrogates) cannot be recorded byte-exactly: it is `NonUtf8ValueError`
/// naming its bytes (as `os.fsencode` gives them), never replaced by U+FFFD.
pub fn exact_text(value: &Bound<'_, PyString>, what: &str) -> PyResult<String> {
    if let Ok(text) = value.extract::<String>() {
        return Ok(text);
    }
    let encoded = value
        .call_method1("encode", ("utf-8", "surrogateescape"))
        .or_else(|_| value.call_method1("encode", ("utf-8", "surrogatepass")))?;
    let bytes = encoded.cast::<PyBytes>()?.as_bytes();
    let error = Error::NonUtf8Value {
        what: what.to_owned(),
        value: DisplayPath::from_bytes(bytes).0,
    };
    Err(errors::to_py(value.py(), &error))
}

/// An iterable of `str` (a list, a tuple, a generator...), each as exact text
/// ([`exact_text`]). A bare `str` is refused: iterating it would give its
/// characters.
pub fn texts(arg: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<String>> {
    if arg.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "expected an iterable of str, not a str",
        ));
    }
    arg.try_iter()?
        .map(|item| exact_text(item?.cast::<PyString>()?, what))
        .collect()
}

/// Any mapping (`dict` or another `collections.abc.Mapping`) of `str` keys,
/// with values converted by `value`, ordered by key.
pub fn mapping<'py, T>(
    arg: &Bound<'py, PyAny>,
    value: impl Fn(&Bound<'py, PyAny>) -> PyResult<T>,
) -> PyResult<BTreeMap<String, T>> {
    let items = arg.cast::<PyMapping>()?.items()?;
    let pair = |item: Bound<'py, PyAny>| {
        let (key, v): (String, Bound<'py, PyAny>) = item.extract()?;
        Ok((key, value(&v)?))
    };
    items.iter().map(pair).collect()
}
