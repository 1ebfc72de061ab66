//! The `__repr__` of the classes: `Name(field=value, ...)` with the values'
//! own Python `repr()`, read from the attributes Python sees, so that a class
//! only names the fields worth showing.

use pyo3::prelude::*;
use pyo3::types::PyTypeMethods;

/// `Name(a=repr(obj.a), b=repr(obj.b))` for the attributes `names` of `obj`.
pub fn fields<T>(obj: &Bound<'_, T>, names: &[&str]) -> PyResult<String> {
    let obj = obj.as_any();
    let shown = names
        .iter()
        .map(|name| Ok(format!("{name}={}", obj.getattr(*name)?.repr()?)))
        .collect::<PyResult<Vec<_>>>()?;
    let class = obj.get_type().name()?;
    Ok(format!("{class}({})", shown.join(", ")))
}
