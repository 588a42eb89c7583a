"""Path helpers shared by the file tools: resolve what the model typed against the workspace root.

Pure functions: nothing here touches the disk except `real` (which follows symlinks).
"""

from __future__ import annotations

import os
from pathlib import Path


def resolve(path: str, cwd: Path) -> Path:
    """The absolute path for `path` as the model gave it: `~` expanded, relative to `cwd`.

    `..` segments are collapsed lexically; symlinks are kept (use `real` to see through them).
    """
    expanded = os.path.expanduser(path.strip())
    joined = expanded if os.path.isabs(expanded) else os.path.join(os.fspath(cwd), expanded)
    return Path(os.path.normpath(joined))


def real(path: str, cwd: Path) -> Path:
    """Like `resolve`, then symlinks and `..` seen through (what the approval gate compares)."""
    return Path(os.path.realpath(resolve(path, cwd)))


def shell_quote(path: Path | str) -> str:
    """`path` quoted for bash, safe for spaces, quotes and a leading dash.

    A relative name that starts with `-` gets a `./` prefix so that no command reads it as an
    option; absolute paths never start with `-`.
    """
    text = os.fspath(path)
    if text.startswith("-"):
        text = "./" + text
    # Always single-quoted (even when not needed) so the hint reads the same for every name.
    return "'" + text.replace("'", "'\\''") + "'"


def relative_for_display(path: Path, cwd: Path) -> str:
    """`path` relative to `cwd` when it lies inside it (`.` for `cwd` itself), else absolute."""
    try:
        rel = path.relative_to(cwd)
    except ValueError:
        return os.fspath(path)
    text = os.fspath(rel)
    return text if text else "."
