"""The native module ``ledger._ledger``: one door into ``ledger_core::door``.

Not the API: ``ledger`` (``ledger/_api.py``, generated from ``description()``)
is. Each call runs one verb with the GIL released and answers JSON text,
``{"ok": ...}`` (with ``"warnings"``) or ``{"error": {"code", "message", "path"}}``;
only a ``KeyboardInterrupt`` that stopped a gate is raised here."""

from typing import Optional

def call(
    workspace: Optional[str],
    verb: str,
    options_json: str,
    cancel: Optional[int] = None,
    settings_json: Optional[str] = None,
) -> str:
    """Runs ``verb`` with ``options_json`` in ``workspace`` (``None``: a free verb);
    ``cancel``: a token of ``cancel_token`` that stops the call's gate;
    ``settings_json``: the workspace's settings (``None``: the defaults)."""

def cancel_token() -> int:
    """A new cancellation token, not cancelled: its number."""

def cancel(id: int) -> bool:
    """Cancels the token ``id`` from any thread; ``False`` when none is registered."""

def is_cancelled(id: int) -> bool:
    """Whether the token ``id`` was cancelled."""

def release_cancel(id: int) -> None:
    """Lets the token ``id`` go."""

def description() -> str:
    """Every verb (name, doc, options and output schemas) and every error code, as JSON."""
