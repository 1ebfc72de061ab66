"""Type stubs of the native module ``ledger._ledger`` (checked by ``mypy.stubtest``)."""

import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, ClassVar, Final, Literal, Optional, TypedDict, Union, final, type_check_only

from typing_extensions import Unpack

_StrPath = Union[str, "os.PathLike[str]"]
"""A path: ``str`` or ``os.PathLike`` (e.g. ``pathlib.Path``), valid UTF-8."""
_Paths = Union[_StrPath, Iterable[_StrPath], None]
"""One path, an iterable of paths, or ``None`` (nothing)."""
_Exclusions = Union[_StrPath, Iterable[_StrPath], Mapping[_StrPath, str], None]
"""_Paths to exclude (with the default reason) or a mapping of path to reason."""

@type_check_only
class _ScopeKeywords(TypedDict, total=False):
    """The scope keywords of ``Scope()``, ``fingerprint()`` and ``inventory()``:
    the CLI's scope flags (``--repo``, ``--root``, ``--path``, ``--exclude``,
    ``--tasks``, ``--task-rule``, ``--purpose``); any other keyword is a ``TypeError``."""

    repos: _Paths
    roots: _Paths
    paths: _Paths
    exclude: _Exclusions
    tasks: _Paths
    task_rule: Optional[_TaskRule]
    purpose: str

_EntryParts = Union["Entry", tuple[str, str, str, str], Iterable[str]]
"""An ``Entry`` or ``(path, kind, mode, digest)``."""
_Argv = Union[list[str], tuple[str, ...]]
"""A command and its arguments. Not ``Iterable[str]`` (nor ``Sequence[str]``):
a ``str`` is one, and the runtime refuses it (``TypeError``)."""
_TaskRule = Literal["task-checkbox-v1", "openspec-checkbox"]
"""A task rule (docs/format.md §4): how a Tasks file's checked boxes are normalized."""
_Kind = Literal["file", "symlink", "missing"]
_ChangeKind = Literal["added", "removed", "kind-changed", "mode-changed", "content-changed"]
_State = Literal[
    "approved", "unbound", "changed", "reset", "blocked", "archived", "gone", "skipped"
]
_SchemaChangeReason = Literal["content-changed", "other-schema", "redeclared"]
_Location = Literal["active", "archived", "missing"]
_Echo = Literal["off", "passthrough", "stderr"]
_Stopped = Literal["timeout", "signal", "interrupt"]
_Reason = Literal[
    "no-evidence",
    "scope-differs",
    "command-differs",
    "inputs-changed",
    "prerequisite-changed",
    "prerequisite-unverified",
    "failed",
    "not-reusable",
]
_ErrorCode = Literal[
    "invalid-path",
    "non-utf8-path",
    "conflict",
    "special-file",
    "nested-repository",
    "unreadable",
    "unwritable",
    "symlinked-parent",
    "changed-while-reading",
    "outside-workspace",
    "untrusted-repository",
    "untrusted-store",
    "git",
    "bad-fingerprint",
    "malformed-record",
    "unsupported-version",
    "missing-material",
    "ambiguous-material",
    "graph-cycle",
    "unknown-artifact",
    "bad-schema",
    "unknown-schema",
    "bad-openspec-config",
    "missing-source",
    "prerequisite-failed",
    "gate-not-started",
    "invalid-argument",
    "bad-entry",
    "duplicate-entry",
    "pointer-conflict",
    "chain-mismatch",
    "corrupt-record",
    "bad-ref-name",
    "bad-record-id",
    "invalid-gitfile",
    "git-environment",
    "unknown-change",
    "upstream-blocked",
    "absent-artifact",
    "non-utf8-value",
    "too-large",
    "validation-refused",
    "not-validated",
    "no-delivery",
    "fingerprint-moved",
    "panic",
]
"""Every ``LedgerError.code``: the core's codes (``ERROR_CODES``) and ``panic``."""

