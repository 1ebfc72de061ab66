//! Artifact graphs: OpenSpec's spec-driven default or a `schema.yaml`.

use camino::Utf8Path;
use ledger_core::{ArtifactGraph, Error};
use napi::Env;
use napi_derive::napi;

use crate::error::Failure;
use crate::json::{Json, json};
use crate::task::block;

/// Where an artifact graph comes from; neither: OpenSpec's spec-driven schema.
#[napi(object)]
#[derive(Debug, Clone, Default)]
pub struct GraphOptions {
    /// A `schema.yaml` file to read.
    pub schema: Option<String>,
    /// The text of a `schema.yaml`.
    pub yaml: Option<String>,
    /// Where `yaml` came from, named in errors; default `<schema>`.
    pub source: Option<String>,
}

/// The artifact graph, checked (duplicate ids, unknown `requires`, cycles) and
/// in topological order.
#[napi(ts_return_type = "ArtifactGraph")]
pub fn artifact_graph(env: Env, options: Option<GraphOptions>) -> napi::Result<Json> {
    block(&env, || {
        let options = options.unwrap_or_default();
        let graph = match (&options.schema, &options.yaml) {
            (Some(_), Some(_)) => {
                return Err(Failure::Core(Error::InvalidArgument {
                    message: "give either schema (a file) or yaml (its text), not both".into(),
                }));
            }
            (Some(file), None) => ArtifactGraph::read(Utf8Path::new(file))?,
            (None, Some(text)) => ArtifactGraph::from_schema_yaml(
                text,
                options.source.as_deref().unwrap_or("<schema>"),
            )?,
            (None, None) => ArtifactGraph::spec_driven(),
        };
        json(&graph)
    })
}
