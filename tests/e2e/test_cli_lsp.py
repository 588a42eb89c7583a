"""`ink-ls run` with the `lsp` tool, ink-ls starting a real `jedi-language-server` itself on a
small Python project: definition, references, hover and rename give exactly what the server
answers when asked directly, and no server process is left after the run."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

from tests.e2e.test_cli_run import Run, env, fake, ink, ws  # noqa: F401  (fixtures)
from tests.fakes.model_server import FakeModelServer, text, tool

UTIL = 'def greet(name: str) -> str:\n    """Say hello to someone."""\n    return f"hello {name}"\n'
MAIN = 'from pkg.util import greet\n\n\ndef run() -> str:\n    return greet("world")\n'
OTHER = 'from pkg.util import greet\n\nprint(greet("x"))\n'


def _jedi() -> str:
    found = shutil.which("jedi-language-server") or str(
        Path(sys.executable).parent / "jedi-language-server"
    )
    assert Path(found).is_file(), "jedi-language-server is in the test extra"
    return found


def _project(ws: Path) -> None:
    (ws / "pkg").mkdir()
    (ws / "pkg" / "__init__.py").write_text("")
    (ws / "pkg" / "util.py").write_text(UTIL)
    (ws / "pkg" / "main.py").write_text(MAIN)
    (ws / "pkg" / "other.py").write_text(OTHER)


async def _ask_directly(ws: Path) -> dict[str, Any]:
    """The server's own answers, asked with a plain LSP client (no ink-ls code)."""
    client = LanguageClient("test", "1")
    await client.start_io(_jedi(), cwd=str(ws))
    try:
        await client.initialize_async(
            lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), root_uri=ws.as_uri())
        )
        client.initialized(lsp.InitializedParams())
        docs = {}
        for name in ("util", "main", "other"):
            path = ws / "pkg" / f"{name}.py"
            docs[name] = lsp.TextDocumentIdentifier(uri=path.as_uri())
            item = lsp.TextDocumentItem(
                uri=path.as_uri(), language_id="python", version=1, text=path.read_text()
            )
            client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=item))
        at_call = lsp.Position(line=4, character=11)  # `greet` in main.py's `return greet(…)`
        at_def = lsp.Position(line=0, character=4)  # `greet` in util.py's `def greet`
        answers = {
            "definition": await client.text_document_definition_async(
                lsp.DefinitionParams(text_document=docs["main"], position=at_call)
            ),
            "references": await client.text_document_references_async(
                lsp.ReferenceParams(
                    text_document=docs["util"],
                    position=at_def,
                    context=lsp.ReferenceContext(include_declaration=True),
                )
            ),
            "hover": await client.text_document_hover_async(
                lsp.HoverParams(text_document=docs["util"], position=at_def)
            ),
            "rename": await client.text_document_rename_async(
                lsp.RenameParams(text_document=docs["util"], position=at_def, new_name="salute")
            ),
        }
    finally:
        server = client._server  # end of input ends it: the protocol's exit alone may not
        assert server is not None and server.stdin is not None
        server.stdin.close()
        await asyncio.wait_for(client.stop(), 10)  # type: ignore[no-untyped-call]
    return answers


def _uri_path(uri: str) -> Path:
    return Path(uri.removeprefix("file://"))


def _as_lines(locations: Any, ws: Path) -> str:
    """Locations as the issue specifies them: `path:line: code`, sorted by path then line."""
    rows = sorted(
        {
            (_uri_path(loc.uri).relative_to(ws).as_posix(), loc.range.start.line, loc.uri)
            for loc in locations
        }
    )
    return "\n".join(
        f"{p}:{line + 1}: {_uri_path(uri).read_text().splitlines()[line].strip()}"
        for p, line, uri in rows
    )


def _renamed(edit: lsp.WorkspaceEdit) -> dict[Path, str]:
    """Every file's text with the server's rename edits applied (last first)."""
    out: dict[Path, str] = {}
    for change in edit.document_changes or []:
        assert isinstance(change, lsp.TextDocumentEdit)
        path = _uri_path(change.text_document.uri)
        lines = path.read_text().splitlines(keepends=True)
        text = "".join(lines)

        def offset(p: lsp.Position, lines: list[str] = lines) -> int:
            return sum(len(x) for x in lines[: p.line]) + p.character

        for e in sorted(change.edits, key=lambda e: offset(e.range.start), reverse=True):
            assert isinstance(e, lsp.TextEdit)
            text = text[: offset(e.range.start)] + e.new_text + text[offset(e.range.end) :]
        out[path] = text
    return out


