"""The packages' metadata agree with each other, and no name resolves to a
registry package that is not ours: every workspace crate has `publish = false`
(crates.io's ledger-core and ledger-cli are other projects'), no dependency on a
workspace crate carries a version (packaging would turn it into a crates.io
dependency), and Cargo.toml, pyproject.toml and the npm manifests name the same
repository, version and license. Part of `make install-test`; Python 3.11+.
"""

import glob
import json
import os
import subprocess
import sys
import tomllib

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def problems() -> list:
    out = []
    meta = json.loads(
        subprocess.run(
            [os.environ.get("CARGO", "cargo"), "metadata", "--format-version", "1", "--no-deps", "--locked"],
            cwd=ROOT, check=True, capture_output=True,
        ).stdout
    )
    members = {p["name"]: p for p in meta["packages"]}
    for name, p in members.items():
        if p["publish"] != []:
            out.append(f"{name}: publish is not false")
        for d in p["dependencies"]:
            if d["name"] in members and d["req"] != "*":
                out.append(f"{name} -> {d['name']}: a version ({d['req']}) on a workspace crate")
    core = members["ledger-core"]
    for field in ("readme", "repository", "license", "rust_version", "description", "keywords", "categories"):
        if not core.get(field):
            out.append(f"ledger-core: no {field}")
    repo, version, license = core["repository"], core["version"], core["license"]

    with open(os.path.join(ROOT, "crates/ledger-py/pyproject.toml"), "rb") as f:
        py = tomllib.load(f)["project"]
    if py["urls"].get("Repository") != repo:
        out.append(f"pyproject.toml: Repository {py['urls'].get('Repository')} is not {repo}")
    if py["license"] != license:
        out.append(f"pyproject.toml: license {py['license']}")
    if members["ledger-py"]["version"] != version:
        out.append("ledger-py: another version than ledger-core")

    node = os.path.join(ROOT, "crates/ledger-node")
    for path in [os.path.join(node, "package.json")] + sorted(glob.glob(os.path.join(node, "npm/*/package.json"))):
        with open(path) as f:
            m = json.load(f)
        url = m.get("repository", {}).get("url", "")
        if url != f"git+{repo}.git":
            out.append(f"{path}: repository {url!r} is not git+{repo}.git")
        if m["version"] != version or m["license"] != license:
            out.append(f"{path}: version {m['version']}, license {m['license']}")
        if m.get("private"):
            out.append(f"{path}: private")

    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    for name in ("`ledger-fingerprint`", "`ledger-fingerprint-linux-x64-gnu`", "`import ledger`", "`use ledger_core`"):
        if name not in readme:
            out.append(f"README.md does not name {name}")
    if not out:
        print(f"metadata: {len(members)} crates, none publishable; {repo} {version} {license} everywhere")
    return out


if __name__ == "__main__":
    found = problems()
    if found:
        sys.exit("metadata:\n  " + "\n  ".join(found))
