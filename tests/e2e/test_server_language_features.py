"""The `lsp` tool answered by the editor's own language servers (`ink/languageFeatures`),
through the real server: the pytest-lsp client plays an editor whose servers answer with raw
LSP results; positions travel in the negotiated encoding both ways; `available: false` falls
back to a server ink-ls starts itself (jedi-language-server) or says no server covers it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ink_ls.editor.documents import path_to_uri
from tests.e2e.conftest import InkClient, Starter, tool_results
from tests.fakes.model_server import FakeModelServer, text, tool

UTIL = "def greet(name):\n    return name\n"
MAIN = 'from util import greet\n\nx = "é" + greet("w")\n'
CAPS = {"ink": {"languageFeatures": True}}


def _range(line: int, start: int, end: int) -> dict[str, Any]:
    return {
        "start": {"line": line, "character": start},
        "end": {"line": line, "character": end},
    }


class EditorServers:
    """What the editor's language servers answer (for .py files only), and what was asked."""

    def __init__(self, client: InkClient, root: Path) -> None:
        self.root = root
        self.asked: list[dict[str, Any]] = []
        encoding = client.init_result.capabilities.position_encoding if client.init_result else None
        self.utf8 = str(getattr(encoding, "value", encoding)) == "utf-8"
        # `greet` in main.py line 3: character 10, byte 11 (after the two-byte é)
        self.col = 11 if self.utf8 else 10

    def uri(self, name: str) -> str:
        return path_to_uri(self.root / name)

    async def answer(self, params: dict[str, Any]) -> dict[str, Any]:
        self.asked.append(params)
        uri = params["textDocument"]["uri"]
        if not uri.endswith(".py") or params["operation"] == "hover":
            return {"available": False}
        util, main = self.uri("util.py"), self.uri("main.py")
        op = params["operation"]
        if op == "references":
            ref = {"uri": main, "range": _range(2, self.col, self.col + 5)}
            decl = {"uri": util, "range": _range(0, 4, 9)}
            link = {  # a second server answering the same place: one line in the answer
                "targetUri": util,
                "targetRange": _range(0, 0, 30),
                "targetSelectionRange": _range(0, 4, 9),
            }
            return {"available": True, "result": [ref, decl, link]}
        if op == "rename":
            new = params["newName"]
            return {
                "available": True,
                "result": {
                    "documentChanges": [
                        {
                            "textDocument": {"uri": util, "version": None},
                            "edits": [{"range": _range(0, 4, 9), "newText": new}],
                        },
                        {
                            "textDocument": {"uri": main, "version": None},
                            "edits": [
                                {"range": _range(0, 17, 22), "newText": new},
                                {"range": _range(2, self.col, self.col + 5), "newText": new},
                            ],
                        },
                    ]
                },
            }
        return {"available": False}


async def _start(start: Starter, workspace: Path) -> tuple[InkClient, EditorServers]:
    (workspace / "util.py").write_text(UTIL, encoding="utf-8")
    (workspace / "main.py").write_text(MAIN, encoding="utf-8")
    (workspace / "notes.txt").write_text("greet here\n", encoding="utf-8")
    client = await start(approval="auto", experimental=CAPS)
    editor = EditorServers(client, workspace)
    client.on_language_features = editor.answer
    return client, editor


async def test_references_and_rename_come_from_the_editor_in_its_encoding(
    start: Starter, model: FakeModelServer, workspace: Path
) -> None:
    client, editor = await _start(start, workspace)
    model.push(
        tool("lsp", {"operation": "references", "path": "main.py", "line": 3, "symbol": "greet"}),
        tool(
            "lsp",
            {
                "operation": "rename",
                "path": "main.py",
                "line": 3,
                "symbol": "greet",
                "new_name": "salute",
            },
        ),
        text("Renamed."),
    )
    result = await client.prompt("rename greet")
    assert result["stopReason"] == "end_turn"
    lsp_tool = next(t for t in model.requests[0]["tools"] if t["function"]["name"] == "lsp")
    assert "the editor's language servers" in lsp_tool["function"]["description"]
    [references] = tool_results(model.requests[1])
    assert references == 'main.py:3: x = "é" + greet("w")\nutil.py:1: def greet(name):'
    assert editor.asked[0] == {
        "operation": "references",
        "textDocument": {"uri": editor.uri("main.py")},
        "position": {"line": 2, "character": editor.col},
    }
    assert editor.asked[1]["newName"] == "salute"
    renamed = tool_results(model.requests[2])[-1]
    assert renamed == "Renamed to salute in 2 file(s):\nmain.py: 2 edits\nutil.py: 1 edit"
    assert (workspace / "util.py").read_text() == UTIL.replace("greet", "salute")
    assert (workspace / "main.py").read_text() == MAIN.replace("greet", "salute")


async def test_what_the_editor_does_not_cover_falls_back_to_ink_ls_servers_or_says_so(
    start: Starter, model: FakeModelServer, workspace: Path
) -> None:
    client, editor = await _start(start, workspace)
    model.push(
        tool("lsp", {"operation": "hover", "path": "util.py", "line": 1, "symbol": "greet"}),
        tool("lsp", {"operation": "definition", "path": "notes.txt", "line": 1, "column": 1}),
        text("Done."),
    )
    await client.prompt("what is greet")
    [hover] = tool_results(model.requests[1])
    assert "greet(name)" in hover  # jedi-language-server, started by ink-ls
    missing = tool_results(model.requests[2])[-1]
    assert missing == "no language server for .txt files"
    assert [a["operation"] for a in editor.asked] == ["hover", "definition"]


async def test_without_the_capability_the_editor_is_never_asked(
    start: Starter, model: FakeModelServer, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("x\n", encoding="utf-8")
    client = await start(approval="auto")  # the default handler fails the test if asked
    model.push(text("Hi."))
    await client.prompt("hello")
    names = [t["function"]["name"] for t in model.requests[0]["tools"]]
    assert "lsp" not in names  # no editor answerer, no Python in the workspace
