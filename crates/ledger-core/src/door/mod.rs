//! The top floor: what every front door (Python, Node) shares.
//!
//! A door does not describe ledger's types or verbs: it calls [`respond`] with
//! a workspace path, a verb's name and the verb's options as JSON, and gets
//! JSON back. Each verb is one Rust function `fn(&Workspace, Options) ->
//! Result<Output>` (or `fn(Options) -> Result<Output>` for a free verb), its
//! options a small `Deserialize + JsonSchema` struct of this module and its
//! output one of the core's own result types. [`description`] lists every verb
//! with the JSON Schemas of its options and output and every error code: the
//! one input of the generator (`examples/door_gen.rs`) that writes the typed
//! Python and JavaScript wrappers, so a field added to a result is one edit
//! here plus regeneration.
//!
//! The doors differ in one thing only, the spelling of struct field names
//! ([`Case`]): `snake_case` in Python, `camelCase` in JavaScript; map keys
//! (paths, metadata keys, environment names) are never renamed.
//!
//! ```
//! use ledger_core::door::{Case, Hooks, respond};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("proposal.md"), "# Why\n")?;
//! let workspace = dir.path().to_str().ok_or("non-UTF-8 temp dir")?;
//!
//! let reply = respond(Some(workspace), "inventory", r#"{"roots": ["."]}"#, Case::Camel, &Hooks::default());
//! let reply: serde_json::Value = serde_json::from_str(&reply)?;
//! assert_eq!(reply["ok"]["entries"][0]["path"], "proposal.md");
//! assert!(reply["ok"]["walkedRoots"].is_array());
//!
//! let reply = respond(Some(workspace), "inventory", r#"{"root": "."}"#, Case::Camel, &Hooks::default());
//! let reply: serde_json::Value = serde_json::from_str(&reply)?;
//! assert_eq!(reply["error"]["code"], "invalid-argument");
//! # Ok(())
//! # }
//! ```

use std::any::{Any, TypeId};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use camino::{Utf8Path, Utf8PathBuf};
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::{
    Error, Result, Settings,
    expand::Scope,
    gate::Interrupt,
    openspec::{ChangeSet, DEFAULT_CHANGES_ROOT},
    records::Store,
};

pub mod agent;
pub mod cancel;
mod case;
mod schema;
pub mod text;

// -- concept modules -- (one line per concept file)
mod approval;
mod expand;
mod gate;
mod lifecycle;
mod openspec;
mod records;
mod resume;
mod scope;
mod settings;
mod store;
mod tasks;
mod verdict;
// -- end of concept modules --

pub use crate::bytes::Bytes;
pub use case::{Case, CaseSerializer, camel, from_value, to_json};
pub use expand::{Exclude, ScopeOptions};

/// The code of an error that is a panic caught at the door: a bug in ledger,
/// reported instead of unwinding into the host. Not one of [`Error::CODES`].
pub const PANIC: &str = "panic";

/// What the host offers the verbs it calls: the means to stop a long verb.
#[derive(Clone, Default)]
pub struct Hooks {
    /// Asked while a gate runs: `true` stops it (Python's Ctrl-C on the main
    /// thread); `None` when the host has no such signal.
    pub interrupt: Option<Interrupt>,
    /// The caller's cancellation token ([`cancel::new_token`]), if it gave
    /// one: cancelled, it stops the call's gate as `interrupt` does, and the
    /// call fails with `cancelled`.
    pub cancel: Option<u64>,
}

/// A workspace named once, with its store: every verb that concerns a
/// workspace gets this, and a change it names is opened in it, so a workspace
/// and a change cannot come from two places.
pub struct Workspace {
    path: Utf8PathBuf,
    /// Its settings: every scope, store and change it opens carries them.
    settings: Settings,
    store: std::sync::OnceLock<Store>,
    hooks: Hooks,
    /// The flag of the call's cancellation token, if it has one.
    cancel: Option<Arc<AtomicBool>>,
    /// Set once the host's interrupt or the token said stop: from then on the
    /// call stops every gate it would run (a run of every declared gate
    /// starts none after the one that was stopped), although Python's signal
    /// check answers a Ctrl-C only once.
    stopped: Arc<AtomicBool>,
    warnings: Mutex<Vec<Warning>>,
}

