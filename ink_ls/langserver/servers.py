"""Which language server answers a file: the settings' `lsp` section, else a known default.

A default is found on PATH or beside ink-ls's own interpreter (a venv's `bin/`); a configured
command is used as given, and its failure is an error naming it (no silent fallback).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Language:
    name: str
    suffixes: tuple[str, ...]
    defaults: tuple[tuple[str, ...], ...]
    """Commands tried in order; the first whose program is found answers."""


LANGUAGES = (
    Language(
        "python",
        (".py", ".pyi"),
        (
            ("basedpyright-langserver", "--stdio"),
            ("pyright-langserver", "--stdio"),
            ("jedi-language-server",),
        ),
    ),
    Language(
        "typescript",
        (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs"),
        (("typescript-language-server", "--stdio"),),
    ),
    Language("go", (".go",), (("gopls",),)),
    Language("rust", (".rs",), (("rust-analyzer",),)),
    Language("c", (".c", ".h", ".cc", ".cpp", ".hpp", ".cxx"), (("clangd",),)),
)
_LANGUAGE_IDS = {
    ".tsx": "typescriptreact",
    ".js": "javascript",
    ".jsx": "javascriptreact",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".hpp": "cpp",
    ".cxx": "cpp",
}
_SKIPPED_DIRS = {".git", "node_modules", ".venv", "venv", "__pycache__", "target", "dist", "build"}


def language_of(path: Path) -> Language | None:
    """The language whose files end like `path`, or None."""
    suffix = path.suffix.lower()
    return next((lang for lang in LANGUAGES if suffix in lang.suffixes), None)


def language_id(path: Path, language: Language) -> str:
    """The LSP `languageId` of `path` (`typescriptreact` for .tsx, …)."""
    return _LANGUAGE_IDS.get(path.suffix.lower(), language.name)


def which(program: str) -> str | None:
    """`program` on PATH, else beside the running interpreter (a venv not activated)."""
    found = shutil.which(program)
    if found is not None:
        return found
    beside = Path(sys.executable).parent / program
    return str(beside) if beside.is_file() and os.access(beside, os.X_OK) else None


@dataclass(frozen=True)
class ServerCommand:
    language: str
    argv: tuple[str, ...]
    configured: bool
    """True when the settings named it (then a failure must not fall back)."""


def server_command(language: Language, section: Mapping[str, Any]) -> ServerCommand | None:
    """The command for `language`: the settings' `lsp.<language>.command`, else the first
    default found; None when neither exists."""
    entry = section.get(language.name)
    if isinstance(entry, Mapping):
        command = entry.get("command")
        if isinstance(command, list) and command and all(isinstance(c, str) for c in command):
            return ServerCommand(language.name, tuple(command), configured=True)
    for argv in language.defaults:
        found = which(argv[0])
        if found is not None:
            return ServerCommand(language.name, (found, *argv[1:]), configured=False)
    return None


def workspace_languages(root: Path, limit: int = 5000) -> set[str]:
    """The languages of files in the workspace (looking at most `limit` entries, build and
    dependency folders skipped): the `lsp` tool is offered only for these."""
    seen: set[str] = set()
    count = 0
    for _dir, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS and not d.startswith("."))
        for name in files:
            lang = language_of(Path(name))
            if lang is not None:
                seen.add(lang.name)
        count += len(files) + len(dirs)
        if count >= limit or len(seen) == len(LANGUAGES):
            break
    return seen


def available(root: Path, section: Mapping[str, Any]) -> dict[str, ServerCommand]:
    """Language name → its command, for the languages present in `root` that have one."""
    present = workspace_languages(root)
    found: dict[str, ServerCommand] = {}
    for lang in LANGUAGES:
        if lang.name in present:
            command = server_command(lang, section)
            if command is not None:
                found[lang.name] = command
    return found


def names(commands: Iterable[ServerCommand]) -> list[str]:
    """`python (jedi-language-server)`-style labels for a tool description."""
    return [f"{c.language} ({Path(c.argv[0]).name})" for c in commands]
