"""The rename part of the VS Code workbench test (vscode/rename_cases.mjs): the scripted
model's `lsp` rename of a TypeScript function, and what the model must have been told after
the user edited two of the three proposed files."""

from __future__ import annotations

from tests.editors._vscode_intel import message_text
from tests.fakes.model_server import FakeModelServer, Reply, tool

STEPS: dict[str, list[Reply]] = {
    "[rn-ts]": [
        tool(
            "lsp",
            {
                "operation": "rename",
                # at the declaration: from an import's use, TypeScript renames only that
                # file (`import { area as surface }`)
                "path": "rndemo/shapes.ts",
                "line": 2,
                "symbol": "area",
                "new_name": "surface",
            },
        )
    ],
}

CASES = ["rename: the user edits two of the rename's three proposed files; their versions land"]


def check(model: FakeModelServer) -> None:
    """The rename's result named the two files the user changed, with a diff for each."""
    told = next(
        message_text(m)
        for r in model.requests
        for m in r["messages"]
        if m.get("role") == "tool" and message_text(m).startswith("Renamed to surface")
    )
    summary, note = told.split("\nThe user modified", 1)
    assert [line.split(":")[0] for line in summary.splitlines()] == [
        "Renamed to surface in 3 file(s)",
        "rndemo/large.ts",
        "rndemo/shapes.ts",
        "rndemo/small.ts",
    ], told
    assert note.startswith(
        " your proposed change before accepting it, in 2 of 3 files: rndemo/shapes.ts, "
        "rndemo/small.ts hold their version, not yours"
    ), told
    assert "-  return side * side;\n+  return side * side; // squared\n" in note, told
    assert (
        "-export const small = surface(2);\n+export const small = surface(2); // mine\n" in note
    ), told
    assert "rndemo/large.ts (your proposal)" not in note, told