__all__ = [
    "Finalization",
    "GateStanding",
    "LogEntry",
    "NotValidatedError",
    "NoDeliveryError",
    "FingerprintMovedError",
    "PhaseRecord",
    "ValidationCheck",
    "ValidationRefusedError",
    "advance_state",
    "finalize_check",
    "state_log",
    "validate_check",
    "validate_record",
    "AbsentArtifactError",
    "AmbiguousMaterialError",
    "ApprovalStatus",
    "Artifact",
    "ArtifactGraph",
    "ArtifactStatus",
    "BadEntryError",
    "BadFingerprintError",
    "BadOpenspecConfigError",
    "BadRecordIdError",
    "BadRefNameError",
    "BadSchemaError",
    "Binding",
    "ChainMismatchError",
    "Change",
    "ChangeSet",
    "ChangeTasks",
    "ChangedWhileReadingError",
    "Comparison",
    "ConflictError",
    "CorruptRecordError",
    "DEFAULT_CHANGES_ROOT",
    "DEFAULT_EXCLUSION_REASON",
    "DEFAULT_SCHEMA",
    "DuplicateEntryError",
    "ERROR_CODES",
    "Entry",
    "Evidence",
    "FORMAT_V1",
    "Freshness",
    "GateNotStartedError",
    "GateSpec",
    "GitEnvironmentError",
    "GitError",
    "GraphCycleError",
    "InvalidArgumentError",
    "InvalidGitfileError",
    "InvalidPathError",
    "Inventory",
    "LedgerError",
    "MAX_THREADS",
    "MalformedRecordError",
    "MissingMaterialError",
    "MissingSourceError",
    "NestedRepositoryError",
    "NonUtf8PathError",
    "NonUtf8ValueError",
    "Observe",
    "OutsideWorkspaceError",
    "PanicError",
    "PointerConflictError",
    "PrerequisiteFailedError",
    "RECORD_FORMAT",
    "RECORD_VERSION",
    "RunOutcome",
    "STORE_DIR",
    "SchemaChange",
    "SchemaSource",
    "Scope",
    "SpecialFileError",
    "StaleReason",
    "StateEnvelope",
    "Store",
    "StoreReport",
    "SymlinkedParentError",
    "TASK_RULES",
    "Task",
    "Tasks",
    "TooLargeError",
    "UnknownArtifactError",
    "UnknownChangeError",
    "UnknownSchemaError",
    "UnreadableError",
    "UnsupportedVersionError",
    "UntrustedRepositoryError",
    "UntrustedStoreError",
    "UnwritableError",
    "UpstreamBlockedError",
    "Validation",
    "__version__",
    "approve",
    "check_gate",
    "check_recorded_gate",
    "current_state",
    "digest_cache_enabled",
    "fingerprint",
    "fingerprint_entries",
    "gate_output",
    "inventory",
    "latest_evidence",
    "normalize_tasks",
    "parse_fingerprint",
    "read_tasks",
    "read_tasks_bytes",
    "retire",
    "run_gate",
    "set_digest_cache",
    "set_threads",
    "status",
    "threads",
    "worktree_root",
]
__version__: str
ERROR_CODES: list[_ErrorCode]
FORMAT_V1: str
RECORD_FORMAT: str
RECORD_VERSION: str
STORE_DIR: str
MAX_THREADS: int
DEFAULT_CHANGES_ROOT: str
DEFAULT_EXCLUSION_REASON: str
DEFAULT_SCHEMA: str
TASK_RULES: list[_TaskRule]

# Fingerprints and inventories

def fingerprint(workspace: _StrPath = ".", **scope: Unpack[_ScopeKeywords]) -> str: ...
def inventory(workspace: _StrPath = ".", **scope: Unpack[_ScopeKeywords]) -> Inventory: ...
def fingerprint_entries(entries: Iterable[_EntryParts]) -> str: ...
def parse_fingerprint(text: str) -> str: ...
def normalize_tasks(data: bytes, rule: _TaskRule = "task-checkbox-v1") -> bytes: ...
def worktree_root(path: _StrPath) -> Optional[str]: ...
def set_threads(count: int) -> None: ...
def threads() -> int: ...
def set_digest_cache(enabled: bool) -> None: ...
def digest_cache_enabled() -> bool: ...

