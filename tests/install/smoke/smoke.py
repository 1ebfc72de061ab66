"""The smoke test of the installed wheel, run by tests/install/wheel.sh from a
directory outside the repository: the module comes from the venv, a known
fingerprint, the shared vectors, an error with its code, a gate that runs once
and is then reused, and no test hook in a release build. Python 3.9 syntax."""

import json
import os
import sys
import tempfile

import ledger

# The v1 fingerprint of one file `a.txt` holding "hello\n", mode 100644 (tests/vectors, "one file").
ONE_FILE = "sha256:847a58e9b87e68459589f0fac43636c2da8452953dd4524fd04b9b87fd691aae"


def main(vectors_file: str) -> int:
    checks = 0
    here = os.path.dirname(os.path.abspath(ledger.__file__))
    assert os.path.commonpath([here, sys.prefix]) == sys.prefix, f"ledger from {here}, not the venv"
    assert not hasattr(ledger._ledger, "_panic"), "a release wheel has no test hooks"
    verbs = {v["name"] for v in json.loads(ledger._ledger.description())["verbs"]}
    assert "_panic" not in verbs and "status" in verbs, "a release wheel has no test hooks"
    checks += 1

    with tempfile.TemporaryDirectory() as ws, tempfile.TemporaryDirectory() as scratch:
        with open(os.path.join(ws, "a.txt"), "w") as f:
            f.write("hello\n")
        os.chmod(os.path.join(ws, "a.txt"), 0o644)
        workspace = ledger.Workspace(ws)
        assert workspace.fingerprint(roots=["a.txt"]) == ONE_FILE
        assert workspace.inventory(roots=["a.txt"])["fingerprint"] == ONE_FILE
        checks += 1

        with open(vectors_file) as f:
            vectors = json.load(f)["vectors"]
        assert len(vectors) >= 5
        for v in vectors:
            entries = [dict(zip(("path", "kind", "mode", "digest"), e)) for e in v["entries"]]
            assert ledger.fingerprint_entries(entries) == v["fingerprint"], v["name"]
        checks += 1

        try:
            workspace.fingerprint(roots=["../elsewhere"])
        except ledger.LedgerError as e:
            assert e.code == "outside-workspace", e.code
        else:
            raise AssertionError("a root outside the workspace was accepted")
        checks += 1

        runs = os.path.join(scratch, "runs")
        spec = {"argv": ["sh", "-c", f"echo ran >> '{runs}'; echo gate ok"], "scope": {"roots": ["a.txt"]}}
        first = workspace.run_gate("smoke", echo="off", **spec)
        assert not first["reused"] and first["exit_code"] == 0
        assert first["evidence"] is not None and first["evidence"]["result"] == "gate ok"
        again = workspace.run_gate("smoke", echo="off", **spec)
        assert again["reused"] and again["freshness"]["fresh"]
        with open(runs) as f:
            assert f.read() == "ran\n", "the command ran once"
        with open(os.path.join(ws, "a.txt"), "w") as f:
            f.write("changed\n")
        stale = workspace.check_gate("smoke", **spec)
        assert not stale["fresh"] and [r["reason"] for r in stale["reasons"]] == ["inputs-changed"]
        checks += 1

    version = ".".join(map(str, sys.version_info[:3]))
    print(f"smoke python {version}: {checks} passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
