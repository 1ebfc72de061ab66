"""Content fingerprints of explicit file inventories, approvals and gate evidence.

The whole model of ``ledger-core`` in process, as the ``ledger`` CLI gives it. A
workspace is named once; every verb is a method of it::

    import ledger

    ws = ledger.Workspace("path/to/checkout")
    inv = ws.inventory(roots=["src"])
    print(inv["fingerprint"])                  # sha256:...
    assert ws.fingerprint(roots=["src"]) == inv["fingerprint"]
    print(ws.compare(inv)["matches"])          # later: is it still what is on disk?
    ws.approve("add-auth", "proposal", source="review 1842")
    print(ws.status("add-auth")["artifacts"])

Results are plain dicts (JSON documents, byte for byte what the CLI prints with
``--json``), typed by a ``TypedDict`` of the same name as the core's Rust type
(``Inventory``, ``ApprovalStatus``, ...). Verbs that need no workspace are module
functions (``fingerprint_entries``, ``normalize_tasks``, ``read_tasks``, ...).

The workspace is exactly the directory given (default ``"."``), not the top of the
enclosing Git checkout as with the CLI; ``worktree_root(".")`` gives that.

Every error is a subclass of :class:`LedgerError` with ``.code`` (the stable code the
CLI prints as ``error[<code>]``) and ``.path`` (the path concerned, or ``None``).
Every call releases the GIL.

The API is generated from the core's description of its verbs
(``ledger_core::door::description()``) into ``ledger/_api.py``; this module
re-exports its ``__all__``.
"""

from ledger._api import *  # noqa: F403 - re-exports exactly the generated __all__
from ledger._api import __all__ as __all__
