"""Landlock and a network namespace through ctypes: build a ruleset once (in the server), enter
it in a command's child between fork and exec (`enter`, a `preexec_fn`).

`enter` runs in the forked child, so it only makes system calls through functions resolved
beforehand (no import, no lock, no logging); on any failure it writes one line to stderr and
exits 125: a command never runs unrestricted because the sandbox failed.
"""

from __future__ import annotations

import ctypes
import os
import struct
from collections.abc import Callable, Iterable

SYS_CREATE, SYS_ADD_RULE, SYS_RESTRICT = 444, 445, 446  # the same on every Linux architecture
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38
CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1, 2, 4, 8
WRITE_DIR_RIGHTS = sum(1 << n for n in range(4, 13))  # remove, make char/dir/reg/sock/fifo/…
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
READ_RIGHTS = EXECUTE | READ_FILE | READ_DIR | IOCTL_DEV
NET_BIND_TCP, NET_CONNECT_TCP = 1, 2
SCOPE_ABSTRACT_UNIX = 1
WRITABLE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts")
EXIT_SANDBOX_FAILED = 125

_libc = ctypes.CDLL(None, use_errno=True)
_syscall = _libc.syscall
_syscall.restype = ctypes.c_long
_unshare = _libc.unshare
_prctl = _libc.prctl


class SandboxError(Exception):
    """The sandbox cannot be set up on this machine (the message says why)."""


def abi() -> int:
    """The kernel's Landlock ABI version, 0 when Landlock is unavailable."""
    version = _syscall(SYS_CREATE, None, 0, 1)  # LANDLOCK_CREATE_RULESET_VERSION
    return int(version) if version > 0 else 0


def _handled_fs(version: int) -> int:
    rights = EXECUTE | WRITE_FILE | READ_FILE | READ_DIR | WRITE_DIR_RIGHTS
    if version >= 2:
        rights |= REFER
    if version >= 3:
        rights |= TRUNCATE
    if version >= 5:
        rights |= IOCTL_DEV
    return rights


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def split_roots(roots: list[str], denied: list[str]) -> list[str]:
    """Trees to grant so that everything under `roots` but `denied` is reachable (Landlock only
    allows): a root holding a denied path is replaced by the siblings of every directory on
    the way down to it (those directories themselves get no rule, so they cannot be listed)."""
    for deny in denied:
        out: list[str] = []
        for root in roots:
            if root == deny:
                continue
            if not _inside(deny, root):
                out.append(root)
                continue
            stack = [root]
            while stack:
                parent = stack.pop()
                try:
                    names = os.listdir(parent)
                except OSError:
                    continue
                for name in names:
                    path = os.path.join(parent, name)
                    if path == deny or os.path.islink(path):
                        continue  # a symlink needs no rule: its target's tree decides
                    (stack if _inside(deny, path) else out).append(path)
        roots = out
    return roots


def _add_rule(ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # gone or unreachable: nothing to grant
    try:
        if not os.path.isdir(path):
            rights &= FILE_RIGHTS
        attr = struct.pack("=Qi", rights, fd)
        if _syscall(SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, attr, 0) != 0:
            err = os.strerror(ctypes.get_errno())
            raise SandboxError(f"cannot add a Landlock rule for {path}: {err}")
    finally:
        os.close(fd)


def build_ruleset(*, writable: Iterable[str], denied: Iterable[str], network: bool) -> int:
    """A ruleset fd (close-on-exec): read everything but `denied`, write `writable` (minus
    `denied`), and no TCP unless `network`. Raises `SandboxError`."""
    version = abi()
    if version < 1:
        raise SandboxError("Landlock is not available in this kernel")
    fs = _handled_fs(version)
    net = NET_BIND_TCP | NET_CONNECT_TCP if version >= 4 and not network else 0
    scoped = SCOPE_ABSTRACT_UNIX if version >= 6 and not network else 0
    size = 24 if version >= 6 else 16 if version >= 4 else 8
    attr = struct.pack("=QQQ", fs, net, scoped)[:size]
    ruleset = int(_syscall(SYS_CREATE, attr, size, 0))
    if ruleset < 0:
        raise SandboxError(f"cannot create a Landlock ruleset: {os.strerror(ctypes.get_errno())}")
    try:
        os.set_inheritable(ruleset, False)
        hidden = sorted({os.path.realpath(p) for p in denied if os.path.lexists(p)})
        for root in split_roots(["/"], hidden):
            _add_rule(ruleset, root, READ_RIGHTS & fs)
        writes = [os.path.realpath(p) for p in writable]
        for path in split_roots(writes, hidden) + list(WRITABLE_DEVICES):
            _add_rule(ruleset, path, fs)
    except BaseException:
        os.close(ruleset)
        raise
    return ruleset


def _fail(message: bytes) -> None:
    os.write(2, b"ink-ls sandbox: " + message + b"; the command did not run\n")
    os._exit(EXIT_SANDBOX_FAILED)


def enterer(ruleset: int, *, network: bool) -> Callable[[], None]:
    """The `preexec_fn` that puts a forked child into `ruleset` (and, without `network`, a
    network namespace of its own whose loopback is down)."""
    root = os.geteuid() == 0
    flags = CLONE_NEWNET if root else CLONE_NEWUSER | CLONE_NEWNET
    maps = (
        (b"/proc/self/setgroups", b"deny"),
        (b"/proc/self/uid_map", f"{os.getuid()} {os.getuid()} 1".encode()),
        (b"/proc/self/gid_map", f"{os.getgid()} {os.getgid()} 1".encode()),
    )

    def enter() -> None:
        if not network:
            if _unshare(flags) != 0:
                _fail(b"cannot make a network namespace")
            if not root:  # keep our own uid and gid inside (files stay ours)
                for path, text in maps:
                    fd = os.open(path, os.O_WRONLY)
                    os.write(fd, text)
                    os.close(fd)
        if _prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            _fail(b"cannot set no_new_privs")
        if _syscall(SYS_RESTRICT, ruleset, 0) != 0:
            _fail(b"cannot enter the Landlock ruleset")

    return enter