@final
class Scope:
    def __new__(cls, workspace: _StrPath = ".", **scope: Unpack[_ScopeKeywords]) -> Scope: ...
    workspace: Final[str]
    repositories: Final[list[str]]
    roots: Final[list[str]]
    paths: Final[list[str]]
    exclusions: Final[list[tuple[str, str]]]
    normalize: Final[list[str]]
    task_rules: Final[dict[str, _TaskRule]]
    purpose: Final[str]
    def task_rule(self, path: _StrPath) -> Optional[_TaskRule]: ...
    def resolve(self) -> Scope: ...
    def to_json(self) -> str: ...
    @staticmethod
    def from_json(text: str, source: str = "<string>") -> Scope: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Entry:
    def __new__(cls, path: str, kind: str, mode: str, digest: str) -> Entry: ...
    path: Final[str]
    kind: Final[_Kind]
    mode: Final[str]
    digest: Final[str]
    def __iter__(self) -> Iterator[str]: ...
    def __len__(self) -> int: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Change:
    change: Final[_ChangeKind]
    label: Final[str]
    path: Final[str]
    old: Final[Optional[Entry]]
    new: Final[Entry]
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Comparison:
    matches: Final[bool]
    old: Final[str]
    new: Final[str]
    unchanged: Final[int]
    changes: Final[list[Change]]
    def of_kind(self, kind: _ChangeKind) -> list[Change]: ...
    def to_json(self) -> str: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Inventory:
    @staticmethod
    def expand(scope: Scope) -> Inventory: ...
    fingerprint: Final[str]
    entries: Final[list[Entry]]
    scope: Final[Scope]
    walked_roots: Final[list[str]]
    observed: Final[tuple[list[str], dict[str, str], dict[str, str]]]
    def compare(self, workspace: Optional[_StrPath] = None) -> Comparison: ...
    def to_json(
        self,
        *,
        meta: Optional[Mapping[str, str]] = None,
        tools: Optional[Mapping[str, str]] = None,
        command: Optional[_Argv] = None,
    ) -> str: ...
    @staticmethod
    def from_json(text: str, source: str = "<string>") -> Inventory: ...
    @staticmethod
    def read(path: _StrPath) -> Inventory: ...
    def __len__(self) -> int: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

# Tasks files

def read_tasks(path: _StrPath, rule: _TaskRule = "task-checkbox-v1") -> Tasks: ...
def read_tasks_bytes(data: bytes, rule: _TaskRule = "task-checkbox-v1") -> Tasks: ...

@final
class Task:
    id: Final[Optional[str]]
    done: Final[bool]
    line: Final[int]
    text: Final[str]
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Tasks:
    rule: Final[_TaskRule]
    total: Final[int]
    done: Final[int]
    tasks: Final[list[Task]]
    def completed_ids(self) -> list[str]: ...
    def remaining_ids(self) -> list[str]: ...
    def to_json(self) -> str: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class ChangeTasks:
    change: Final[str]
    path: Final[str]
    exists: Final[bool]
    rule: Final[_TaskRule]
    total: Final[int]
    done: Final[int]
    tasks: Final[list[Task]]
    def completed_ids(self) -> list[str]: ...
    def remaining_ids(self) -> list[str]: ...
    def to_json(self) -> str: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

# Approvals and the store

@final
class Artifact:
    def __new__(cls, id: str, generates: str, requires: Iterable[str] = ()) -> Artifact: ...
    id: Final[str]
    generates: Final[str]
    requires: Final[list[str]]
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class SchemaSource:
    name: Final[Optional[str]]
    path: Final[Optional[str]]
    sha256: Final[Optional[str]]
    label: Final[str]
    def same_schema(self, other: SchemaSource) -> bool: ...
    def to_json(self) -> str: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class ArtifactGraph:
    def __new__(
        cls,
        artifacts: Iterable[Artifact],
        tracks: Optional[str] = None,
        source: str = "<graph>",
        *,
        task_rule: Optional[_TaskRule] = None,
    ) -> ArtifactGraph: ...
    @staticmethod
    def spec_driven() -> ArtifactGraph: ...
    @staticmethod
    def from_schema_yaml(text: str, source: str = "<string>") -> ArtifactGraph: ...
    @staticmethod
    def read(path: _StrPath) -> ArtifactGraph: ...
    artifacts: Final[list[Artifact]]
    tracks: Final[Optional[str]]
    tracked: Final[Optional[Artifact]]
    task_rule: Final[Optional[_TaskRule]]
    schema: Final[Optional[SchemaSource]]
    def artifact(self, id: str) -> Artifact: ...
    def upstream(self, id: str) -> list[str]: ...
    def downstream(self, id: str) -> list[str]: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class ChangeSet:
    def __new__(
        cls,
        workspace: _StrPath,
        change: str,
        *,
        changes_root: str = "openspec/changes",
        schema: Optional[str] = None,
        task_rule: Optional[_TaskRule] = None,
        graph: Optional[ArtifactGraph] = None,
    ) -> ChangeSet: ...
    workspace: Final[str]
    change: Final[str]
    changes_root: Final[str]
    graph: Final[ArtifactGraph]
    task_rule: Final[_TaskRule]
    def directory(self) -> str: ...
    def scope(self, artifact: str) -> Scope: ...
    def inventory(self, artifact: str) -> Inventory: ...
    def tasks(self, store: Optional[Store] = None) -> ChangeTasks: ...

