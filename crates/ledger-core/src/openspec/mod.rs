//! The OpenSpec wing: OpenSpec's own model, read as its CLI 1.13 reads it —
//! artifact schemas and their dependency graph ([`ArtifactGraph`], resolved by
//! name or path), a change's directory and artifacts ([`ChangeSet`]), the
//! project's and change's configuration, the materials an artifact's inventory
//! holds, and the spec sync of an archive (`spec_sync`, a port of
//! `specs-apply`).
//!
//! It stands on the expansion and tasks wings and knows nothing of the
//! record store, approvals, gates or the lifecycle.
//!
//! ```
//! use ledger_core::openspec::ArtifactGraph;
//!
//! let graph = ArtifactGraph::spec_driven();
//! assert_eq!(graph.upstream("tasks"), ["proposal", "specs", "design"]);
//! ```

pub(crate) mod change_config;
pub(crate) mod change_set;
pub(crate) mod graph;
pub(crate) mod materials;
pub(crate) mod schema;
pub mod spec_sync;
pub(crate) mod yaml;

pub use change_config::{CHANGE_METADATA, ChangeSettings, ProjectConfig};
pub use change_set::{
    ARCHIVE_DIR, ChangeLocation, ChangeSet, DEFAULT_CHANGES_ROOT, SchemaChoice, capabilities,
    changes_on_disk, specs_root,
};
pub use graph::{
    Artifact, ArtifactGraph, BUILTIN_SCHEMAS, DEFAULT_SCHEMA, OPENSPEC_VERSION, SPEC_DRIVEN_YAML,
    SchemaSource,
};
pub use schema::{NameOrigin, SchemaRequest, resolve, resolve_name};
