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


def prompt_with_context(params: SessionPromptParams, documents: OpenDocuments, cwd: Path) -> str:
    """The user message: the prompt, then the document (and selection) it was asked from."""
    if params.text_document is None:
        return params.prompt
    path = uri_to_path(params.text_document.uri)
    if path is None:
        return params.prompt
    shown = _display_path(path, cwd)
    context = f"Context: the user is looking at {shown}"
    rng = params.range
    if rng is None:
        return f"{params.prompt}\n\n{context}"
    text = documents.open_document(path)
    if text is None:
        text = _read_context(path, cwd)
    first, last = rng.start.line + 1, rng.end.line + (0 if rng.end.character == 0 else 1)
    context += f" (lines {first}-{max(first, last)})"
    if text is None:
        return f"{params.prompt}\n\n{context}"
    selected = documents.text_in_range(text, rng.model_dump())
    return f"{params.prompt}\n\n{context}, selected text:\n```\n{selected}\n```"