@final
class Store:
    def __new__(cls, workspace: _StrPath) -> Store: ...
    @staticmethod
    def at(root: _StrPath) -> Store: ...
    root: Final[str]
    def head(self, reference: str) -> Optional[str]: ...
    def history(self, reference: str) -> list[str]: ...
    def refs(self) -> list[tuple[str, str]]: ...
    def read_record(self, id: str) -> dict[str, Any]: ...
    def check(self) -> StoreReport: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class StoreReport:
    records: Final[int]
    refs: Final[list[tuple[str, str]]]
    orphans: Final[list[str]]
    temp_files: Final[list[str]]
    corrupt: Final[list[tuple[str, str]]]
    dangling: Final[list[tuple[str, str]]]
    cache: Final[Optional[tuple[int, int, bool]]]
    def is_clean(self) -> bool: ...
    def to_json(self) -> str: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Binding:
    change: Final[str]
    artifact: Final[str]
    fingerprint: Final[str]
    source: Final[str]
    observed_at: Final[str]
    upstream: Final[dict[str, str]]
    schema: Final[Optional[SchemaSource]]
    def to_json(self) -> str: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Validation:
    verdict: Final[Literal["PASS", "FAIL"]]
    fingerprint: Final[str]
    inventory: Final[Inventory]
    gates: Final[list[tuple[str, str | None]]]
    source: Final[str]
    observed_at: Final[str]
    directory: Final[str]
    capabilities: Final[list[str]]
    no_delivery: Final[Optional[str]]
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class StateEnvelope:
    change: Final[str]
    role: Final[str]
    outcome: Final[str]
    affected_areas: Final[list[str]]
    bindings: Final[list[Binding]]
    tasks_completed: Final[list[str]]
    tasks_remaining: Final[list[str]]
    checks: Final[list[tuple[str, str]]]
    blockers: Final[list[str]]
    next_outcome: Final[Optional[str]]
    validation: Final[Optional[Validation]]
    def binding(self, artifact: str) -> Optional[Binding]: ...
    def to_json(self) -> str: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class ArtifactStatus:
    artifact: Final[str]
    state: Final[_State]
    approved: Final[Optional[str]]
    current: Final[Optional[str]]
    reset_by: Final[list[str]]
    blocked: Final[Optional[str]]
    changes: Final[Optional[list[Change]]]
    binding: Final[Optional[Binding]]
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class SchemaChange:
    artifact: Final[str]
    reason: Final[_SchemaChangeReason]
    declared: Final[Optional[str]]
    recorded: Final[Optional[SchemaSource]]
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class ApprovalStatus:
    change: Final[str]
    state_record: Final[Optional[str]]
    location: Final[_Location]
    directory: Final[Optional[str]]
    retired: Final[Optional[dict[str, str]]]
    schema: Final[Optional[SchemaSource]]
    schema_changed: Final[list[SchemaChange]]
    artifacts: Final[list[ArtifactStatus]]
    def all_approved(self) -> bool: ...
    def to_json(self) -> str: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

def status(store: Store, change: ChangeSet) -> ApprovalStatus: ...
def approve(
    store: Store,
    change: ChangeSet,
    artifact: str,
    source: str,
    *,
    absent: bool = False,
    reviewed: Optional[str] = None,
    expected: Optional[str] = None,
) -> Binding: ...
def retire(store: Store, change: str, reason: str, *, expected: Optional[str] = None) -> str: ...
def current_state(store: Store, change: str) -> tuple[Optional[str], StateEnvelope]: ...

# The lifecycle (docs/lifecycle.md)

