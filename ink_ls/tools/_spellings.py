"""Paths as people and models spell them: when the exact path does not exist, find the file
the user meant.

A chat mention adds a leading `@`; a name copied from a screen turns macOS's narrow no-break
space (`Screenshot 2024-01-02 at 1.02.03 PM.png` has U+202F before `PM`) or a no-break space
into a plain one; curly and straight quotes get swapped; macOS writes names decomposed (NFD)
while people type them composed (NFC). Each path component that does not exist is compared
with its directory's entries under a key that folds those differences. One match is used, with
a note saying which file it is; several are an error listing them. An exact path always wins,
and nothing here is tried when it exists.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from ink_ls.core.messages import TextBlock
from ink_ls.core.tool import ToolContext, ToolResult
from ink_ls.tools._paths import real, relative_for_display, resolve

_SPACES = "\u00a0" + "".join(map(chr, range(0x2000, 0x200B))) + "\u202f\u205f\u3000"
_SINGLE = "\u2018\u2019\u201a\u201b"
_DOUBLE = "\u201c\u201d\u201e\u201f"
_FOLD = (
    {ord(c): " " for c in _SPACES} | {ord(c): "'" for c in _SINGLE} | {ord(c): '"' for c in _DOUBLE}
)
_MAX_CANDIDATES = 20
"""Where one spelling fits more entries than this, the walk stops widening (a listing bound)."""


class AmbiguousPathError(Exception):
    """The path does not exist and several files match its other spellings."""


@dataclass(frozen=True)
class Located:
    """The path a tool uses, and the note for the model when it is not the one given."""

    path: Path
    note: str | None = None


def _key(name: str) -> str:
    return unicodedata.normalize("NFC", name).translate(_FOLD)


def visible(text: str) -> str:
    """`text` with the characters that look alike shown as `\\uXXXX` (spaces, quotes, accents)."""
    out = []
    for ch in text:
        special = ord(ch) in _FOLD or unicodedata.combining(ch)
        out.append(f"\\u{ord(ch):04x}" if special else ch)
    return "".join(out)


def _may_vary(part: str) -> bool:
    """Whether another name can share `part`'s key: only one with a space, a quote or a
    non-ASCII character can (so a missing plain name costs no directory listing)."""
    return not part.isascii() or any(c in part for c in " '\"")


def _walk(path: Path) -> list[Path]:
    """Existing paths whose components match `path`'s under `_key` (exact components first)."""
    current = [Path(path.parts[0])]
    for part in path.parts[1:]:
        found: list[Path] = []
        key = _key(part)
        for base in current:
            exact = base / part
            if os.path.lexists(exact):
                found.append(exact)
                continue
            if not _may_vary(part):
                continue
            try:
                names = os.listdir(base)
            except OSError:
                continue
            found.extend(base / name for name in names if _key(name) == key)
        if not found:
            return []
        current = found[:_MAX_CANDIDATES]
    return current


def _differences(given: str, used: str) -> str:
    """What sets the used spelling apart from the given one, in words."""
    said: list[str] = []
    if given.startswith("@") and not used.startswith("@"):
        said.append("without the leading @")
        given = given[1:]
    odd_spaces = sorted({c for c in used if c in _SPACES} - set(given))
    if odd_spaces:
        names = ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, '').lower()}" for c in odd_spaces)
        said.append(f"with {names} where a plain space was given")
    if any(c in used for c in _SINGLE + _DOUBLE) != any(c in given for c in _SINGLE + _DOUBLE):
        said.append("with the other kind of quotes")
    nfd = unicodedata.is_normalized("NFD", used) and not unicodedata.is_normalized("NFD", given)
    nfc = unicodedata.is_normalized("NFC", used) and not unicodedata.is_normalized("NFC", given)
    if nfd:
        said.append("in decomposed Unicode (NFD)")
    elif nfc:
        said.append("in composed Unicode (NFC)")
    return "; ".join(said) or "spelled differently"


def locate(
    given: str,
    cwd: Path,
    *,
    new_file: bool = False,
    is_open: Callable[[Path], bool] | None = None,
) -> Located:
    """The path to use for `given`. Raises `AmbiguousPathError` when several spellings match.

    The exact path (or an editor buffer open at it) is used when it exists; a missing path
    with no other spelling is returned as it is, for the tool to report. With `new_file`
    (write), a missing file is looked for the same way, then its parent directory.
    """
    exact = resolve(given, cwd)
    if os.path.lexists(exact) or (is_open is not None and is_open(exact)):
        return Located(exact)
    texts = [given] + ([given[1:]] if given.startswith("@") and given[1:].strip() else [])
    found: list[Path] = []
    for text in texts:
        for path in _walk(resolve(text, cwd)):
            if path not in found:
                found.append(path)
    if len(found) == 1:
        return Located(found[0], _note(given, found[0], cwd))
    if found:
        names = ", ".join(f'"{visible(relative_for_display(p, cwd))}"' for p in found)
        raise AmbiguousPathError(
            f'Error: "{visible(given)}" does not exist, and {len(found)} paths match it when '
            f"spaces, quotes, Unicode forms and a leading @ are not told apart: {names}. "
            "Give the exact path of the one you mean."
        )
    if new_file and exact.name:
        parent = locate(os.fspath(Path(given).parent), cwd)
        if parent.note is not None:
            return Located(parent.path / exact.name, _note(given, parent.path / exact.name, cwd))
    return Located(exact)


def _note(given: str, used: Path, cwd: Path) -> str:
    shown = relative_for_display(used, cwd)
    return (
        f'[Note: "{visible(given)}" does not exist; used "{visible(shown)}", the same name '
        f"{_differences(given, shown)}.]"
    )


def located_real(given: str, cwd: Path, *, new_file: bool = False) -> Path:
    """`real` of the located path (for `Tool.access`); the exact path when it is ambiguous."""
    try:
        return Path(os.path.realpath(locate(given, cwd, new_file=new_file).path))
    except AmbiguousPathError:
        return real(given, cwd)


async def at_located(
    given: str,
    context: ToolContext,
    run: Callable[[Path], Awaitable[ToolResult]],
    *,
    new_file: bool = False,
    buffers: bool = False,
) -> ToolResult:
    """`run` on the path `given` names in the workspace (another spelling of it when only that
    exists, noted first in the result); an error result when several spellings match.
    `buffers`: a file open in the editor counts as existing even when it is not on disk."""
    files = context.files
    is_open = (lambda p: files.open_document(p) is not None) if buffers else None
    try:
        located = locate(given, context.cwd, new_file=new_file, is_open=is_open)
    except AmbiguousPathError as exc:
        return ToolResult(str(exc), is_error=True)
    return with_note(await run(located.path), located.note)


def with_note(result: ToolResult, note: str | None) -> ToolResult:
    """`result` with `note` put first in what the model reads (text and content blocks)."""
    if note is None:
        return result
    result.output = f"{note}\n{result.output}" if result.output else note
    if result.content is not None:
        result.content = [TextBlock(text=note), *result.content]
    return result
