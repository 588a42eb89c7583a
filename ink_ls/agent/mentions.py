"""@-mentions in a prompt: `@path` attaches a file (the front end's open buffer first),
`@path#L10-20` its lines, `@folder/` a listing, `@selection` and `@problems` what the front end
offers (`MentionSources`). Only a word that starts with `@` counts (never `user@host`), and only
a path that exists or a source the front end has; the prompt stays as typed, attachments follow.
"""

from __future__ import annotations

import os
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from ink_ls.core.tool import DiskFiles, FileView, document_text

_MENTION = re.compile(r"(?<!\S)@([^\s@]+)")
_RANGE = re.compile(r"#L(\d+)(?:-L?(\d+))?$")
_TRAILING = ",.;:!?)]}'\""
MAX_LINES = 2000
MAX_CHARS = 100_000
MAX_ENTRIES = 500


Source = Callable[[], Awaitable[str | None]]
"""Gives an attachment's text (None or "": nothing to attach, the mention stays as typed)."""


@dataclass(frozen=True)
class MentionSources:
    """What a front end offers `@selection` and `@problems` (None: it has no such thing)."""

    selection: Source | None = None
    problems: Source | None = None


_SPECIAL = ("selection", "problems")


def _target(word: str, cwd: Path) -> tuple[Path, str, tuple[int, int] | None] | None:
    """(path, as written, line range) for a mention that names an existing path, else None.
    Trailing punctuation (`see @a.py,`) is dropped when the path only exists without it."""
    for candidate in (word, word.rstrip(_TRAILING)):
        lines: tuple[int, int] | None = None
        name = candidate
        found = _RANGE.search(candidate)
        if found is not None:
            start = int(found.group(1))
            end = int(found.group(2)) if found.group(2) else start
            lines, name = (min(start, end), max(start, end)), candidate[: found.start()]
        path = Path(os.path.expanduser(name))
        path = path if path.is_absolute() else cwd / path
        if name and path.exists():
            return path, name, lines
    return None


async def _file(path: Path, name: str, lines: tuple[int, int] | None, files: FileView) -> str:
    try:
        text = await document_text(files, path)  # an open buffer's unsaved text wins
    except Exception:  # a client that fails to answer: the disk then
        text = None
    try:
        text = path.read_text(encoding="utf-8", errors="replace") if text is None else text
    except OSError as exc:
        return f'<file path="{name}">\n(could not be read: {exc.strerror})\n</file>'
    rows = text.splitlines()
    first, last = lines if lines is not None else (1, len(rows))
    chosen = rows[first - 1 : last]
    note = ""
    if len(chosen) > MAX_LINES:
        chosen, note = chosen[:MAX_LINES], f"\n(cut at {MAX_LINES} lines; read the rest)"
    body = "\n".join(chosen)
    if len(body) > MAX_CHARS:
        body, note = body[:MAX_CHARS], f"\n(cut at {MAX_CHARS} characters; read the rest)"
    span = f' lines="{first}-{min(last, len(rows))}"' if lines is not None else ""
    return f'<file path="{name}"{span}>\n{body}{note}\n</file>'


def _folder(path: Path, name: str) -> str:
    try:
        entries = sorted(os.scandir(path), key=lambda e: e.name.casefold())
    except OSError as exc:
        return f'<folder path="{name}">\n(could not be listed: {exc.strerror})\n</folder>'
    shown = [e.name + ("/" if e.is_dir() else "") for e in entries[:MAX_ENTRIES]]
    if len(entries) > MAX_ENTRIES:
        shown.append(f"… and {len(entries) - MAX_ENTRIES} more")
    return f'<folder path="{name}">\n' + "\n".join(shown) + "\n</folder>"


async def _special(word: str, sources: MentionSources, seen: set[object]) -> str | None:
    """The attachment of `@selection` / `@problems` ("" when already attached), or None when
    `word` is neither or the front end has no such source."""
    name = word.rstrip(_TRAILING)
    source = getattr(sources, name) if name in _SPECIAL else None
    if source is None:
        return None
    if name in seen:
        return ""
    seen.add(name)
    return (await source()) or None


async def attach_mentions(
    prompt: str,
    cwd: Path,
    files: FileView | None = None,
    sources: MentionSources | None = None,
) -> str:
    """`prompt` followed by what its @-mentions name (each once, in order); files are read
    through `files` (the front end's view: an open buffer before the disk)."""
    files = files if files is not None else DiskFiles()
    sources = sources if sources is not None else MentionSources()
    parts: list[str] = []
    seen: set[object] = set()
    for match in _MENTION.finditer(prompt):
        special = await _special(match.group(1), sources, seen)
        if special is not None:
            if special:
                parts.append(special)
            continue
        target = _target(match.group(1), cwd)
        if target is None:
            continue
        path, name, lines = target
        key = (path.resolve(), lines)
        if key in seen:
            continue
        seen.add(key)
        parts.append(
            _folder(path, name) if path.is_dir() else await _file(path, name, lines, files)
        )
    return "\n\n".join([prompt, *parts]) if parts else prompt