/// A warning a verb gives its caller: a stable `code` (Node's
/// `process.emitWarning` code) and the one-line message.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Warning {
    /// The stable code (`task-rule`).
    pub code: &'static str,
    /// What the caller is told.
    pub message: String,
}

impl Workspace {
    /// The workspace at `path` (relative paths are the process's, resolved by
    /// each verb as the core resolves a scope's workspace).
    pub fn new(path: impl Into<Utf8PathBuf>, hooks: Hooks) -> Workspace {
        let path = path.into();
        Workspace {
            store: std::sync::OnceLock::new(),
            settings: Settings::default(),
            path,
            hooks,
            cancel: None,
            stopped: Arc::new(AtomicBool::new(false)),
            warnings: Mutex::new(Vec::new()),
        }
    }

    /// This workspace with `settings` (checked: `invalid-argument` names a
    /// bad one) instead of the default ones.
    pub fn with_settings(mut self, settings: Settings) -> Result<Workspace> {
        settings.check()?;
        self.settings = settings;
        Ok(self)
    }

    /// The workspace's settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// This workspace for a call given the cancellation token `id`
    /// (`invalid-argument` when no such token is registered).
    fn with_cancel(mut self, id: Option<u64>) -> Result<Workspace> {
        self.cancel = id.map(cancel::token_of_call).transpose()?;
        Ok(self)
    }

    /// The workspace directory as the caller named it.
    pub fn path(&self) -> &Utf8Path {
        &self.path
    }

    /// The workspace's record store ([`Store::open`]), opened on first use.
    pub fn store(&self) -> Result<&Store> {
        if let Some(store) = self.store.get() {
            return Ok(store);
        }
        let store = Store::open(&self.path)?.with_settings(self.settings.clone());
        Ok(self.store.get_or_init(|| store))
    }

    /// The scope `options` declare in this workspace, with its settings.
    pub fn scope(&self, options: &ScopeOptions) -> Result<Scope> {
        Ok(options
            .to_scope(&self.path)?
            .with_settings(self.settings.clone()))
    }

    /// The change `name` of this workspace, under `changes_root` (default
    /// `openspec/changes`), with the artifact graph of `schema` (default: the
    /// change's or the project's, else spec-driven).
    pub fn change(
        &self,
        name: &str,
        changes_root: Option<&str>,
        schema: Option<&str>,
    ) -> Result<ChangeSet> {
        let root = changes_root.unwrap_or(DEFAULT_CHANGES_ROOT);
        Ok(ChangeSet::open(self.path.clone(), name, root, schema)?
            .with_settings(self.settings.clone()))
    }

    /// Passes a warning to the caller (Python's `warnings`, Node's
    /// `process.emitWarning`), after the verb returns.
    /// `code` is stable (callers filter on it); `message` is for people.
    pub fn warn(&self, code: &'static str, message: impl Into<String>) {
        let mut warnings = self.warnings.lock().unwrap_or_else(|p| p.into_inner());
        warnings.push(Warning {
            code,
            message: message.into(),
        });
    }

    /// The host's interrupt check joined with the call's cancellation token,
    /// for a verb that runs a long command; `None` when the call has neither.
    /// Once it has said stop, it says so for the rest of the call.
    pub fn interrupt(&self) -> Option<Interrupt> {
        let host = self.hooks.interrupt.clone();
        let token = self.cancel.clone();
        if host.is_none() && token.is_none() {
            return None;
        }
        let stopped = Arc::clone(&self.stopped);
        Some(Arc::new(move || {
            if stopped.load(Ordering::SeqCst) {
                return true;
            }
            let asked = token.as_ref().is_some_and(|t| t.load(Ordering::SeqCst))
                || host.as_ref().is_some_and(|asks| asks());
            if asked {
                stopped.store(true, Ordering::SeqCst);
            }
            asked
        }))
    }

    /// `cancelled` when the call's token was cancelled already, for a verb
    /// about to run `gate`: asked before anything runs (a prerequisite
    /// command included), so that an aborted call does nothing at all.
    pub fn refuse_if_cancelled(&self, gate: &str) -> Result<()> {
        match self
            .cancel
            .as_ref()
            .is_some_and(|t| t.load(Ordering::SeqCst))
        {
            true => Err(Error::Cancelled {
                gate: gate.to_owned(),
                record: None,
            }),
            false => Ok(()),
        }
    }
}

/// The options of a verb that takes none.
#[derive(Debug, Default, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoOptions {}

