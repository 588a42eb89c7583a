"""Keeping API keys out of reach of the commands the agent runs.

A command is our child: it can read `/proc/$PPID/environ` (the environment block the kernel
gave us at exec, which `os.environ` edits never change) and `/proc/$PPID/mem`. So once a key
variable is known (`INK_API_KEY`, `OPENAI_API_KEY`, `--api-key-env`, and the editor setting
`ink.model.apiKeyEnv` as soon as `initialize` names it), `hide_env` moves its value into a
private dict, overwrites the value's bytes in the original environment block in place (so
`/proc/<pid>/environ` shows `NAME=` and zeros), and unsets it. `make_undumpable` stops other
processes of the same user from reading `/proc/<pid>/environ` and `mem` at all, and from
attaching a debugger.

Overwriting in place rather than re-executing without the variables: the server learns the
name of `ink.model.apiKeyEnv` only at `initialize`, long after start-up, and the pid the
editor started stays the pid it talks to. Keys are never on the command line.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import threading
from collections.abc import Iterable, Mapping

_PR_SET_DUMPABLE = 4
_lock = threading.Lock()
_hidden: dict[str, str] = {}


def hide_env(names: Iterable[str]) -> None:
    """Move each variable of `names` out of the process environment (kept privately)."""
    with _lock:
        fresh = [n for n in names if n and n in os.environ and n not in _hidden]
        if not fresh:
            return
        for name in fresh:
            _hidden[name] = os.environ[name]
        _wipe_initial_block(fresh)
        for name in fresh:
            os.environ.pop(name, None)  # also unsetenv: no child inherits it


def env_value(name: str) -> str | None:
    """A variable's value, hidden or not."""
    with _lock:
        if name in _hidden:
            return _hidden[name]
    return os.environ.get(name)


def environ() -> Mapping[str, str]:
    """The environment as it was given to us: `os.environ` plus the hidden variables."""
    with _lock:
        return {**os.environ, **_hidden}


def make_undumpable() -> bool:
    """`prctl(PR_SET_DUMPABLE, 0)` (Linux): True when in effect."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _wipe_initial_block(names: list[str]) -> None:
    """Zero the values of `names` in the environment block the kernel shows in /proc."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, ValueError, IndexError):
        with open("/proc/self/stat", "rb") as fh:
            stat = fh.read()
        fields = stat[stat.rindex(b")") + 2 :].split()
        start, end = int(fields[47]), int(fields[48])  # env_start, env_end (fields 50, 51)
        with open("/proc/self/environ", "rb") as fh:
            block = fh.read()
        if not start or len(block) > end - start:
            return
        prefixes = [f"{name}=".encode() for name in names]
        offset = 0
        for entry in block.split(b"\0"):
            for prefix in prefixes:
                if entry.startswith(prefix) and len(entry) > len(prefix):
                    ctypes.memset(start + offset + len(prefix), 0, len(entry) - len(prefix))
            offset += len(entry) + 1
