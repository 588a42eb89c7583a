"""The sandbox launcher: restrict this process with Landlock (and a network namespace), then
exec the command in it. Run as `python -I -S _sandbox_exec.py POLICY_JSON -- ARGV…`.

Standalone on purpose (stdlib only, no ink_ls import): it starts for every sandboxed command,
so it must start fast, and the exec keeps its pid, so process groups, the environment tag and
the watchdog work as without a sandbox. It never runs the command unrestricted: any failure
exits 125 with a line on stderr.
"""

from __future__ import annotations

import ctypes
import json
import os
import struct
import sys

SYS_CREATE, SYS_ADD_RULE, SYS_RESTRICT = 444, 445, 446  # the same on every Linux architecture
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38
CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1, 2, 4, 8
WRITE_DIR_RIGHTS = sum(1 << n for n in range(4, 13))  # remove, make char/dir/reg/sock/fifo/…
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
NET_BIND_TCP, NET_CONNECT_TCP = 1, 2
SCOPE_ABSTRACT_UNIX, SCOPE_SIGNAL = 1, 2
WRITABLE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts")
EXIT_SANDBOX_FAILED = 125

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def fail(message: str) -> None:
    sys.stderr.write(f"ink-ls sandbox: {message}; the command did not run\n")
    sys.stderr.flush()
    os._exit(EXIT_SANDBOX_FAILED)


def abi() -> int:
    version = libc.syscall(SYS_CREATE, None, 0, 1)  # LANDLOCK_CREATE_RULESET_VERSION
    return int(version) if version > 0 else 0


def handled_fs(version: int) -> int:
    rights = EXECUTE | WRITE_FILE | READ_FILE | READ_DIR | WRITE_DIR_RIGHTS
    if version >= 2:
        rights |= REFER
    if version >= 3:
        rights |= TRUNCATE
    if version >= 5:
        rights |= IOCTL_DEV
    return rights


def inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def split_roots(roots: list[str], denied: list[str]) -> list[str]:
    """Trees to grant so that everything under `roots` but `denied` is reachable (Landlock only
    allows): a root holding a denied path is replaced by the siblings of every directory on
    the way down to it (those directories themselves get no rule)."""
    for deny in denied:
        out: list[str] = []
        for root in roots:
            if root == deny:
                continue
            if not inside(deny, root):
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
                    (stack if inside(deny, path) else out).append(path)
        roots = out
    return roots


def add_rule(ruleset: int, path: str, rights: int, handled: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # gone or unreachable: nothing to grant
    try:
        if not os.path.isdir(path):
            rights &= FILE_RIGHTS
        attr = struct.pack("=Qi", rights & handled, fd)
        if libc.syscall(SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, attr, 0) != 0:
            err = ctypes.get_errno()
            fail(f"cannot add a rule for {path}: {os.strerror(err)}")
    finally:
        os.close(fd)


def isolate_network() -> None:
    """A network namespace of our own: only a loopback that is down, nothing outside."""
    flags = CLONE_NEWNET if os.geteuid() == 0 else CLONE_NEWUSER | CLONE_NEWNET
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(flags) != 0:
        fail(f"cannot make a network namespace: {os.strerror(ctypes.get_errno())}")
    if flags & CLONE_NEWUSER:  # keep our own uid and gid inside (files stay ours)
        for name, text in (
            ("setgroups", "deny"),
            ("uid_map", f"{uid} {uid} 1"),
            ("gid_map", f"{gid} {gid} 1"),
        ):
            with open(f"/proc/self/{name}", "w") as fh:
                fh.write(text)


def main() -> None:
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        fail("usage: _sandbox_exec.py POLICY -- ARGV")
    policy = json.loads(sys.argv[1])
    argv = sys.argv[3:]
    version = abi()
    if version < 1:
        fail("Landlock is not available in this kernel")
    network = bool(policy.get("network"))
    if not network:
        isolate_network()
    fs = handled_fs(version)
    net = NET_BIND_TCP | NET_CONNECT_TCP if version >= 4 and not network else 0
    scoped = SCOPE_ABSTRACT_UNIX if version >= 6 and not network else 0
    size = 24 if version >= 6 else 16 if version >= 4 else 8
    attr = struct.pack("=QQQ", fs, net, scoped)[:size]
    ruleset = libc.syscall(SYS_CREATE, attr, size, 0)
    if ruleset < 0:
        fail(f"cannot create a Landlock ruleset: {os.strerror(ctypes.get_errno())}")
    read = EXECUTE | READ_FILE | READ_DIR | IOCTL_DEV
    denied = sorted({os.path.realpath(p) for p in policy.get("deny_read", [])})
    denied = [d for d in denied if os.path.lexists(d)]
    for root in split_roots(["/"], denied):
        add_rule(ruleset, root, read, fs)
    writable = [os.path.realpath(p) for p in policy.get("writable", [])]
    for path in split_roots(writable, denied) + list(WRITABLE_DEVICES):
        add_rule(ruleset, path, fs, fs)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        fail("cannot set no_new_privs")
    if libc.syscall(SYS_RESTRICT, ruleset, 0) != 0:
        fail(f"cannot apply the Landlock ruleset: {os.strerror(ctypes.get_errno())}")
    os.close(ruleset)
    try:
        os.execv(argv[0], argv)
    except OSError as exc:
        fail(f"cannot run {argv[0]}: {exc.strerror}")


if __name__ == "__main__":
    main()
