"""Project instructions: `AGENTS.md` (else `CLAUDE.md`) of the workspace root and of every
directory from the root down to each file the agent reads or changes.

The root's file is loaded at the start; a subdirectory's when the agent first touches a path
under it. They reach the model in the system prompt, farther directories first, so nearer
files add to (and may refine) farther ones. All of them together are capped at
`INSTRUCTIONS_CAP` bytes; a file cut (or left out) by the cap says so and names itself, so the
model can read the rest. Paths outside the workspace root never pull instructions in, and an
instruction file that is a link out of the workspace, or not a regular file, is not read (a
warning in the log names it): a cloned repository cannot send the user's files to the model.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ink_ls.core.fileio import NotReadError, read_workspace_file
from ink_ls.core.messages import Message

log = logging.getLogger(__name__)

FILE_NAMES = ("AGENTS.md", "CLAUDE.md")
"""Looked up in this order per directory; the first that exists is that directory's file."""
INSTRUCTIONS_CAP = 32 * 1024

_INTRO = (
    "# Project instructions\n"
    "The project's instruction files follow (AGENTS.md, or CLAUDE.md where a directory has "
    "none). A file applies to its directory and everything under it; files of nearer "
    "directories add to and refine those of farther ones. Follow them unless the user says "
    "otherwise."
)


@dataclass(frozen=True)
class InstructionFile:
    path: Path
    text: str
    truncated: bool


class ProjectInstructions:
    """The instruction files of one workspace, loaded as they become relevant."""

    def __init__(self, root: Path, *, cap: int = INSTRUCTIONS_CAP) -> None:
        self.root = root.resolve()
        self.cap = cap
        self.files: list[InstructionFile] = []
        self._seen: set[Path] = set()
        self._used = 0
        self._scanned: tuple[int, Message | None] = (0, None)
        """How many messages of the history `unscanned` handed out, and the last of them."""

    def start(self) -> list[InstructionFile]:
        """The root's file (once)."""
        return self._load_dir(self.root)

    def relevant(self, paths: Iterable[Path]) -> list[InstructionFile]:
        """The files newly relevant for `paths` (files or directories the agent touched)."""
        added: list[InstructionFile] = []
        for raw in paths:
            path = raw if raw.is_absolute() else self.root / raw
            try:
                path = path.resolve()
                rel = path.relative_to(self.root)
            except (OSError, ValueError):
                continue  # outside the workspace: not the project's instructions
            top = path if path.is_dir() else path.parent
            depth = len(rel.parts) if path.is_dir() else len(rel.parts) - 1
            chain = [top, *list(top.parents)[: max(depth, 0)]]
            for directory in reversed(chain):  # farther first
                added += self._load_dir(directory)
        return added

    def unscanned(self, history: Sequence[Message]) -> Sequence[Message]:
        """The messages of `history` whose paths were not looked at yet (then counted as
        looked at): a turn pays for what it added, not for the whole session. When the
        history no longer starts with what was seen (a compaction, a rewind), all of it."""
        count, last = self._scanned
        if not (0 < count <= len(history) and history[count - 1] is last):
            count = 0  # replaced under us: looking again only finds directories already seen
        self._scanned = (len(history), history[-1] if history else None)
        return history[count:]

    def _load_dir(self, directory: Path) -> list[InstructionFile]:
        if directory in self._seen:
            return []
        self._seen.add(directory)
        for name in FILE_NAMES:
            candidate = directory / name
            if os.path.lexists(candidate):
                item = self._add(candidate)
                return [item] if item is not None else []
        return []

    def _add(self, path: Path) -> InstructionFile | None:
        left = max(self.cap - self._used, 0)
        try:
            raw, size = read_workspace_file(path, self.root, limit=left)
        except OSError as exc:
            reason = exc.strerror if isinstance(exc, NotReadError) else f"cannot read it: {exc}"
            log.warning("project instructions: %s was not read: %s", self._shown(path), reason)
            return None
        truncated = size > left
        body = raw.decode("utf-8", "ignore")
        self._used += len(raw)
        shown = self._shown(path)
        if truncated:
            body = body.rstrip() + (
                f"\n\n[{shown} was cut here: project instructions are capped at "
                f"{self.cap // 1024} KiB in all. Read {shown} for the rest.]"
            )
        item = InstructionFile(path, body.strip(), truncated)
        self.files.append(item)
        return item

    def _shown(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return str(path)

    def render(self) -> str:
        """The system prompt's section: "" when no file is loaded."""
        if not self.files:
            return ""
        ordered = sorted(self.files, key=lambda f: len(f.path.parts))
        parts = [_INTRO]
        for item in ordered:
            where = self._shown(item.path.parent)
            scope = "the whole workspace" if where == "." else f"{where}/ and below"
            parts.append(f"## {self._shown(item.path)} (applies to {scope})\n\n{item.text}")
        return "\n\n".join(parts)
