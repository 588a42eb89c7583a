"""The editor-intelligence part of the VS Code workbench test (vscode/intel_cases.mjs):
the scripted model's `lsp` calls on the TypeScript project that module writes, what the model
must have been told, and the latency of `lsp` through VS Code against `grep`.
"""

from __future__ import annotations

import json
import time
from typing import Any

from tests.fakes.model_server import FakeModelServer, Reply, tool

_ADD = {"path": "tsdemo/main.ts", "line": 3, "symbol": "add"}
_REFERENCES = tool("lsp", {"operation": "references", **_ADD})
_GREP = tool("grep", {"pattern": r"\badd\(", "path": "tsdemo"})

STEPS: dict[str, list[Reply]] = {
    "[lsp-definition]": [tool("lsp", {"operation": "definition", **_ADD})],
    "[lsp-references]": [_REFERENCES],
    # the same question twice each way, alternating (the TypeScript server is warm by now)
    "[lsp-timing]": [_REFERENCES, _GREP, _REFERENCES, _GREP],
    "[lsp-more]": [
        tool("lsp", {"operation": "hover", **_ADD}),
        tool("lsp", {"operation": "document_symbols", "path": "tsdemo/report.ts"}),
        tool(
            "lsp",
            {"operation": "incoming_calls", "path": "tsdemo/math.ts", "line": 2, "symbol": "add"},
        ),
    ],
    "[prompt-file]": [],
}

CASES = [
    "intel: VS Code's TypeScript features are active (a hover on add shows its signature)",
    "intel: the lsp tool answers references and definition of a TS function from VS Code",
    "intel: the lsp tool and grep on the same question, timed (printed by the wrapper)",
    "intel: hover, document symbols and incoming calls through VS Code (checked by the wrapper)",
    "intel: @ offers folders, @selection and @problems in the panel",
    "intel: / in the panel offers a prompt file's command, sent with its arguments",
    "intel: Ink: Run Prompt… picks the command, asks for its arguments and sends it",
]

DEFINITION = "tsdemo/math.ts:2: export function add(a: number, b: number): number {"
REFERENCES = "\n".join(
    [
        "tsdemo/main.ts:1: import { add } from './math';",
        "tsdemo/main.ts:3: export const total = add(1, 2);",
        "tsdemo/main.ts:4: console.log(add(total, 3));",
        "tsdemo/math.ts:2: export function add(a: number, b: number): number {",
        "tsdemo/report.ts:1: import { add } from './math';",
        "tsdemo/report.ts:4: return `sum: ${add(4, 5)}`;",
    ]
)

_arrivals: dict[str, list[float]] = {}


def note_request(prompt: str) -> None:
    """Records when a request of a timed turn arrives (the gaps are the tools' run times)."""
    for tag in ("[lsp-references]", "[lsp-timing]"):
        if tag in prompt:
            _arrivals.setdefault(tag, []).append(time.monotonic())


def message_text(message: dict[str, Any]) -> str:
    """A request message's text (a string, or the text parts of a list)."""
    content = message.get("content")
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def tool_results(model: FakeModelServer, tag: str) -> list[str]:
    """The tool results of the (last) turn whose prompt holds `tag`, in order."""
    for request in reversed(model.requests):
        messages = request["messages"]
        users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
        if users and tag in message_text(messages[users[-1]]):
            return [message_text(m) for m in messages[users[-1] + 1 :] if m.get("role") == "tool"]
    raise AssertionError(f"no request for {tag}")


def _user_prompts(model: FakeModelServer) -> list[str]:
    return [
        message_text(m) for r in model.requests for m in r["messages"] if m.get("role") == "user"
    ]


def check(model: FakeModelServer, out: str) -> None:
    """What the model was told: VS Code's answers as `path:line: code` lines, the prompt file's
    body with the arguments in it (front matter gone); prints the latency figures (`out`: the
    workbench script's output, which says when TypeScript's features answered first)."""
    assert tool_results(model, "[lsp-definition]") == [DEFINITION]
    assert tool_results(model, "[lsp-references]") == [REFERENCES]
    timed = tool_results(model, "[lsp-timing]")
    assert timed[0] == timed[2] == REFERENCES, json.dumps(timed)
    assert "tsdemo/main.ts:3:" in timed[1] and "tsdemo/report.ts:4:" in timed[1], timed[1]
    hover, symbols, callers = tool_results(model, "[lsp-more]")
    assert "add(a: number, b: number): number" in hover, hover
    assert symbols == "3: function report", symbols
    assert "tsdemo/report.ts:4: return `sum: ${add(4, 5)}`;  (function report)" in callers, callers
    assert "tsdemo/main.ts:3: export const total = add(1, 2);" in callers, callers
    prompts = _user_prompts(model)
    for args in ("tsdemo/main.ts", "tsdemo/report.ts"):
        assert any(p.startswith(f"[prompt-file] Review {args} for bugs.") for p in prompts), prompts
    assert not any("argument-hint" in p for p in prompts)
    cold = _arrivals["[lsp-references]"]
    at = _arrivals["[lsp-timing]"]
    gaps = [round((b - a) * 1000) for a, b in zip(at, at[1:], strict=False)]
    ready = [line for line in out.splitlines() if line.startswith("TypeScript features ready")]
    print(
        f"\n{ready[0] if ready else ''}"
        f"\nlsp through VS Code: references (first call, the TypeScript server up) "
        f"{round((cold[1] - cold[0]) * 1000)} ms; references warm {gaps[0]} / {gaps[2]} ms; "
        f"grep for the same callers {gaps[1]} / {gaps[3]} ms (each: model reply to next request)"
    )