/// A verb's text renderer, `fn(&Output) -> String`, kept untyped beside the
/// verb's type-erased run (the run asks for it back by its type).
type Renderer = Box<dyn Any + Send + Sync>;

type Run =
    Box<dyn Fn(Option<&Workspace>, Value, Case, Option<&Renderer>) -> Result<Answer> + Send + Sync>;

/// What a verb's run gives back: its output as JSON, and as text when the
/// caller asked for the text and the verb has a renderer ([`Verb::shown`]).
struct Answer {
    json: String,
    text: Option<String>,
}

/// One verb of the doors: its name, how it is called and what it returns.
pub struct Verb {
    name: &'static str,
    positional: &'static [&'static str],
    method: bool,
    cancellable: bool,
    options: fn(&mut SchemaGenerator) -> Schema,
    output: fn(&mut SchemaGenerator) -> Schema,
    /// The output type's id, which a renderer must take ([`Verb::shown`]).
    #[cfg_attr(not(test), expect(dead_code, reason = "read by the registry's test"))]
    output_type: TypeId,
    /// Its output as text ([`text`]), for the agent's door; `None` for a verb
    /// whose output a model reads as its fields.
    renderer: Option<(TypeId, Renderer)>,
    run: Run,
}

fn schema_of<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

impl Verb {
    /// A verb of a workspace (`ws.name(...)` in the doors). `positional`: the
    /// leading option fields the doors take as positional parameters, in
    /// order (each a required field); the others are keywords / the trailing
    /// options object. The verb's doc is its options type's doc comment.
    pub fn method<O, T>(
        name: &'static str,
        positional: &'static [&'static str],
        verb: fn(&Workspace, O) -> Result<T>,
    ) -> Verb
    where
        O: DeserializeOwned + JsonSchema + 'static,
        T: Serialize + JsonSchema + 'static,
    {
        Verb {
            name,
            positional,
            method: true,
            cancellable: false,
            options: schema_of::<O>,
            output: schema_of::<T>,
            output_type: TypeId::of::<T>(),
            renderer: None,
            run: Box::new(move |workspace, options, case, renderer| {
                // Messages name the verb as the caller calls it (`checkGate`).
                let shown = case.field(name);
                let workspace = workspace.ok_or_else(|| Error::InvalidArgument {
                    message: format!("`{shown}` is a verb of a workspace: name one"),
                })?;
                let options = case::from_value(options, case, shown)?;
                answer(&verb(workspace, options)?, case, renderer)
            }),
        }
    }

    /// A verb that needs no workspace (a module-level function in Python, an
    /// exported function in JavaScript).
    pub fn free<O, T>(
        name: &'static str,
        positional: &'static [&'static str],
        verb: fn(O) -> Result<T>,
    ) -> Verb
    where
        O: DeserializeOwned + JsonSchema + 'static,
        T: Serialize + JsonSchema + 'static,
    {
        Verb {
            name,
            positional,
            method: false,
            cancellable: false,
            options: schema_of::<O>,
            output: schema_of::<T>,
            output_type: TypeId::of::<T>(),
            renderer: None,
            run: Box::new(move |_, options, case, renderer| {
                let options = case::from_value(options, case, case.field(name))?;
                answer(&verb(options)?, case, renderer)
            }),
        }
    }

    /// This verb, taking a cancellation token: it runs a gate's command, and
    /// the doors give it Python's `cancel=` and Node's `signal` option
    /// ([`cancel`]).
    pub fn cancellable(self) -> Verb {
        Verb {
            cancellable: true,
            ..self
        }
    }

    /// This verb, its output rendered as text by `render` (one of [`text`]'s
    /// functions) where a caller asks for text: the agent's door. `T` must be
    /// the verb's output type (a test of the registry holds every verb to it).
    pub fn shown<T: 'static>(self, render: fn(&T) -> String) -> Verb {
        Verb {
            renderer: Some((TypeId::of::<T>(), Box::new(render))),
            ..self
        }
    }

    /// The verb's name, snake_case (`run_gate`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Runs the verb with `options` (field names in snake_case) on `ws`: its
    /// output as JSON and, when it has a renderer, as text.
    fn run_shown(&self, ws: &Workspace, options: Value) -> Result<(String, Option<String>)> {
        let renderer = self.renderer.as_ref().map(|(_, render)| render);
        let answer = (self.run)(Some(ws), options, Case::Snake, renderer)?;
        Ok((answer.json, answer.text))
    }
}

