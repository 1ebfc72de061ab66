"""`ledger mcp` driven by the official MCP Python SDK (pinned in ci.sh), as an
agent's client drives it over stdio (docs/agents.md): a whole change from the
first `check` to the real OpenSpec CLI's archive, with every answer compared
with the Python door's on the same project at the same moment; the read-only
server; the workspace wall; a cancelled gate run."""

from __future__ import annotations

import os
import subprocess
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

import base64
import json
import re

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

import ledger
from conftest import CHANGE, REPO_ROOT, Cli, write

DELTA = "## ADDED Requirements\n\n### Requirement: Login\nThe system SHALL log users in.\n\n#### Scenario: ok\n- works\n"
DECLARED = '[gates.test]\ncommand = ["cat", "src/app.py"]\nroots = ["src"]\n'

# Every tool of the list, by the name a model sees.
TOOLS = {
    "check", "changes", "status", "tasks", "approve", "state_show", "state_set",
    "gate_check", "gate_run", "gate_show", "validate_record", "validate_check",
    "finalize_check", "verdict_record", "verdict_check", "verdict_downgrade",
    "verdict_log", "fingerprint", "entries", "verify", "store_check", "store_resolve",
}
READERS = {
    "check", "changes", "status", "tasks", "state_show", "gate_check", "gate_show",
    "validate_check", "finalize_check", "verdict_check", "verdict_log", "fingerprint",
    "entries", "verify", "store_check",
}


def openspec_bin() -> str:
    """The pinned OpenSpec CLI (tests/openspec, installed by ci.sh)."""
    path = os.environ.get("LEDGER_OPENSPEC_BIN", "")
    if not (path and os.access(path, os.X_OK)):
        pytest.fail("LEDGER_OPENSPEC_BIN is not set: run the suite with crates/ledger-py/ci.sh")
    return path


def openspec(workspace: Path, *args: str) -> None:
    home = workspace.parent / "home"
    home.mkdir(exist_ok=True)
    env = {
        **os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"), "OPENSPEC_TELEMETRY": "0",
        "DO_NOT_TRACK": "1", "CI": "1", "NO_COLOR": "1",
    }
    out = subprocess.run([openspec_bin(), *args], cwd=workspace, env=env, capture_output=True, text=True)
    assert out.returncode == 0, f"openspec {args}: {out.stdout}\n{out.stderr}"


@asynccontextmanager
async def server(cli: Cli, workspace: Path, *flags: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=cli.path, args=["mcp", "--workspace", str(workspace), *flags])
    async with stdio_client(params) as (read, write_stream):
        async with ClientSession(read, write_stream) as session:
            await session.initialize()
            yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> Any:
    """The structured result of a tool call that succeeded."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, (tool, result.content)
    text = result.content[0]
    assert isinstance(text, types.TextContent) and text.text, (tool, result.content)
    return result.structured_content


async def text_of(session: ClientSession, tool: str, **arguments: Any) -> str:
    """The text a model reads of a tool call that succeeded."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error and isinstance(result.content[0], types.TextContent), (tool, result)
    return result.content[0].text


def cli_text(cli: Cli, workspace: Path, *args: str) -> str:
    """What the CLI prints for `args` in `workspace` (its exit status aside)."""
    return subprocess.run([cli.path, *args], cwd=workspace, capture_output=True, text=True).stdout


