"""The editor's diagnostics as the agent sees them: appended to `edit`/`write` results, and the
`diagnostics` tool. Both exist only for clients that announce `experimental.ink.diagnostics`
(see `editor.diagnostics`); without it the tools are the built-ins, unchanged.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from pydantic import Field

from ink_ls.core.messages import TextBlock
from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import (
    Access,
    AnyTool,
    Tool,
    ToolContext,
    ToolParams,
    ToolRegistry,
    ToolResult,
    open_or_disk_text,
)
from ink_ls.editor.diagnostics import (
    CAP,
    EditorDiagnostics,
    describe,
    introduced,
    is_problem,
    report,
)
from ink_ls.editor.documents import uri_to_path

CHECKED = ("edit", "write")
WORKSPACE_CAP = 100


def _read(path: Path, context: ToolContext) -> str:
    return open_or_disk_text(context.files, path)


def _shown(path: Path, cwd: Path) -> str:
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


def with_diagnostics(tool: AnyTool, diagnostics: EditorDiagnostics) -> AnyTool:
    """A copy of `tool` (edit or write) whose successful results end with the problems the
    change introduced, as the editor reports them once they settle."""
    base: type[Any] = type(tool)

    async def execute(
        self: Any, args: Any, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        path = Path(args.path)
        path = path if path.is_absolute() else context.cwd / path
        before = await diagnostics.snapshot(path, _read(path, context))
        mark = diagnostics.mark(path)
        result: ToolResult = await base.execute(self, args, signal, context)
        if result.is_error or signal.cancelled:
            return result
        after = await diagnostics.after_change(
            path, mark, lambda: _read(path, context), watched=before.watched
        )
        if not (before.watched or after.watched):
            return result  # nothing in the editor reports on this file: say nothing
        note = report(introduced(before, after), _shown(path, context.cwd))
        if result.content is not None:
            result.content = [*result.content, TextBlock(text="\n\n" + note)]
        else:
            result.output = f"{result.output}\n\n{note}"
        return result

    checked = type(base.__name__, (base,), {"execute": execute})
    clone = copy.copy(tool)
    clone.__class__ = checked
    return clone


class DiagnosticsParams(ToolParams):
    path: str | None = Field(
        default=None,
        description="A file, relative to the workspace root or absolute. Omit it for every "
        "file the editor has problems for.",
    )


class DiagnosticsTool(Tool[DiagnosticsParams]):
    name = "diagnostics"
    description = (
        "The errors and warnings the user's editor reports (its language servers and linters) "
        "for one file, or for the whole workspace when no path is given.\n\n"
        f"At most {CAP} problems per file and {WORKSPACE_CAP} in all are listed; the rest are "
        "counted. Files the editor has not open may show no problems until they are opened."
    )
    params_model = DiagnosticsParams
    concurrency_safe = True

    def __init__(self, diagnostics: EditorDiagnostics) -> None:
        self._diagnostics = diagnostics

    def access(self, args: DiagnosticsParams, cwd: Path) -> Access | None:
        if args.path is None:
            return Access()
        path = Path(args.path)
        return Access(reads=frozenset({path if path.is_absolute() else cwd / path}))

    async def execute(
        self, args: DiagnosticsParams, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        paths = None
        if args.path is not None:
            path = Path(args.path)
            paths = [path if path.is_absolute() else context.cwd / path]
        items = await self._diagnostics.fetch(paths)
        lines: list[str] = []
        total = 0
        for item in sorted(items.values(), key=lambda i: i.uri):
            file = uri_to_path(item.uri)
            problems = sorted(
                (d for d in item.diagnostics if is_problem(d)),
                key=lambda d: (d.range.start.line, d.range.start.character),
            )
            if file is None or not problems:
                continue
            total += len(problems)
            shown = _shown(file, context.cwd)
            for d in problems[:CAP]:
                if len(lines) < WORKSPACE_CAP:
                    lines.append(describe(d, shown))
        if not lines:
            where = args.path if args.path is not None else "the workspace"
            return ToolResult(output=f"The editor reports no errors or warnings in {where}.")
        if total > len(lines):
            lines.append(f"[{total - len(lines)} more problems not listed]")
        return ToolResult(output="\n".join(lines))


def editor_tools(tools: ToolRegistry, diagnostics: EditorDiagnostics | None) -> ToolRegistry:
    """`tools` with edit/write reporting the diagnostics they cause and a `diagnostics` tool,
    when the client offers diagnostics; else `tools` unchanged."""
    if diagnostics is None:
        return tools
    out = ToolRegistry(with_diagnostics(t, diagnostics) if t.name in CHECKED else t for t in tools)
    if out.get(DiagnosticsTool.name) is None:
        out.register(DiagnosticsTool(diagnostics))
    return out
