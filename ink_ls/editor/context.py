"""The prompt's editor context: which document the user asked from and the selected text.

Reads the open buffer when the document is open, else the disk (a regular file, not through
a link out of the workspace, size capped). Never fails a prompt: an unreadable document is
simply named without its text.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ink_ls.core.fileio import meant_inside, read_workspace_file
from ink_ls.editor.documents import OpenDocuments, uri_to_path
from ink_ls.protocol.models import SessionPromptParams

_CONTEXT = re.compile(
    r"(?P<prompt>.*)\n\nContext: the user is looking at (?P<path>[^\n]+?)"
    r"(?: \(lines (?P<first>\d+)-(?P<last>\d+)\))?(?:, selected text:\n```\n.*\n```)?",
    re.DOTALL,
)


log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AskedFrom:
    """A user message taken apart: the prompt as typed and the document it was asked from."""

    prompt: str
    path: str | None = None
    first_line: int | None = None
    last_line: int | None = None


def split_context(message: str) -> AskedFrom:
    """Undo `prompt_with_context` (for replaying a stored session): the prompt and its document.

    A message without the context suffix is returned whole.
    """
    match = _CONTEXT.fullmatch(message)
    if match is None:
        return AskedFrom(message)
    first, last = match["first"], match["last"]
    return AskedFrom(
        match["prompt"],
        match["path"],
        int(first) if first else None,
        int(last) if last else None,
    )


def _display_path(path: Path, cwd: Path) -> str:
    try:
        return str(path.resolve().relative_to(cwd.resolve()))
    except ValueError:
        return str(path)


CONTEXT_CAP = 4 * 1024 * 1024
"""Bytes of a document that is not open read from disk for the selection (more is left out)."""


def _read_context(path: Path, cwd: Path) -> str | None:
    """The document from disk: a regular file only (a FIFO would block), and a path named
    inside the workspace only when it stays inside after resolving links."""
    root = cwd if meant_inside(path, cwd) else Path(os.path.realpath(path)).parent
    try:
        data, size = read_workspace_file(path, root, limit=CONTEXT_CAP)
    except OSError as exc:
        log.info("not reading %s for the prompt's context: %s", path, exc.strerror or exc)
        return None
    if size > CONTEXT_CAP:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _selection(
    params: SessionPromptParams, documents: OpenDocuments, cwd: Path
) -> tuple[str, int | None, int | None, str | None] | None:
    """(path as shown, first line, last line, selected text) of the prompt's document; None
    without one. Lines are None without a range, the text None when it cannot be read."""
    if params.text_document is None:
        return None
    path = uri_to_path(params.text_document.uri)
    if path is None:
        return None
    shown = _display_path(path, cwd)
    rng = params.range
    if rng is None:
        return shown, None, None, None
    text = documents.open_document(path)
    if text is None:
        text = _read_context(path, cwd)
    first, last = rng.start.line + 1, rng.end.line + (0 if rng.end.character == 0 else 1)
    selected = documents.text_in_range(text, rng.model_dump()) if text is not None else None
    return shown, first, max(first, last), selected


def context_line(params: SessionPromptParams, documents: OpenDocuments, cwd: Path) -> str:
    """`Context: the user is looking at …` (with the selection), or "" without a document."""
    found = _selection(params, documents, cwd)
    if found is None:
        return ""
    shown, first, last, selected = found
    context = f"Context: the user is looking at {shown}"
    if first is None:
        return context
    context += f" (lines {first}-{last})"
    if selected is None:
        return context
    return f"{context}, selected text:\n```\n{selected}\n```"


def selection_block(params: SessionPromptParams, documents: OpenDocuments, cwd: Path) -> str:
    """What `@selection` attaches: the selected text with its file and lines ("" when the
    prompt has no range or its text cannot be read)."""
    found = _selection(params, documents, cwd)
    if found is None or found[3] is None:
        return ""
    shown, first, last, selected = found
    return f'<selection path="{shown}" lines="{first}-{last}">\n{selected}\n</selection>'


def prompt_with_context(params: SessionPromptParams, documents: OpenDocuments, cwd: Path) -> str:
    """The user message: the prompt, then the document (and selection) it was asked from."""
    line = context_line(params, documents, cwd)
    return f"{params.prompt}\n\n{line}" if line else params.prompt