async def refused(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    """The error of a tool call that failed: its code, message and path."""
    result = await session.call_tool(tool, arguments)
    assert result.is_error, (tool, result.structured_content)
    error: dict[str, Any] = (result.structured_content or {})["error"]
    text = result.content[0]
    assert isinstance(text, types.TextContent) and text.text.startswith(f"error[{error['code']}]")
    return error


def project(workspace: Path) -> None:
    """An OpenSpec project (the real CLI's init) with the change and a gate."""
    openspec(workspace, "init", "--tools", "none", ".")
    write(workspace, f"openspec/changes/{CHANGE}/specs/auth/spec.md", DELTA)
    write(workspace, "ledger.toml", DECLARED)


def test_a_whole_change_through_the_mcp_server_equals_the_python_door(workspace: Path, cli: Cli) -> None:
    project(workspace)
    ws = ledger.Workspace(workspace)

    async def main() -> None:
        async with server(cli, workspace) as session:
            listed = (await session.list_tools()).tools
            assert {t.name for t in listed} == TOOLS
            assert all(t.description and t.output_schema and t.input_schema["type"] == "object" for t in listed)

            report = await call(session, "check")
            assert report == ws.check() and not report["nothing_to_do"]
            # A model reads what a person reads at the terminal.
            assert await text_of(session, "check") == cli_text(cli, workspace, "check")
            # Parallel approvals, as an agent's parallel tool calls make them:
            # every one lands.
            approved: list[Any] = []

            async def approve(artifact: str) -> None:
                approved.append(await call(session, "approve", change=CHANGE, artifact=artifact, source="review 1"))

            async with anyio.create_task_group() as group:
                for artifact in ("proposal", "specs", "design", "tasks"):
                    group.start_soon(approve, artifact)
            assert sorted(a["artifact"] for a in approved) == ["design", "proposal", "specs", "tasks"]
            status = await call(session, "status", change=CHANGE)
            assert status == ws.status(CHANGE)
            assert await text_of(session, "status", change=CHANGE) == cli_text(cli, workspace, "status", "--change", CHANGE)
            assert {a["state"] for a in status["artifacts"]} == {"approved"}

            tasks = workspace / f"openspec/changes/{CHANGE}/tasks.md"
            tasks.write_text(tasks.read_text().replace("- [ ]", "- [x]"))
            assert await call(session, "tasks", change=CHANGE) == ws.change_tasks(CHANGE)

            first = await call(session, "gate_run", name="test")
            second = await call(session, "gate_run", name="test")
            assert (first["reused"], second["reused"]) == (False, True)
            assert first["exit_code"] == 0 and second["record"] == first["record"]
            assert await call(session, "gate_check", name="test") == ws.check_declared_gate("test")
            # The output a model reads is the gate's text; the structured
            # result keeps its bytes exactly, as the door does.
            shown = await session.call_tool("gate_show", {"gate": "test"})
            assert isinstance(shown.content[0], types.TextContent) and shown.content[0].text == "print('hi')\n"
            assert shown.structured_content == {"result": base64.b64encode(ws.gate_output("test") or b"").decode()}

            state = await call(session, "validate_record", change=CHANGE, verdict="PASS", source="review 2", roots=["src"], gates=["test"])
            assert state == ws.current_state(CHANGE)
            assert await call(session, "validate_check", change=CHANGE) == ws.check_validation(CHANGE)
            report = await call(session, "check")
            assert [w["kind"] for w in report["work"]] == ["archive"] and report == ws.check()

            openspec(workspace, "archive", CHANGE, "--yes")
            finalized = await call(session, "finalize_check", change=CHANGE)
            assert finalized["clean"], finalized
            assert finalized == ws.finalize_check(CHANGE)
            report = await call(session, "check")
            assert report["nothing_to_do"] and report == ws.check()
            assert await call(session, "store_check") == ws.store_check()

    anyio.run(main)


def test_a_read_only_server_lists_no_writer_and_refuses_one(workspace: Path, cli: Cli) -> None:
    write(workspace, "ledger.toml", DECLARED)
    ran = workspace / "ran"
    ws = ledger.Workspace(workspace)

    async def main() -> None:
        async with server(cli, workspace, "--read-only") as session:
            assert {t.name for t in (await session.list_tools()).tools} == READERS
            error = await refused(session, "approve", change=CHANGE, artifact="proposal", source="r")
            assert error["code"] == "read-only"
            assert (await refused(session, "gate_run", name="test"))["code"] == "read-only"
            # A reader asked to run a command is refused before anything runs.
            touch = {"tool": {"command": f"touch {ran}"}}
            error = await refused(session, "check", gate_prerequisites={"test": touch}, allow_env_cmd=True)
            assert error["code"] == "read-only"
            assert (await refused(session, "gate_check", name="test", prerequisites=touch))["code"] == "read-only"
            assert await call(session, "check") == ws.check()

    anyio.run(main)
    assert not ran.exists()
    assert ws.status(CHANGE)["artifacts"][0]["state"] != "approved"


def test_no_argument_leaves_the_workspace(workspace: Path, cli: Cli, tmp_path: Path) -> None:
    write(tmp_path, "outside/secret.txt", "no\n")

    async def main() -> None:
        async with server(cli, workspace) as session:
            for roots in (["../outside"], [str(tmp_path / "outside")]):
                error = await refused(session, "fingerprint", roots=roots)
                assert error["code"] in ("outside-workspace", "invalid-path"), error
            error = await refused(session, "fingerprint", workspace=str(tmp_path))
            assert error["code"] == "invalid-argument", error
            fingerprint = await call(session, "fingerprint", roots=["src"])
            assert fingerprint == {"result": ledger.Workspace(workspace).fingerprint(roots=["src"])}

    anyio.run(main)


def test_a_cancelled_gate_run_stops_its_process_group(workspace: Path, cli: Cli) -> None:
    pid_file = workspace / "gate.pid"
    write(workspace, "ledger.toml", f'[gates.slow]\ncommand = ["sh", "-c", "echo $$ > {pid_file}; exec sleep 300"]\nroots = ["src"]\n')
    progressed = anyio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        assert message and message.startswith("gate_run: running for")
        progressed.set()

    async def main() -> None:
        # A deadline, not a timing: a server that never stops the group fails
        # here instead of hanging the suite.
        with anyio.fail_after(LIMIT):
            await cancelled_run()

    async def cancelled_run() -> None:
        async with server(cli, workspace) as session:
            with anyio.CancelScope() as scope:

                async def run() -> None:
                    await session.call_tool("gate_run", {"name": "slow"}, progress_callback=on_progress)

                async with anyio.create_task_group() as group:
                    group.start_soon(run)
                    # The command runs and the client hears of it; then the
                    # agent gives up on the call.
                    await progressed.wait()
                    while not pid_file.exists() or not pid_file.read_text().strip():
                        await anyio.sleep(0.05)
                    scope.cancel()
            pid = int(pid_file.read_text())
            # The server stops the group on the client's `notifications/cancelled`.
            while alive(pid):
                await anyio.sleep(0.05)
            fresh = await call(session, "gate_check", name="slow")
            assert not fresh["fresh"]

    anyio.run(main)


LIMIT = float(os.environ.get("LEDGER_TEST_MCP_LIMIT", "120"))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for every purpose here; /proc says which it is.
    status = Path(f"/proc/{pid}/status")
    return not status.exists() or "State:\tZ" not in status.read_text()


def configured_servers() -> list[list[str]]:
    """The command line of each MCP configuration in docs/agents.md."""
    text = (REPO_ROOT / "docs" / "agents.md").read_text()
    commands = []
    for block in re.findall(r"```json\n(.*?)```", text, re.S):
        config = json.loads(block)
        for server in config.get("mcpServers", {}).values():
            commands.append([server["command"], *server["args"]])
        for server in config.get("mcp", {}).values():
            commands.append(server["command"])
    return commands


def test_every_mcp_configuration_in_the_docs_starts_the_server(workspace: Path, cli: Cli) -> None:
    commands = configured_servers()
    assert len(commands) == 3
    for command in commands:
        assert command[:2] == ["ledger", "mcp"], command
        params = StdioServerParameters(command=cli.path, args=command[1:], cwd=str(workspace))

        async def main() -> None:
            async with stdio_client(params) as (read, write_stream):
                async with ClientSession(read, write_stream) as session:
                    await session.initialize()
                    names = {t.name for t in (await session.list_tools()).tools}
                    assert names == (READERS if "--read-only" in command else TOOLS)
                    # The workspace is the current directory's checkout.
                    assert await call(session, "check") == ledger.Workspace(workspace).check()

        anyio.run(main)


def test_the_python_door_offers_the_same_tools(workspace: Path) -> None:
    """`agent_tools`/`agent_call`: the tools of `ledger mcp` through this door
    (what the OpenCode plugin calls through Node's)."""
    listed = ledger.agent_tools()
    assert {t["name"] for t in listed} == TOOLS
    assert {t["name"] for t in ledger.agent_tools(read_only=True)} == READERS
    assert all(t["input_schema"]["type"] == "object" for t in listed)
    ws = ledger.Workspace(workspace)
    reply = ws.agent_call("check")
    assert reply["result"] == ws.check() and "work to do:" in reply["text"]
    with pytest.raises(ledger.LedgerError) as refused:
        ws.agent_call("approve", arguments={"change": CHANGE, "artifact": "proposal", "source": "r"}, read_only=True)
    assert refused.value.code == "read-only"