/// A verb's output as JSON in `case`, and as text when `renderer` is its
/// output type's renderer.
fn answer<T: Serialize + 'static>(
    output: &T,
    case: Case,
    renderer: Option<&Renderer>,
) -> Result<Answer> {
    let render = renderer.and_then(|r| r.downcast_ref::<fn(&T) -> String>());
    Ok(Answer {
        json: serialize(output, case)?,
        text: render.map(|render| render(output)),
    })
}

fn serialize<T: Serialize>(output: &T, case: Case) -> Result<String> {
    // The core's result types serialize to JSON without fail (no maps with
    // non-string keys, no non-finite floats); a failure is still an error,
    // never a panic.
    case::to_json(output, case).map_err(|e| Error::InvalidArgument {
        message: format!("the result cannot be written as JSON: {e}"),
    })
}

/// Every verb of the doors, by concept.
pub fn registry() -> &'static [Verb] {
    static VERBS: OnceLock<Vec<Verb>> = OnceLock::new();
    VERBS.get_or_init(|| {
        [
            // -- registry -- (one line per concept file)
            agent::verbs(),
            expand::verbs(),
            approval::verbs(),
            scope::verbs(),
            records::verbs(),
            store::verbs(),
            openspec::verbs(),
            lifecycle::verbs(),
            gate::verbs(),
            resume::verbs(),
            tasks::verbs(),
            settings::verbs(),
            verdict::verbs(),
            // -- end of registry --
            #[cfg(feature = "test-hooks")]
            vec![Verb::free("_panic", &["message"], panic_for_test)],
        ]
        .into_iter()
        .flatten()
        .collect()
    })
}

/// A real panic inside a verb, for the doors' tests of its translation
/// (feature `test-hooks`, which only their test builds turn on; the
/// generator leaves verbs named `_…` out of the typed APIs).
#[cfg(feature = "test-hooks")]
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PanicOptions {
    /// What the panic says.
    pub message: String,
}

#[cfg(feature = "test-hooks")]
#[allow(clippy::panic)]
fn panic_for_test(options: PanicOptions) -> Result<()> {
    panic!("{}", options.message)
}

/// What a verb returned: its output as JSON text (in the door's case) and
/// the warnings it gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The output, JSON.
    pub json: String,
    /// Warnings for the caller, in order.
    pub warnings: Vec<Warning>,
}

/// Runs `verb` with `options_json` (a JSON object, field names in `case`) on
/// `workspace` (`None` for a free verb) and returns its output as JSON. The
/// workspace has the default settings: [`call_with`] gives others.
pub fn call(
    workspace: Option<&Utf8Path>,
    verb: &str,
    options_json: &str,
    case: Case,
    hooks: &Hooks,
) -> Result<Reply> {
    call_with(workspace, None, verb, options_json, case, hooks)
}

/// [`call`] on a workspace of `settings_json`: its [`Settings`] as JSON (as
/// the verb `workspace_settings` returns them, field names in `case`), the
/// default ones when `None`. A bad setting is `invalid-argument`, naming it.
pub fn call_with(
    workspace: Option<&Utf8Path>,
    settings_json: Option<&str>,
    verb: &str,
    options_json: &str,
    case: Case,
    hooks: &Hooks,
) -> Result<Reply> {
    let entry =
        (registry().iter().find(|v| v.name == verb)).ok_or_else(|| Error::InvalidArgument {
            message: format!("unknown verb `{}`", crate::quote::escape(verb.as_bytes())),
        })?;
    let options = case::parse_options(options_json, case.field(entry.name))?;
    let settings = settings_json
        .map(|json| settings::parse(json, case))
        .transpose()?
        .unwrap_or_default();
    let workspace = workspace
        .map(|path| {
            Workspace::new(path, hooks.clone())
                .with_settings(settings)?
                .with_cancel(hooks.cancel)
        })
        .transpose()?;
    let json = (entry.run)(workspace.as_ref(), options, case, None)?.json;
    let warnings = workspace
        .map(|ws| ws.warnings.into_inner().unwrap_or_else(|p| p.into_inner()))
        .unwrap_or_default();
    Ok(Reply { json, warnings })
}

