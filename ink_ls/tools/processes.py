"""The public face of the process subsystem for front ends: kill what tool calls started.

Front ends call `install_exit_cleanup()` once at start-up and `kill_all_tracked()` when they stop
without waiting for running tools; hooks run their commands with `run_captured` (same
tracking and group killing as `bash`). How processes are spawned, tracked and found stays
private.
"""

from __future__ import annotations

from ink_ls.tools._captured import Captured, run_captured
from ink_ls.tools._process import (
    TAG_PREFIX,
    TAG_VAR,
    KillReport,
    ensure_watchdog,
    install_exit_cleanup,
    kill_all_tracked,
    on_exit_signal,
)

__all__ = [
    "Captured",
    "KillReport",
    "install_exit_cleanup",
    "kill_all_tracked",
    "on_exit_signal",
    "run_captured",
    "watched_env",
]


def watched_env(name: str, hidden: tuple[str, ...] = ()) -> dict[str, str]:
    """This process's environment less `hidden` names (API keys), tagged so that the watchdog
    kills a long-lived helper started with it (a language server) even after `kill -9`."""
    import os

    ensure_watchdog()
    env = {k: v for k, v in os.environ.items() if k not in hidden}
    env[TAG_VAR] = f"{TAG_PREFIX}-{name}"
    return env
