"""The editor's diagnostics for the agent (clients that announce `experimental.ink.diagnostics`).

`EditorDiagnostics` asks the client (`ink/diagnostics`) and follows its
`ink/diagnosticsChanged` notifications. After an approved edit or write, `after_change`
waits for the file's diagnostics to settle — until the client reports new ones and then
`QUIET` seconds pass without another report, at most `SETTLE` seconds, and only when
something in the editor reported diagnostics for the file before the change (a file it had
not open is loaded and taken as it is then: its servers are only starting) — and returns
the errors and warnings the change introduced: those of the new text that do not match one
of the old text (same message, code, source and severity on a line with the same content), so
moved lines keep their old problems and only new ones are told.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ink_ls.editor.client import EditorClient
from ink_ls.editor.documents import path_to_uri, uri_to_path
from ink_ls.protocol.methods import DIAGNOSTICS
from ink_ls.protocol.models import DiagnosticsParams, DiagnosticsResult, FileDiagnostics
from ink_ls.protocol.models import WireDiagnostic as Diagnostic

log = logging.getLogger(__name__)

SETTLE = 2.0
QUIET = 0.15
CAP = 20
"""Problems listed per file; the rest are counted."""
_SEVERITY = {1: "error", 2: "warning", 3: "info", 4: "hint"}


def _key(path: Path) -> str:
    return os.path.realpath(path)


def is_problem(d: Diagnostic) -> bool:
    """Errors and warnings (a diagnostic without severity counts as an error, per LSP)."""
    return d.severity in (None, 1, 2)


@dataclass
class Snapshot:
    """One file's diagnostics and text at one moment."""

    diagnostics: list[Diagnostic]
    text: str
    watched: bool


def introduced(before: Snapshot, after: Snapshot) -> list[Diagnostic]:
    """Problems of `after` that `before` did not have (matched by content of their line)."""
    old_lines, new_lines = before.text.splitlines(), after.text.splitlines()

    def key(d: Diagnostic, lines: list[str]) -> tuple[object, ...]:
        n = d.range.start.line
        line = lines[n].strip() if 0 <= n < len(lines) else ""
        return (d.message, str(d.code), d.source, d.severity or 1, line)

    left = Counter(key(d, old_lines) for d in before.diagnostics if is_problem(d))
    out = []
    for d in sorted(after.diagnostics, key=lambda d: (d.range.start.line, d.range.start.character)):
        if not is_problem(d):
            continue
        k = key(d, new_lines)
        if left[k] > 0:
            left[k] -= 1
        else:
            out.append(d)
    return out


def describe(d: Diagnostic, shown: str) -> str:
    """`a.py:3:8: warning [Ruff F401] `os` imported but unused`."""
    label = " ".join(str(x) for x in (d.source, d.code) if x not in (None, ""))
    tag = f" [{label}]" if label else ""
    severity = _SEVERITY.get(d.severity or 1, "error")
    start = d.range.start
    message = " ".join(d.message.split())
    return f"{shown}:{start.line + 1}:{start.character + 1}: {severity}{tag} {message}"


def report(problems: list[Diagnostic], shown: str) -> str:
    """The block appended to an edit's result (capped)."""
    if not problems:
        return f"[The editor reports no new errors or warnings in {shown} after this change.]"
    head = (
        f"[The editor reports {len(problems)} new problem(s) in {shown} after this change "
        "(errors and warnings that were not there before):]"
    )
    lines = [describe(d, shown) for d in problems[:CAP]]
    if len(problems) > CAP:
        lines.append(f"[… {len(problems) - CAP} more; call the diagnostics tool to see all]")
    return "\n".join([head, *lines])


class EditorDiagnostics:
    """Asks the editor for diagnostics and notices when they change."""

    def __init__(
        self, client: EditorClient, *, settle: float = SETTLE, quiet: float = QUIET
    ) -> None:
        self._client = client
        self.settle = settle
        self.quiet = quiet
        self._counts: dict[str, int] = {}
        self._events: dict[str, asyncio.Event] = {}
        self.waits: list[float] = []
        """Seconds each `after_change` waited (for the report's figures)."""

    def changed(self, uris: list[str]) -> None:
        """`ink/diagnosticsChanged` from the client."""
        for uri in uris:
            path = uri_to_path(uri)
            if path is None:
                continue
            key = _key(path)
            self._counts[key] = self._counts.get(key, 0) + 1
            event = self._events.pop(key, None)
            if event is not None:
                event.set()

    async def fetch(
        self, paths: list[Path] | None, *, load: bool = False
    ) -> dict[str, FileDiagnostics]:
        """The client's diagnostics by real path (every file it knows when `paths` is None).
        With `load` the client loads files it has not open, so their language servers see
        them (after a change: the new text is what matters)."""
        uris = [path_to_uri(p) for p in paths] if paths is not None else None
        params = DiagnosticsParams(uris=uris, load=load)
        raw = await self._client.request(DIAGNOSTICS, params.dump())
        result = DiagnosticsResult.model_validate(raw or {})
        out: dict[str, FileDiagnostics] = {}
        for item in result.items:
            path = uri_to_path(item.uri)
            if path is not None:
                out[_key(path)] = item
        return out

    async def _next_change(self, key: str, seen: int, timeout: float) -> bool:
        if self._counts.get(key, 0) != seen:
            return True
        event = self._events.setdefault(key, asyncio.Event())
        try:
            await asyncio.wait_for(event.wait(), max(timeout, 0.0))
        except TimeoutError:
            return False
        return True

    async def snapshot(self, path: Path, text: str, *, load: bool = False) -> Snapshot:
        item = (await self.fetch([path], load=load)).get(_key(path))
        if item is None:
            return Snapshot([], text, False)
        return Snapshot(item.diagnostics, text, item.watched)

    def mark(self, path: Path) -> int:
        """The change count of `path` now (pass it to `after_change`)."""
        return self._counts.get(_key(path), 0)

    async def after_change(
        self, path: Path, mark: int, read: Callable[[], str], *, watched: bool
    ) -> Snapshot:
        """The file's diagnostics once settled after a change (see the module doc), with the
        file's text read then (the editor's copy may catch up with the change late)."""
        key = _key(path)
        loop = asyncio.get_running_loop()
        start = loop.time()
        deadline = start + self.settle
        current = await self.snapshot(path, "", load=True)  # its servers see the new text
        if watched:  # a file that was not watched before: its servers only start on it now
            if await self._next_change(key, mark, deadline - loop.time()):
                while True:  # more sources may still report: wait for a quiet moment
                    seen = self._counts.get(key, 0)
                    left = min(self.quiet, deadline - loop.time())
                    if left <= 0 or not await self._next_change(key, seen, left):
                        break
            current = await self.snapshot(path, "", load=True)
        current.text = read()
        waited = loop.time() - start
        self.waits.append(waited)
        log.info("diagnostics of %s settled after %.0f ms", path.name, waited * 1000)
        return current