/// [`call`] as the native side of a door uses it: never fails, never panics.
/// The reply is JSON text, `{"ok": <output>}` (with `"warnings": [...]` when
/// there are any) or `{"error": {"code", "message", "path"}}`; a panic is the
/// error of code [`PANIC`].
pub fn respond(
    workspace: Option<&str>,
    verb: &str,
    options_json: &str,
    case: Case,
    hooks: &Hooks,
) -> String {
    respond_with(workspace, None, verb, options_json, case, hooks)
}

/// [`respond`] on a workspace of `settings_json` ([`call_with`]): what the
/// native side of each binding calls, with the settings its `Workspace` holds.
pub fn respond_with(
    workspace: Option<&str>,
    settings_json: Option<&str>,
    verb: &str,
    options_json: &str,
    case: Case,
    hooks: &Hooks,
) -> String {
    let result = catch_unwind(AssertUnwindSafe(|| {
        call_with(
            workspace.map(Utf8Path::new),
            settings_json,
            verb,
            options_json,
            case,
            hooks,
        )
    }));
    match result {
        Ok(Ok(reply)) if reply.warnings.is_empty() => format!("{{\"ok\":{}}}", reply.json),
        Ok(Ok(reply)) => format!(
            "{{\"ok\":{},\"warnings\":{}}}",
            reply.json,
            serde_json::to_value(&reply.warnings).unwrap_or_default()
        ),
        Ok(Err(error)) => failure(error.code(), &error.to_string(), error.path()),
        Err(payload) => {
            let message = (payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic payload".to_owned());
            let message =
                format!("ledger panicked: {message}; this is a bug in ledger, please report it");
            failure(PANIC, &message, None)
        }
    }
}

fn failure(code: &str, message: &str, path: Option<&str>) -> String {
    json!({ "error": { "code": code, "message": message, "path": path } }).to_string()
}

/// Every verb (name, doc, whether it is a workspace's, whether it takes a
/// cancellation token, positional fields, options and output schemas) and every error code, as JSON: what the
/// generator reads. Option schemas describe what is read (defaults, required
/// fields), output schemas what is written; their definitions are under
/// `/options` and `/outputs`, where their `$ref`s point.
pub fn description() -> Value {
    let settings = |path: &'static str| {
        SchemaSettings::draft2020_12().with(|s| {
            s.definitions_path = path.into();
            s.meta_schema = None;
        })
    };
    let mut options = settings("/options").for_deserialize().into_generator();
    let mut outputs = settings("/outputs").for_serialize().into_generator();
    let verbs: Vec<Value> = registry()
        .iter()
        .map(|verb| {
            let options_schema = (verb.options)(&mut options);
            let output_schema = (verb.output)(&mut outputs);
            let doc = reference_name(&options_schema)
                .and_then(|name| options.definitions().get(name))
                .and_then(|def| def.get("description"))
                .cloned()
                .unwrap_or_default();
            json!({
                "name": verb.name,
                "doc": doc,
                "workspace": verb.method,
                "cancellable": verb.cancellable,
                "positional": verb.positional,
                "options": options_schema,
                "output": output_schema,
            })
        })
        .collect();
    let mut errors: Vec<&str> = Error::CODES.to_vec();
    errors.push(PANIC);
    json!({
        "verbs": verbs,
        "constants": constants(&errors),
        "options": options.take_definitions(true),
        "outputs": outputs.take_definitions(true),
        "errors": errors,
    })
}

/// The values both doors export under the same names (with a doc each).
fn constants(errors: &[&str]) -> Value {
    let rules: Vec<&str> = crate::tasks::TaskRule::ALL
        .iter()
        .map(|r| r.as_str())
        .collect();
    let constant = |value: Value, doc: &str| json!({ "value": value, "doc": doc });
    json!({
        "DEFAULT_CHANGES_ROOT": constant(json!(crate::openspec::DEFAULT_CHANGES_ROOT), "Where OpenSpec changes live, relative to the workspace, unless a verb is told otherwise."),
        "DEFAULT_EXCLUSION_REASON": constant(json!(crate::expand::DEFAULT_EXCLUSION_REASON), "The reason recorded for an exclusion given without one."),
        "DEFAULT_SCHEMA": constant(json!(crate::openspec::DEFAULT_SCHEMA), "The artifact schema OpenSpec uses when nothing names one."),
        "ERROR_CODES": constant(json!(errors), "Every code a LedgerError can carry (the core's, and `panic`)."),
        "FORMAT_V1": constant(json!(crate::expand::FORMAT_V1), "The prefix of the v1 fingerprint stream (docs/format.md)."),
        "MAX_THREADS": constant(json!(crate::expand::MAX_THREADS), "The most reader threads a workspace's `threads` setting accepts."),
        "RECORD_FORMAT": constant(json!(crate::records::RECORD_FORMAT), "The `format` of an inventory record."),
        "RECORD_VERSION": constant(json!(crate::records::RECORD_VERSION), "The `version` of the inventory records this version writes."),
        "STORE_DIR": constant(json!(crate::expand::STORE_DIR), "The record store's directory in a workspace (always excluded from scopes)."),
        "TASK_RULES": constant(json!(rules), "The names of the task rules, in order (docs/format.md §4)."),
    })
}

