"""ink-ls: a coding agent that lives inside the editor."""

import sys

__version__ = "0.1.0"

# httpx's package `__init__` imports `httpx._main` (its own command-line client) and, when that
# import fails, defines a stand-in `httpx.main` instead. `_main` pulls in click, pygments and
# rich's progress and syntax modules (80-100 ms before the first model request) and ink-ls never
# calls `httpx.main`. A `None` entry in `sys.modules` makes an import of that name raise
# `ModuleNotFoundError` (the language's documented rule), so httpx takes its own fallback. Only
# this process is concerned: the `httpx` command is a process of its own. `setdefault` leaves a
# module that someone imported before us alone.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