def advance_state(
    store: Store,
    change: ChangeSet,
    *,
    role: Optional[str] = None,
    outcome: Optional[str] = None,
    areas: Optional[list[str]] = None,
    checks: Optional[list[tuple[str, str]]] = None,
    blockers: Optional[list[str]] = None,
    clear_blockers: bool = False,
    next: Optional[str] = None,
    completed: Optional[list[str]] = None,
    remaining: Optional[list[str]] = None,
    expected: Optional[str] = None,
) -> tuple[str, StateEnvelope]: ...
@final
class LogEntry:
    record: Final[str]
    written_at: Final[str]
    changes: Final[list[tuple[str, str]]]
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

def state_log(store: Store, change: str) -> list[LogEntry]: ...
def validate_record(
    store: Store,
    change: ChangeSet,
    verdict: Literal["PASS", "FAIL"],
    source: str,
    *,
    repos: Optional[list[str]] = None,
    roots: Optional[list[str]] = None,
    paths: Optional[list[str]] = None,
    exclude: Optional[list[str]] = None,
    instructions: Optional[list[str]] = None,
    gates: Optional[list[str]] = None,
    phase_records: Optional[list[str]] = None,
    no_delivery: Optional[str] = None,
    gate_prerequisites: Optional[Mapping[str, Mapping[str, Observe]]] = None,
    reviewed: Optional[str] = None,
    expected: Optional[str] = None,
) -> tuple[str, StateEnvelope]: ...
@final
class GateStanding:
    gate: Final[str]
    recorded: Final[Optional[str]]
    latest: Final[Optional[str]]
    rerun: Final[bool]
    fresh: Final[bool]
    reasons: Final[list[StaleReason]]
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class ValidationCheck:
    change: Final[str]
    record: Final[str]
    verdict: Final[Literal["PASS", "FAIL"]]
    fingerprint: Final[str]
    comparison: Final[Comparison]
    gates: Final[list[GateStanding]]
    phase_records: Final[list[PhaseRecord]]
    no_delivery: Final[Optional[str]]
    stands: Final[bool]
    def to_json(self) -> str: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class PhaseRecord:
    path: Final[str]
    kind: Final[Literal["file", "missing", "directory", "symlink", "other"]]
    inside: Final[list[str]]
    stands: Final[bool]
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

def validate_check(
    store: Store,
    change: ChangeSet,
    *,
    gate_prerequisites: Optional[Mapping[str, Mapping[str, Observe]]] = None,
) -> ValidationCheck: ...
@final
class Finalization:
    change: Final[str]
    record: Final[str]
    fingerprint: Final[str]
    archive_move: Final[Optional[tuple[str, str]]]
    moved: Final[list[tuple[str, str]]]
    spec_sync: Final[list[Change]]
    completion_evidence: Final[list[Change]]
    registry: Final[list[Change]]
    new_changes: Final[list[Change]]
    spec_mismatches: Final[list[tuple[str, str, list[str]]]]
    sync_unverified: Final[list[tuple[str, str, str]]]
    phase_records: Final[list[PhaseRecord]]
    clean: Final[bool]
    def to_json(self) -> str: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

def finalize_check(store: Store, change: ChangeSet, *, expect: Optional[list[str]] = None) -> Finalization: ...

# Gates

