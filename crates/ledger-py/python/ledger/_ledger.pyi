"""The native module ``ledger._ledger``: one door into ``ledger_core::door``.

Not the API: ``ledger`` (``ledger/_api.py``, generated from ``description()``)
is. Each call runs one verb with the GIL released and answers JSON text,
``{"ok": ...}`` (with ``"warnings"``) or ``{"error": {"code", "message", "path"}}``;
only a ``KeyboardInterrupt`` that stopped a gate is raised here."""

from typing import Optional

def call(workspace: Optional[str], verb: str, options_json: str) -> str:
    """Runs ``verb`` with ``options_json`` in ``workspace`` (``None``: a free verb)."""

def description() -> str:
    """Every verb (name, doc, options and output schemas) and every error code, as JSON."""
