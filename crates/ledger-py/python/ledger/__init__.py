"""Content fingerprints of explicit file inventories, approvals and gate evidence.

The whole model of ``ledger-core`` in process, as the ``ledger`` CLI gives it::

    import ledger

    inv = ledger.inventory("path/to/checkout", roots=["src"])
    print(inv.fingerprint)                 # sha256:...
    assert ledger.fingerprint("path/to/checkout", roots=["src"]) == inv.fingerprint
    print(inv.compare().matches)           # later: is it still what is on disk?

The workspace is exactly the directory given (default ``"."``), not the top of the
enclosing Git checkout as with the CLI; ``worktree_root(".")`` gives that.

Every error is a subclass of :class:`LedgerError` with ``.code`` (the stable code the
CLI prints as ``error[<code>]``) and ``.path`` (the path concerned, or ``None``).
Calls that expand, hash, touch the store or run gates release the GIL.

The API is the native module's ``__all__``, typed (and grouped by concept) in
``_ledger.pyi``.
"""

from ledger._ledger import *  # noqa: F403 - re-exports exactly the native __all__
from ledger._ledger import __all__ as __all__
