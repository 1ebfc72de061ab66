//! Rich results (approval status, freshness, store reports, ...) as plain
//! JavaScript objects: the core's own serde form, field for field the JSON the
//! CLI prints with `--json`. Their TypeScript interfaces are in
//! `types-header.d.ts`, which `napi build` puts at the top of `index.d.ts`.

use napi::bindgen_prelude::{ToNapiValue, TypeName};
use napi::{ValueType, sys};
use serde::Serialize;

use crate::error::Failure;

/// A serialized core value, converted to a JS object on the JavaScript thread.
pub struct Json(serde_json::Value);

/// Serializes a core value. The core's types have string map keys only, so
/// this cannot fail; if it ever did, that would be a bug, reported as one.
pub fn json<T: Serialize>(value: &T) -> Result<Json, Failure> {
    serde_json::to_value(value)
        .map(Json)
        .map_err(|e| Failure::Panic(format!("cannot serialize a result: {e}")))
}

impl TypeName for Json {
    fn type_name() -> &'static str {
        "object"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

// The only unsafe item of the binding: napi-rs declares its conversion trait
// `unsafe` (it works on raw handles). The body only delegates to napi-rs's own
// conversion of `serde_json::Value`, with the arguments it was given.
#[allow(unsafe_code)]
impl ToNapiValue for Json {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> napi::Result<sys::napi_value> {
        // SAFETY: `env` is the live environment napi-rs passed to this call.
        unsafe { serde_json::Value::to_napi_value(env, val.0) }
    }
}
