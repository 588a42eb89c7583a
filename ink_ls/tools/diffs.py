"""Text comparison for edit and write: a line-numbered unified diff for the editor, and the
region of a file closest to a text the model thought was there. Pure functions, no I/O.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

CONTEXT = 3
_MAX_CANDIDATES = 200
_MIN_RATIO = 0.5


def numbered_diff(old: str, new: str, *, path: str, context: int = CONTEXT) -> str:
    """A unified diff of `old` → `new` whose lines carry their line numbers:
    ` 12 kept`, `-13 removed` (old numbering), `+13 added` (new numbering)."""
    a = old.splitlines()
    b = new.splitlines()
    width = len(str(max(len(a), len(b), 1)))
    out = [f"--- {path}", f"+++ {path}"]
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{i1 + 1},{i2 - i1} +{j1 + 1},{j2 - j1} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out.extend(f" {n + 1:>{width}} {a[n]}" for n in range(a1, a2))
                continue
            if tag in ("replace", "delete"):
                out.extend(f"-{n + 1:>{width}} {a[n]}" for n in range(a1, a2))
            if tag in ("replace", "insert"):
                out.extend(f"+{n + 1:>{width}} {b[n]}" for n in range(b1, b2))
    return "\n".join(out)


@dataclass(frozen=True)
class Region:
    """Lines `first`..`last` (1-based, inclusive) of a text, and how alike they were (0..1)."""

    first: int
    last: int
    ratio: float


def closest_region(text: str, wanted: str) -> Region | None:
    """The run of lines in `text` most like `wanted` (same number of lines), or `None` when
    nothing is at least half alike. Candidates are anchored on lines equal after stripping
    whitespace, or else on the lines most like `wanted`'s first non-blank line."""
    lines = text.split("\n")
    want = wanted.split("\n")
    k = len(want)
    stripped = [w.strip() for w in want]
    index: dict[str, list[int]] = {}
    for n, line in enumerate(lines):
        index.setdefault(line.strip(), []).append(n)
    starts: set[int] = set()
    for j, w in enumerate(stripped):
        if w:
            starts.update(n - j for n in index.get(w, ())[:_MAX_CANDIDATES])
        if len(starts) >= _MAX_CANDIDATES:
            break
    if not starts:
        probe = next((w for w in stripped if w), "")
        if not probe:
            return None
        j = stripped.index(probe)
        matcher = difflib.SequenceMatcher(None, "", probe, autojunk=False)
        scored = []
        for n, line in enumerate(lines):
            matcher.set_seq1(line.strip())
            if matcher.real_quick_ratio() >= _MIN_RATIO and matcher.quick_ratio() >= _MIN_RATIO:
                scored.append((matcher.ratio(), n - j))
        starts = {s for _, s in sorted(scored, reverse=True)[:_MAX_CANDIDATES]}
    best: Region | None = None
    target = "\n".join(want)
    for s in sorted(starts):
        s = max(0, min(s, len(lines) - k)) if len(lines) >= k else 0
        chunk = "\n".join(lines[s : s + k])
        ratio = difflib.SequenceMatcher(None, chunk, target, autojunk=False).ratio()
        if best is None or ratio > best.ratio:
            best = Region(s + 1, min(s + k, len(lines)), ratio)
    if best is None or best.ratio < _MIN_RATIO:
        return None
    return best


def numbered(text: str, first: int, last: int) -> str:
    """Lines `first`..`last` of `text` (1-based), each prefixed with its number and a tab."""
    lines = text.split("\n")
    return "\n".join(f"{n}\t{lines[n - 1]}" for n in range(first, last + 1))
