"""The second editor-intelligence part of the VS Code workbench test (vscode/intel2_cases.mjs):
the scripted model's `lsp` implementation, workspace-symbol, outgoing-call and rename calls on
the TypeScript files that module writes, and what the model must have been told.
"""

from __future__ import annotations

import json
import re

from tests.editors._vscode_intel import tool_results
from tests.fakes.model_server import FakeModelServer, Reply, tool

_RENAME = tool(
    "lsp",
    {
        "operation": "rename",
        "path": "tsdemo/scale.ts",
        "line": 2,
        "symbol": "scale",
        "new_name": "multiply",
    },
)

STEPS: dict[str, list[Reply]] = {
    "[lsp2-nav]": [
        # the interface's method: its three implementations, in two files
        tool(
            "lsp",
            {
                "operation": "implementation",
                "path": "tsdemo/shapes.ts",
                "line": 3,
                "symbol": "area",
            },
        ),
        tool(
            "lsp",
            {"operation": "workspace_symbols", "path": "tsdemo/geometry.ts", "query": "totalArea"},
        ),
        tool(
            "lsp",
            {
                "operation": "outgoing_calls",
                "path": "tsdemo/geometry.ts",
                "line": 19,
                "symbol": "demo",
            },
        ),
    ],
    "[lsp2-rename-reject]": [_RENAME],
    "[lsp2-rename-accept]": [_RENAME],
}

CASES = [
    "intel2: implementation, workspace symbols and outgoing calls of TypeScript code from VS Code",
    "intel2: an lsp rename across two files is one review with both diffs; Reject changes nothing",
    "intel2: an lsp rename accepted once changes both open buffers and both files",
]

IMPLEMENTATIONS = "\n".join(
    [
        "tsdemo/geometry.ts:10: area(): number {",
        "tsdemo/shapes.ts:9: area(): number {",
        "tsdemo/shapes.ts:17: area(): number {",
    ]
)
WORKSPACE_SYMBOLS = "tsdemo/geometry.ts:15: function totalArea"
_CALLS_LINE = (
    "tsdemo/geometry.ts:20: const shapes = [new Square(2), new Circle(1), new Rect(2, 3)];"
)
_RETURN_LINE = "tsdemo/geometry.ts:21: return scale(totalArea(shapes), 2);"
OUTGOING = "\n".join(
    [
        f"{_CALLS_LINE}  (class Circle)",
        f"{_CALLS_LINE}  (class Rect)",
        f"{_CALLS_LINE}  (class Square)",
        f"{_RETURN_LINE}  (function scale)",
        f"{_RETURN_LINE}  (function totalArea)",
    ]
)


def check(model: FakeModelServer, out: str) -> None:
    """What the model was told: VS Code's TypeScript answers as `path:line: code` lines; the
    rejected rename as a refusal, the accepted one naming both files. Prints how long these
    cases took (`out`: the workbench script's output, whose PASS lines end with the time)."""
    results = tool_results(model, "[lsp2-nav]")
    assert results == [IMPLEMENTATIONS, WORKSPACE_SYMBOLS, OUTGOING], json.dumps(results, indent=1)
    (rejected,) = tool_results(model, "[lsp2-rename-reject]")
    assert "the user rejected this edit in the diff view" in rejected, rejected
    (accepted,) = tool_results(model, "[lsp2-rename-accept]")
    assert accepted == (
        "Renamed to multiply in 2 file(s):\ntsdemo/geometry.ts: 2 edits\ntsdemo/scale.ts: 1 edit"
    ), accepted
    took = [int(m) for m in re.findall(r"^PASS intel2: .* \((\d+) ms\)$", out, flags=re.M)]
    print(f"\nintel2 cases: {' / '.join(map(str, took))} ms, {sum(took)} ms in all")