def _servers_in(ws: Path) -> list[int]:
    """Running jedi-language-server processes whose working directory is `ws`."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            cwd = os.readlink(entry / "cwd")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if b"jedi-language-server" in cmdline and Path(cwd) == ws and state not in ("Z", "X"):
            pids.append(int(entry.name))
    return pids


async def test_definition_references_hover_rename_are_the_servers_answers(
    ink: Callable[..., Any], fake: FakeModelServer, ws: Path
) -> None:
    _project(ws)
    direct = await _ask_directly(ws)
    expected_files = _renamed(direct["rename"])
    definition = _as_lines(direct["definition"], ws)  # read before the rename changes them
    references = _as_lines(direct["references"], ws)
    assert len(expected_files) == 3  # the rename crosses three files
    fake.push(
        tool(
            "lsp", {"operation": "definition", "path": "pkg/main.py", "line": 5, "symbol": "greet"}
        ),
        tool(
            "lsp", {"operation": "references", "path": "pkg/util.py", "line": 1, "symbol": "greet"}
        ),
        tool("lsp", {"operation": "hover", "path": "pkg/util.py", "line": 1, "column": 5}),
        tool(
            "lsp",
            {
                "operation": "rename",
                "path": "pkg/util.py",
                "line": 1,
                "symbol": "greet",
                "new_name": "salute",
            },
        ),
        tool("lsp", {"operation": "definition", "path": "README.md", "line": 1, "column": 1}),
        text("done"),
    )
    run: Run = await ink("--json", "--approval", "auto", "where is greet used?")
    assert await run.finish() == 0, run.stderr
    ends = [e for e in run.events if e["type"] == "tool_end"]
    outputs = [e["content"][0]["text"] for e in ends]
    assert [e["is_error"] for e in ends] == [False, False, False, False, True]
    assert outputs[0] == definition
    assert outputs[0] == "pkg/util.py:1: def greet(name: str) -> str:"
    assert outputs[1] == references
    assert outputs[1].count("\n") == 4  # declaration, two imports, two calls
    assert outputs[2] == direct["hover"].contents.value.strip()
    assert "Say hello to someone." in outputs[2]
    assert outputs[3].startswith("Renamed to salute in 3 file(s):")
    for path, expected in expected_files.items():
        assert path.read_text() == expected
    assert "def salute(name: str)" in (ws / "pkg" / "util.py").read_text()
    assert outputs[4] == "no language server for .md files"
    schema = next(t for t in fake.requests[0]["tools"] if t["function"]["name"] == "lsp")
    assert "python (jedi-language-server)" in schema["function"]["description"]
    deadline = time.monotonic() + 2.0  # the issue: gone within 2 s of ink-ls exiting
    while _servers_in(ws) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert _servers_in(ws) == []


async def test_a_configured_server_that_fails_is_an_error_naming_it(
    ink: Callable[..., Any], fake: FakeModelServer, ws: Path
) -> None:
    _project(ws)
    (ws / ".ink").mkdir()
    settings = {"lsp": {"python": {"command": ["no-such-langserver", "--stdio"]}}}
    (ws / ".ink" / "settings.json").write_text(json.dumps(settings))
    fake.push(
        tool("lsp", {"operation": "hover", "path": "pkg/util.py", "line": 1, "symbol": "greet"}),
        text("done"),
    )
    run: Run = await ink("--json", "--approval", "auto", "--trust-workspace", "hover greet")
    assert await run.finish() == 0, run.stderr
    [end] = [e for e in run.events if e["type"] == "tool_end"]
    assert end["is_error"]
    assert end["content"][0]["text"].startswith(
        "the python language server `no-such-langserver --stdio` could not start"
    )


async def test_no_lsp_tool_without_a_language_the_servers_cover(
    ink: Callable[..., Any], fake: FakeModelServer, ws: Path
) -> None:
    fake.push(text("nothing to do"))
    run: Run = await ink("--json", "--approval", "auto", "hi")
    assert await run.finish() == 0, run.stderr
    names = [t["function"]["name"] for t in fake.requests[0]["tools"]]
    assert "lsp" not in names and "read" in names


async def test_questions_are_reads_in_plan_mode_and_a_rename_is_refused(
    ink: Callable[..., Any], fake: FakeModelServer, ws: Path
) -> None:
    _project(ws)
    fake.push(
        tool("lsp", {"operation": "definition", "path": "pkg/main.py", "line": 5, "column": 12}),
        tool(
            "lsp",
            {"operation": "rename", "path": "pkg/util.py", "line": 1, "symbol": "greet"}
            | {"new_name": "salute"},
        ),
        text("planned"),
    )
    run: Run = await ink("--json", "--approval", "plan", "plan a rename")
    assert await run.finish() == 0, run.stderr
    ends = [e for e in run.events if e["type"] == "tool_end"]
    assert not ends[0]["is_error"]
    assert ends[0]["content"][0]["text"] == "pkg/util.py:1: def greet(name: str) -> str:"
    assert ends[1]["is_error"] and "plan mode" in ends[1]["content"][0]["text"]
    assert (ws / "pkg" / "util.py").read_text() == UTIL
