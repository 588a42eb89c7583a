"""What the user's `Read` deny rules hide from the tools that list or search a directory
(grep, find, ls): a search of the workspace root leaves out `secrets/` when `Read(./secrets/**)`
is denied, as a read of a file under it is refused. The rules themselves live in `rules/`; a
tool is only handed the predicate.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

Hidden = Callable[[Path], bool]
"""Whether an absolute path (a file, or a directory with all it holds) is hidden."""

HIDDEN_NOTE = "[Some paths were left out: the user's permission rules deny reading them.]"
"""Said once under a listing or search that left something out (never what it was)."""


class HidesPaths:
    """A tool that leaves out the paths the session's `Read` deny rules cover."""

    hidden: Hidden | None = None

    def hide_paths(self, hidden: Hidden | None) -> None:
        """Leave out what `hidden` covers (None: nothing is hidden)."""
        self.hidden = hidden

    def is_hidden(self, path: Path) -> bool:
        """Whether `path` (absolute) is hidden from this tool's output."""
        return self.hidden is not None and self.hidden(path)
