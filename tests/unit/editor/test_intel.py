"""`EditorIntel`: the editor's raw LSP answers become the `lsp` tool's records (the shared
conversion), `available: false` hands over to the next answerer, a silent editor times out."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from ink_ls.editor.documents import OpenDocuments, path_to_uri
from ink_ls.editor.intel import EditorIntel, calls, hover, locations, symbols
from ink_ls.tools.lsp_answers import (
    Answerers,
    Call,
    Location,
    LspUnavailableError,
    NotCoveredError,
    Position,
    Symbol,
    TextEdit,
)

A = Path("/ws/a.py")
B = Path("/ws/b.py")


def _range(line: int, start: int, end: int) -> dict[str, Any]:
    return {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}


class FakeEditor:
    """An `EditorClient` answering `ink/languageFeatures` with a fixed result (or never)."""

    def __init__(self, answer: Any = None, *, silent: bool = False) -> None:
        self.answer = answer
        self.silent = silent
        self.asked: list[tuple[str, dict[str, Any]]] = []

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        self.asked.append((method, params))
        if self.silent:
            await asyncio.Event().wait()
        return self.answer

    def notify(self, method: str, params: dict[str, Any]) -> None:
        return None


def test_locations_and_links_of_several_servers() -> None:
    raw = [
        {"uri": A.as_uri(), "range": _range(3, 4, 9)},
        {
            "targetUri": B.as_uri(),
            "targetRange": _range(0, 0, 20),
            "targetSelectionRange": _range(1, 4, 9),
        },
    ]
    assert locations(raw) == [Location(A, 3), Location(B, 1)]
    assert locations(None) == []
    assert locations({"uri": A.as_uri(), "range": _range(0, 0, 1)}) == [Location(A, 0)]


def test_hovers_of_several_servers_join_and_empty_ones_drop() -> None:
    raw = [
        {"contents": {"kind": "markdown", "value": "```python\ndef f()\n```"}},
        {"contents": [{"language": "python", "value": "f: int"}, "plain"]},
        {"contents": {"kind": "plaintext", "value": "  "}},
    ]
    assert hover(raw) == "```python\ndef f()\n```\n\n```python\nf: int\n```\n\nplain"


def test_document_and_workspace_symbols_in_every_shape() -> None:
    document = [
        {
            "name": "C",
            "kind": 5,
            "range": _range(0, 0, 40),
            "selectionRange": _range(0, 6, 7),
            "children": [
                {
                    "name": "m",
                    "kind": 6,
                    "range": _range(1, 4, 30),
                    "selectionRange": _range(1, 8, 9),
                }
            ],
        }
    ]
    assert symbols(document) == [Symbol("C", "class", 0, children=[Symbol("m", "method", 1)])]
    information = [
        {"name": "f", "kind": 12, "location": {"uri": B.as_uri(), "range": _range(7, 4, 5)}}
    ]
    assert symbols(information) == [Symbol("f", "function", 7, path=B)]
    workspace = [{"name": "g", "kind": 12, "location": {"uri": B.as_uri()}}]
    assert symbols(workspace) == [Symbol("g", "function", 0, path=B)]


def test_calls_in_and_out() -> None:
    item = {
        "name": "caller",
        "kind": 12,
        "uri": B.as_uri(),
        "range": _range(4, 0, 30),
        "selectionRange": _range(4, 4, 10),
    }
    incoming = [{"from": item, "fromRanges": [_range(5, 4, 9), _range(6, 4, 9)]}]
    assert calls("incoming_calls", incoming, A) == [
        Call("caller", "function", Location(B, 5)),
        Call("caller", "function", Location(B, 6)),
    ]
    outgoing = [{"to": item, "fromRanges": [_range(2, 4, 9)]}]
    assert calls("outgoing_calls", outgoing, A) == [Call("caller", "function", Location(A, 2))]


@pytest.mark.parametrize(("encoding", "col"), [("utf-8", 11), ("utf-16", 10), ("utf-32", 10)])
async def test_rename_positions_travel_in_the_negotiated_encoding(encoding: str, col: int) -> None:
    text = 'x = "é" + f("w")\n'  # `f` at character 10, byte 11
    documents = OpenDocuments(encoding)
    documents.did_open(path_to_uri(A), text, 1)
    edit = {"changes": {A.as_uri(): [{"range": _range(0, col, col + 1), "newText": "g"}]}}
    editor = FakeEditor({"available": True, "result": edit})
    intel = EditorIntel(editor, documents)
    edits = await intel.rename(A, text, Position(0, 10), "g")
    assert edits == {A: [TextEdit(Position(0, 10), Position(0, 11), "g")]}
    [(method, params)] = editor.asked
    assert method == "ink/languageFeatures"
    assert params == {
        "operation": "rename",
        "textDocument": {"uri": A.as_uri()},
        "position": {"line": 0, "character": col},
        "newName": "g",
    }


async def test_file_operations_in_a_rename_are_refused() -> None:
    edit = {"documentChanges": [{"kind": "rename", "oldUri": A.as_uri(), "newUri": B.as_uri()}]}
    intel = EditorIntel(FakeEditor({"available": True, "result": edit}), OpenDocuments())
    with pytest.raises(LspUnavailableError, match="create, move or delete files"):
        await intel.rename(A, "f\n", Position(0, 0), "g")


class Fallback:
    """ink-ls's own servers, as far as the chain sees them."""

    def languages(self) -> list[str]:
        return ["python (jedi-language-server)"]

    def operations(self) -> list[str]:
        return ["hover", "diagnostics"]

    def check(self, path: Path) -> None:
        if path.suffix != ".py":
            raise LspUnavailableError(f"no language server for {path.suffix} files")

    async def hover(self, path: Path, text: str, at: Position) -> str:
        return "from ink-ls's own server"


async def test_not_covered_hands_over_and_the_last_word_is_the_fallbacks() -> None:
    editor = EditorIntel(FakeEditor({"available": False}), OpenDocuments())
    with pytest.raises(NotCoveredError):
        await editor.hover(A, "f\n", Position(0, 0))
    chain = Answerers(editor, Fallback())  # type: ignore[arg-type]
    assert await chain.hover(A, "f\n", Position(0, 0)) == "from ink-ls's own server"
    with pytest.raises(LspUnavailableError, match=r"no language server for \.txt files"):
        await chain.hover(Path("/ws/n.txt"), "f\n", Position(0, 0))
    assert "diagnostics" in chain.operations()
    assert "diagnostics" not in editor.operations()  # the editor shares no diagnostics here


async def test_an_editor_that_never_answers_is_a_clear_error_not_a_hang() -> None:
    intel = EditorIntel(FakeEditor(silent=True), OpenDocuments(), timeout=0.05)
    with pytest.raises(LspUnavailableError, match=r"did not answer references within 0\.05 s"):
        await asyncio.wait_for(intel.locations("references", A, "f\n", Position(0, 0)), 5)


async def test_an_error_from_the_editor_is_told_not_hidden() -> None:
    class Failing(FakeEditor):
        async def request(self, method: str, params: dict[str, Any]) -> Any:
            raise RuntimeError("MethodNotFound")

    intel = EditorIntel(Failing(), OpenDocuments())
    with pytest.raises(LspUnavailableError, match="could not answer hover: MethodNotFound"):
        await intel.hover(A, "f\n", Position(0, 0))