@final
class Observe:
    @staticmethod
    def literal(value: str) -> Observe: ...
    @staticmethod
    def environment(variable: str) -> Observe: ...
    @staticmethod
    def command(command: str) -> Observe: ...
    kind: Final[Literal["literal", "environment", "command"]]
    text: Final[str]
    def observe(self, name: str = "") -> Optional[str]: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class GateSpec:
    def __new__(
        cls,
        name: str,
        argv: _Argv,
        scope: Scope,
        *,
        cwd: str = ".",
        prerequisites: Optional[Mapping[str, Observe]] = None,
    ) -> GateSpec: ...
    name: Final[str]
    argv: Final[list[str]]
    cwd: Final[str]
    scope: Final[Scope]
    prerequisites: Final[dict[str, Observe]]
    def observe(self) -> dict[str, Optional[str]]: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Evidence:
    spec: Final[GateSpec]
    prerequisites: Final[dict[str, Optional[str]]]
    exit_status: Final[Optional[int]]
    signal: Final[Optional[int]]
    stopped: Final[Optional[_Stopped]]
    started_at: Final[str]
    duration_ms: Final[int]
    result: Final[str]
    inventory: Final[Inventory]
    not_reusable: Final[Optional[str]]
    fingerprint: Final[str]
    passed: Final[bool]
    output_bytes: Final[Optional[int]]
    output_truncated: Final[Optional[tuple[int, int]]]
    left_in_group: Final[bool]
    def to_json(self) -> str: ...
    def read_output(self, store: Store) -> bytes: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class StaleReason:
    reason: Final[_Reason]
    comparison: Final[Optional[Comparison]]
    def to_json(self) -> str: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Freshness:
    gate: Final[str]
    fresh: Final[bool]
    record: Final[Optional[str]]
    evidence: Final[Optional[Evidence]]
    reasons: Final[list[StaleReason]]
    def to_json(self) -> str: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class RunOutcome:
    reused: Final[bool]
    freshness: Final[Freshness]
    record: Final[Optional[str]]
    evidence: Final[Optional[Evidence]]
    exit_code: Final[int]
    def to_json(self) -> str: ...

def check_gate(store: Store, spec: GateSpec) -> Freshness: ...
def check_recorded_gate(
    workspace: _StrPath,
    name: str,
    *,
    scope: Optional[Scope] = None,
    argv: Optional[_Argv] = None,
    cwd: Optional[str] = None,
    prerequisites: Optional[Mapping[str, Observe]] = None,
) -> Freshness: ...
def run_gate(
    store: Store, spec: GateSpec, *, echo: _Echo = "off", timeout: Optional[float] = None
) -> RunOutcome: ...
def latest_evidence(store: Store, gate: str) -> Optional[tuple[str, Evidence]]: ...
def gate_output(store: Store, gate: str) -> Optional[bytes]: ...

# Errors: one subclass of LedgerError per core error code.

class LedgerError(Exception):
    code: _ErrorCode
    """The core's stable error code, e.g. ``"conflict"`` (also a class attribute)."""
    path: Optional[str]
    """The path the error is about, or ``None``."""

class InvalidPathError(LedgerError): ...
class NonUtf8PathError(LedgerError): ...
class ConflictError(LedgerError): ...
class SpecialFileError(LedgerError): ...
class NestedRepositoryError(LedgerError): ...
class UnreadableError(LedgerError): ...
class UnwritableError(LedgerError): ...
class SymlinkedParentError(LedgerError): ...
class ChangedWhileReadingError(LedgerError): ...
class OutsideWorkspaceError(LedgerError): ...
class UntrustedRepositoryError(LedgerError): ...
class UntrustedStoreError(LedgerError): ...
class GitError(LedgerError): ...
class BadFingerprintError(LedgerError): ...
class MalformedRecordError(LedgerError): ...
class UnsupportedVersionError(LedgerError): ...
class MissingMaterialError(LedgerError): ...
class AmbiguousMaterialError(LedgerError): ...
class GraphCycleError(LedgerError): ...
class UnknownArtifactError(LedgerError): ...
class BadSchemaError(LedgerError): ...
class UnknownSchemaError(LedgerError): ...
class BadOpenspecConfigError(LedgerError): ...
class MissingSourceError(LedgerError): ...
class PrerequisiteFailedError(LedgerError): ...
class GateNotStartedError(LedgerError): ...
class InvalidArgumentError(LedgerError): ...
class BadEntryError(LedgerError): ...
class DuplicateEntryError(LedgerError): ...
class PointerConflictError(LedgerError): ...
class ChainMismatchError(LedgerError): ...
class CorruptRecordError(LedgerError): ...
class BadRefNameError(LedgerError): ...
class BadRecordIdError(LedgerError): ...
class InvalidGitfileError(LedgerError): ...
class GitEnvironmentError(LedgerError): ...
class UnknownChangeError(LedgerError): ...
class UpstreamBlockedError(LedgerError): ...
class AbsentArtifactError(LedgerError): ...
class NonUtf8ValueError(LedgerError): ...
class TooLargeError(LedgerError): ...
class ValidationRefusedError(LedgerError): ...
class NotValidatedError(LedgerError): ...
class NoDeliveryError(LedgerError): ...
class FingerprintMovedError(LedgerError): ...
class PanicError(LedgerError): ...
