"""The kernel sandbox for `bash` commands: what it allows, whether this machine has it, and
the confinement that applies it (`_landlock`: Landlock plus a network namespace, entered
between fork and exec).

A sandboxed command may write only the workspace, `$TMPDIR`, /tmp, the bash log directory and
the `writable` entries; it reads everything else except secrets (`~/.ssh`-style, deny-rule
paths), and has no network (the loopback included) unless `network` is set.
"""

from __future__ import annotations

import errno
import functools
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

SECRET_PATHS = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".config/gcloud",
    ".config/gh",
)
"""Relative to $HOME: never readable by a sandboxed command."""


@dataclass(frozen=True)
class SandboxSettings:
    """The `sandbox` section of the settings files."""

    enabled: bool = False
    network: bool = False
    writable: tuple[str, ...] = ()
    deny_read: tuple[str, ...] = field(default=())
    """Paths commands must not read besides the secrets (the `Read` deny rules' paths)."""


@dataclass(frozen=True)
class Availability:
    """Whether the sandbox can run here, and if not, a sentence saying why."""

    ok: bool
    mechanism: str
    problem: str | None = None


@functools.cache
def availability() -> Availability:
    """Probe once per process: run `/bin/true` confined, with the network cut."""
    if not sys.platform.startswith("linux"):
        return Availability(False, "none", "the command sandbox needs Linux (Landlock)")
    from ink_ls.tools import _landlock

    try:
        ruleset = _landlock.build_ruleset(writable=[], denied=[], network=False)
    except _landlock.SandboxError as exc:
        return Availability(False, "none", str(exc))
    try:
        done = subprocess.run(
            ["/bin/true"],
            capture_output=True,
            timeout=30,
            check=False,
            preexec_fn=_landlock.enterer(ruleset, network=False),
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return Availability(False, "none", f"the sandbox could not start a command: {exc}")
    finally:
        os.close(ruleset)
    if done.returncode != 0:
        why = done.stderr.decode(errors="replace").strip().removeprefix("ink-ls sandbox: ")
        return Availability(False, "none", why or f"a confined command exited {done.returncode}")
    return Availability(True, "Landlock + network namespace")


def _home(env: dict[str, str]) -> Path:
    return Path(env.get("HOME") or os.path.expanduser("~"))


@functools.lru_cache(maxsize=32)
def _ruleset(writable: tuple[str, ...], denied: tuple[str, ...], network: bool) -> int:
    """One ruleset per policy, built once and kept for the life of the process."""
    from ink_ls.tools import _landlock

    return _landlock.build_ruleset(writable=writable, denied=denied, network=network)


def confinement(
    settings: SandboxSettings, *, cwd: Path, env: dict[str, str], log_dir: str | None
) -> Callable[[], None]:
    """The `preexec_fn` that confines a command (`/bin/bash -c …`) of workspace `cwd`.
    Raises `SandboxError` when the ruleset cannot be built."""
    from ink_ls.tools import _landlock

    tmp = env.get("TMPDIR") or tempfile.gettempdir()
    writable = [str(cwd), "/tmp", tmp, "/dev/shm"]
    if log_dir:
        writable.append(log_dir)
    for entry in settings.writable:
        writable.append(os.path.expanduser(entry) if entry.startswith("~") else str(cwd / entry))
    home = _home(env)
    denied = [str(home / p) for p in SECRET_PATHS]
    denied += [str(cwd / os.path.expanduser(p)) for p in settings.deny_read]
    ruleset = _ruleset(tuple(writable), tuple(denied), settings.network)
    return _landlock.enterer(ruleset, network=settings.network)


SANDBOX_ERRORS = (
    os.strerror(errno.EACCES),  # Landlock: a write outside, a secret, a TCP socket
    os.strerror(errno.EPERM),
    os.strerror(errno.EROFS),
    os.strerror(errno.ENETUNREACH),  # the namespace's loopback is down
    "Temporary failure in name resolution",
    "Could not resolve host",
)


def failure_hint(output: str, settings: SandboxSettings) -> str | None:
    """A note for the model when a sandboxed command's output shows a refusal the sandbox
    may have caused (permission denied, read-only, no network), else None."""
    lowered = output.lower()
    if not any(e.lower() in lowered for e in SANDBOX_ERRORS):
        return None
    limits = "it cannot write outside the workspace and temp dirs or read secrets"
    if not settings.network:
        limits += ", and has no network (not even the loopback)"
    return (
        f"[This command ran in the sandbox: {limits}. If it failed because of that and must "
        "do this, call bash again with `sandbox: false`: the user will be asked to allow "
        "running it outside the sandbox.]"
    )
