"""The kernel sandbox for `bash` commands: what it allows, whether this machine has it, and
the confinement that applies it: bubblewrap when `bwrap` is installed (`_bwrap`, a command
line around the command), else Landlock plus a network namespace (`_landlock`, entered between
fork and exec).

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
from typing import Literal

Mechanism = Literal["auto", "bwrap", "landlock"]
"""`auto`: bwrap when installed and working, else Landlock."""

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
    mechanism: Mechanism = "auto"
    """Which confinement to use (a benchmark or test may name one)."""


@dataclass(frozen=True)
class Confined:
    """How a command is confined: a command line before `/bin/bash -c …` (bwrap), or a
    `preexec_fn` run in the child before exec (Landlock)."""

    prefix: tuple[str, ...] = ()
    preexec: Callable[[], None] | None = None


@dataclass(frozen=True)
class Availability:
    """Whether the sandbox can run here, and if not, a sentence saying why."""

    ok: bool
    mechanism: str
    problem: str | None = None


@functools.cache
def availability(mechanism: Mechanism = "auto") -> Availability:
    """Probe once per process and mechanism: run `/bin/true` confined, with the network cut.
    `auto` is bwrap when it works here, else Landlock; when neither, the problem names both."""
    if mechanism == "auto":
        wrapped = availability("bwrap")
        if wrapped.ok:
            return wrapped
        landlock = availability("landlock")
        if landlock.ok:
            return landlock
        return Availability(False, "none", f"{wrapped.problem}, and {landlock.problem}")
    if not sys.platform.startswith("linux"):
        return Availability(False, "none", "the command sandbox needs Linux")
    return _probe_bwrap() if mechanism == "bwrap" else _probe_landlock()


def _probe(argv: list[str], preexec: Callable[[], None] | None) -> str | None:
    """None when `argv` ran and exited 0, else why not."""
    try:
        done = subprocess.run(
            argv, capture_output=True, timeout=30, check=False, preexec_fn=preexec
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"the sandbox could not start a command: {exc}"
    if done.returncode != 0:
        why = done.stderr.decode(errors="replace").strip().removeprefix("ink-ls sandbox: ")
        return why or f"a confined command exited {done.returncode}"
    return None


def _probe_bwrap() -> Availability:
    from ink_ls.tools import _bwrap

    found = _bwrap.bwrap_path()
    if found is None:
        return Availability(False, "none", "bwrap is not installed (Debian package bubblewrap)")
    cwd = os.getcwd()
    argv = _bwrap.prefix(found, cwd=cwd, writable=[], denied=[], network=False)
    problem = _probe([*argv, "/bin/true"], None)
    if problem is not None:
        return Availability(False, "none", f"bwrap does not work here ({problem})")
    return Availability(True, "bwrap (bubblewrap)")


def _probe_landlock() -> Availability:
    from ink_ls.tools import _landlock

    try:
        ruleset = _landlock.build_ruleset(writable=[], denied=[], network=False)
    except _landlock.SandboxError as exc:
        return Availability(False, "none", f"Landlock is unavailable ({exc})")
    try:
        problem = _probe(["/bin/true"], _landlock.enterer(ruleset, network=False))
    finally:
        os.close(ruleset)
    if problem is not None:
        return Availability(False, "none", f"Landlock is unavailable ({problem})")
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
) -> Confined:
    """How a command (`/bin/bash -c …`) of workspace `cwd` is confined, with the mechanism
    `availability` chose. Raises `SandboxError` when the Landlock ruleset cannot be built."""
    tmp = env.get("TMPDIR") or tempfile.gettempdir()
    writable = [str(cwd), "/tmp", tmp, "/dev/shm"]
    if log_dir:
        writable.append(log_dir)
    for entry in settings.writable:
        writable.append(os.path.expanduser(entry) if entry.startswith("~") else str(cwd / entry))
    home = _home(env)
    denied = [str(home / p) for p in SECRET_PATHS]
    denied += [str(cwd / os.path.expanduser(p)) for p in settings.deny_read]
    if availability(settings.mechanism).mechanism.startswith("bwrap"):
        from ink_ls.tools import _bwrap

        found = _bwrap.bwrap_path() or "bwrap"
        return Confined(
            prefix=_bwrap.prefix(
                found, cwd=str(cwd), writable=writable, denied=denied, network=settings.network
            )
        )
    from ink_ls.tools import _landlock

    ruleset = _ruleset(tuple(writable), tuple(denied), settings.network)
    return Confined(preexec=_landlock.enterer(ruleset, network=settings.network))


SANDBOX_ERRORS = (
    os.strerror(errno.EACCES),  # Landlock: a write outside, a secret, a TCP socket
    os.strerror(errno.EPERM),
    os.strerror(errno.EROFS),
    os.strerror(errno.ENETUNREACH),  # the namespace's loopback is down
    "Temporary failure in name resolution",
    "Could not resolve host",
)


NETWORK_ERRORS = (os.strerror(errno.ECONNREFUSED),)
"""In bwrap's network namespace nothing listens on the loopback: the host's servers refuse."""


def failure_hint(output: str, settings: SandboxSettings) -> str | None:
    """A note for the model when a sandboxed command's output shows a refusal the sandbox
    may have caused (permission denied, read-only, no network), else None."""
    lowered = output.lower()
    errors = SANDBOX_ERRORS if settings.network else (*SANDBOX_ERRORS, *NETWORK_ERRORS)
    if not any(e.lower() in lowered for e in errors):
        return None
    limits = "it cannot write outside the workspace and temp dirs or read secrets"
    if not settings.network:
        limits += ", and has no network (not even the loopback)"
    return (
        f"[This command ran in the sandbox: {limits}. If it failed because of that and must "
        "do this, call bash again with `sandbox: false`: the user will be asked to allow "
        "running it outside the sandbox.]"
    )
