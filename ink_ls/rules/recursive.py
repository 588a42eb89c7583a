"""Which directories a command reads recursively (`grep -r x .`, `rg x`, `find src`,
`tar c .`), as far as its words are known: a `Read` deny rule refuses such a command when one
of those directories holds a path the rule covers (`Read(./secrets/**)` and `grep -r key .`).
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path

from ink_ls.rules.shell import SimpleCommand
from ink_ls.rules.syntax import PathPattern

ALWAYS = frozenset({"rg", "ag", "ack", "find", "tree", "rsync", "tar", "zip", "git-grep"})
"""Programs that walk the directories they are given (the current one when given none)."""
WITH_FLAG = {
    "grep": ("-r", "-R", "--recursive", "--dereference-recursive"),
    "egrep": ("-r", "-R", "--recursive"),
    "fgrep": ("-r", "-R", "--recursive"),
    "ls": ("-R", "--recursive"),
    "cp": ("-r", "-R", "-a", "--recursive", "--archive"),
    "scp": ("-r",),
    "du": ("-a", "--all"),
}
"""Programs that walk directories only with one of these options (short ones may be joined)."""
_CWD_BY_DEFAULT = frozenset({"grep", "egrep", "fgrep", "ls", "du"})
"""Of those, the ones that walk the current directory when given none."""
_GLOB = re.compile(r"[*?\[]")


def _has_flag(words: list[str], flags: tuple[str, ...]) -> bool:
    shorts = {f[1] for f in flags if len(f) == 2}
    for word in words:
        if word in flags:
            return True
        if word.startswith("-") and not word.startswith("--") and shorts & set(word[1:]):
            return True
    return False


def recursive_roots(cmd: SimpleCommand, cwd: Path) -> list[Path]:
    """The directories `cmd` reads recursively; [] for other commands or unknown words."""
    if cmd.program is None or any(w is None for w in cmd.words):
        return []
    words = [w for w in cmd.words if w is not None]
    name = posixpath.basename(words[0])
    args = words[1:]
    if name not in ALWAYS and not (name in WITH_FLAG and _has_flag(args, WITH_FLAG[name])):
        return []
    paths = [cwd / os.path.expanduser(a) for a in args if a and not a.startswith("-")]
    dirs = [p for p in paths if p.is_dir()]
    return dirs or ([cwd] if name in ALWAYS or name in _CWD_BY_DEFAULT else [])


def holds_match(directory: Path, pattern: PathPattern) -> bool:
    """Whether `directory` (absolute) may hold a path `pattern` covers: it is inside the
    pattern's fixed part, or that part is inside it (or the pattern matches anywhere)."""
    spec = pattern.text
    anchored = spec.startswith(("/", "./", "~/")) or "/" in spec.rstrip("/")
    body = spec[2:] if spec.startswith(("//", "./", "~/")) else spec.lstrip("/")
    head = _GLOB.split(body, maxsplit=1)[0]
    fixed = (head.rsplit("/", 1)[0] if "/" in head else "") if head != body else body
    base = Path(os.path.normpath(pattern.base))
    real = Path(os.path.realpath(directory))
    if not anchored:  # `.env`, `*.key`: anywhere below the base
        return real.is_relative_to(base) or base.is_relative_to(real)
    root = base / fixed.strip("/") if fixed.strip("/") else base
    return root.is_relative_to(real) or real.is_relative_to(root)