/// The definition a `{"$ref": "#/options/Name"}` schema names.
fn reference_name(schema: &Schema) -> Option<&str> {
    let reference = schema.get("$ref")?.as_str()?;
    reference.rsplit_once('/').map(|(_, name)| name)
}

/// What the concept files' tests share: a call through [`respond`], as a door
/// makes it, and the code of a failed reply.
#[cfg(test)]
pub(crate) mod testing {
    #![allow(clippy::unwrap_used)]
    use serde_json::Value;

    use super::{Case, Hooks, respond};

    /// The reply of `verb` with `options` in the workspace `dir`, as JSON.
    pub(crate) fn call(dir: &tempfile::TempDir, verb: &str, options: Value, case: Case) -> Value {
        let ws = dir.path().to_str().unwrap();
        let reply = respond(
            Some(ws),
            verb,
            &options.to_string(),
            case,
            &Hooks::default(),
        );
        serde_json::from_str(&reply).unwrap()
    }

    /// The error code of a reply, `(none)` when it succeeded.
    pub(crate) fn code(reply: &Value) -> &str {
        reply["error"]["code"].as_str().unwrap_or("(none)")
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A renderer is kept untyped beside its verb; one that takes another
    /// type than the verb's output would never be asked (its text silently
    /// the fields'), so the registry holds each to its verb's output.
    #[test]
    fn every_renderer_takes_its_verb_s_output() {
        for verb in registry() {
            if let Some((takes, _)) = &verb.renderer {
                assert_eq!(*takes, verb.output_type, "the renderer of `{}`", verb.name);
            }
        }
    }

    #[test]
    fn every_verb_is_named_once_and_its_positionals_are_required_fields() {
        let description = description();
        let mut names = std::collections::BTreeSet::new();
        for verb in description["verbs"].as_array().unwrap() {
            let name = verb["name"].as_str().unwrap();
            assert!(names.insert(name), "{name} registered twice");
            assert!(
                !verb["doc"].as_str().unwrap_or("").is_empty(),
                "{name} has no doc (its options type's doc comment)"
            );
            // A transparent options type refers to the struct it wraps.
            let mut options = verb["options"].clone();
            while let Some(reference) = options["$ref"].as_str() {
                let name = reference.rsplit_once('/').unwrap().1;
                options = description["options"][name].clone();
            }
            assert_eq!(
                options["additionalProperties"], false,
                "{name}'s options must deny unknown fields"
            );
            let required = options["required"].as_array().cloned().unwrap_or_default();
            for field in verb["positional"].as_array().unwrap() {
                assert!(
                    required.contains(field),
                    "{name}: positional {field} is not a required field"
                );
            }
        }
        assert!(names.contains("fingerprint") && names.contains("status"));
        assert_eq!(
            description["errors"].as_array().unwrap().len(),
            Error::CODES.len() + 1
        );
    }

    #[test]
    fn unknown_verbs_and_missing_workspaces_are_invalid_arguments() {
        let hooks = Hooks::default();
        let reply: Value =
            serde_json::from_str(&respond(None, "no_such", "{}", Case::Snake, &hooks)).unwrap();
        assert_eq!(reply["error"]["code"], "invalid-argument");
        assert!(
            reply["error"]["message"]
                .as_str()
                .unwrap()
                .contains("`no_such`")
        );
        let reply: Value =
            serde_json::from_str(&respond(None, "status", "{}", Case::Snake, &hooks)).unwrap();
        assert_eq!(reply["error"]["code"], "invalid-argument");
        assert_eq!(reply["error"]["path"], Value::Null);
    }
}
