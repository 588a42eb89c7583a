"""bubblewrap (`bwrap`) as the command sandbox where it is installed: the command line that
runs `/bin/bash -c …` with the file system read-only but for the writable paths, the secrets
unreadable (an empty mode-000 directory or file over each) and, without network, a network
namespace of its own (the host's loopback unreachable).

A command never runs unconfined because bwrap failed: bwrap exits before exec'ing it.
"""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
from collections.abc import Iterable


def bwrap_path() -> str | None:
    """The `bwrap` on PATH, or None (Debian package `bubblewrap`)."""
    return shutil.which("bwrap")


@functools.cache
def _blocked_file() -> str:
    """An empty file no one may read, bound over each secret file (made once per process)."""
    fd, name = tempfile.mkstemp(prefix="ink-ls-blocked-")
    os.close(fd)
    os.chmod(name, 0)
    return name


def _existing(paths: Iterable[str]) -> list[str]:
    seen: list[str] = []
    for path in paths:
        real = os.path.realpath(path)
        if os.path.exists(real) and real not in seen:
            seen.append(real)
    return seen


def prefix(
    bwrap: str, *, cwd: str, writable: Iterable[str], denied: Iterable[str], network: bool
) -> tuple[str, ...]:
    """The arguments that run what follows them in the sandbox (end with `--`)."""
    args = [bwrap, "--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev"]
    for path in _existing(writable):
        args += ["--bind", path, path]
    for path in _existing(denied):  # after the binds: a secret inside the workspace stays hidden
        if os.path.isdir(path):
            args += ["--perms", "0000", "--tmpfs", path, "--remount-ro", path]
        else:
            args += ["--ro-bind", _blocked_file(), path]
    if not network:
        args.append("--unshare-net")
    if os.geteuid() == 0:  # root keeps its capabilities in bwrap: mode 000 would not stop it
        args += ["--cap-drop", "ALL"]
    args += ["--die-with-parent", "--chdir", cwd, "--"]
    return tuple(args)
