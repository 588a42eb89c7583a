"""Processes started by tool calls: spawn one in its own session, find all it started, kill them.

The server makes itself a child subreaper, so descendants that leave the group (`setsid`,
double fork) are re-parented to us and stay findable through /proc. Must not: signal pid <= 1,
our own process or group, or reap a process it has not identified as part of a tracked call.

An exit signal (SIGTERM/SIGINT/SIGHUP) that lands while `spawn` is between fork and `track`
would kill what is tracked and miss the new child: the handler defers itself until the child
is tracked, then runs. A `kill -9` runs no handler at all: the watchdog (`_watchdog`) kills
every process carrying this process's tag prefix once we are gone.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from ink_ls.tools import _output
from ink_ls.tools._procfs import (
    ProcInfo,
    enable_subreaper,
    exiting,
    family,
    has_tag,
    is_alive,
    proc_info,
    snapshot,
    subreaper_enabled,
)
from ink_ls.tools._watchdog import start_watchdog

TAG_VAR = "INK_PROCESS_TAG"
"""Environment variable carrying a per-call tag; escapees keep it, so we recognise them."""

_F_SETPIPE_SZ = 1031
PIPE_SIZE = 1 << 20

TAG_PREFIX = uuid.uuid4().hex[:12]
"""Every tag of this process starts with it (`<prefix>-<call>`): the watchdog's key."""

_lock = threading.RLock()
_tracked: dict[int, ProcessTree] = {}
_cleanup_installed = False
_watchdog_wanted = False
"""`install_exit_cleanup(watchdog=True)` ran: the helper starts with the first tagged process."""
_spawning: dict[int, int] = {}
"""Thread id → spawns in progress (between fork and `track`)."""
_spawn_done = threading.Condition(_lock)
_deferred: list[tuple[object, int]] = []
"""Exit signals that landed during a spawn in the main thread, run once it is tracked."""


class ProcessTree:
    """Everything one command started: its leader, session/group id, tag and members seen."""

    def __init__(self, pid: int, tag: str) -> None:
        self.pid = pid
        self.tag = tag
        self.env_entry = f"{TAG_VAR}={tag}".encode()
        leader = proc_info(pid)
        self.start = leader.start if leader else -1
        self.known: dict[int, int] = {}  # pid -> start time, of every member seen alive
        self.leader_reaped = False

    def _matches(self, info: ProcInfo) -> bool:
        if info.pid == self.pid:
            return not self.leader_reaped and info.start == self.start
        if info.pgid == self.pid or info.sid == self.pid:
            return True
        return self.known.get(info.pid) == info.start

    def __repr__(self) -> str:
        return f"ProcessTree(pid={self.pid}, known={sorted(self.known)})"


def members(trees: Iterable[ProcessTree], procs: dict[int, ProcInfo]) -> dict[int, ProcessTree]:
    """pid → owning tree for every process of `procs` that belongs to one of `trees`.

    A process belongs to a tree when it is the leader, shares its group or session, was seen
    as a member before, carries the tree's tag, or descends from a member. With the subreaper
    on, only our own descendants are considered.
    """
    trees = list(trees)
    if not trees:
        return {}
    me = os.getpid()
    children: dict[int, list[ProcInfo]] = {}
    for info in procs.values():
        children.setdefault(info.ppid, []).append(info)
    owner: dict[int, ProcessTree] = {}
    roots = [me] if subreaper_enabled() else [0, 1]
    stack: list[tuple[ProcInfo, ProcessTree | None]] = [
        (child, None) for root in roots for child in children.get(root, [])
    ]
    while stack:
        info, parent_owner = stack.pop()
        if info.pid == me:  # reached through pid 1 when we are not the subreaper
            stack.extend((child, None) for child in children.get(me, []))
            continue
        if info.pid == 1 or info.pid in owner:
            continue
        found = parent_owner
        if found is None:
            for tree in reversed(trees):  # the newest tree wins a (pid-reuse) conflict
                if tree._matches(info) or (not info.zombie and has_tag(info.pid, tree.env_entry)):
                    found = tree
                    break
        if found is not None:
            owner[info.pid] = found
        stack.extend((child, found) for child in children.get(info.pid, []))
    return owner


def _scan() -> dict[int, ProcInfo] | None:
    """The processes `members` may attribute: with the subreaper on, only our descendants
    (every escapee is re-parented to us), walked down from us so that the cost does not grow
    with the machine's process count; else (or without children lists) all of /proc."""
    if subreaper_enabled():
        procs = family(os.getpid())
        if procs is not None:
            return procs
    return snapshot()


def _reap(owner: dict[int, ProcessTree], procs: dict[int, ProcInfo]) -> None:
    """Collect zombies of tracked trees re-parented to us (nobody else waits for them)."""
    me = os.getpid()
    leaders = {t.pid for t in tracked()} | {t.pid for t in owner.values()}
    for pid in owner:
        info = procs[pid]
        # Leaders are reaped by their own waiter thread (and Popen), never here.
        if info.zombie and info.ppid == me and pid not in leaders:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)


@dataclass
class KillReport:
    """What a stop achieved: processes signalled, those that could not be, and blind spots."""

    signalled: set[int] = field(default_factory=set)
    failed: dict[int, str] = field(default_factory=dict)
    blind: str | None = None
    strays: list[int] = field(default_factory=list)

    def note(self) -> str | None:
        """A warning for the model when not everything is known to be stopped, else None."""
        parts = []
        if self.failed:
            listed = ", ".join(f"pid {p}: {why}" for p, why in sorted(self.failed.items())[:5])
            parts.append(
                f"[Warning: {len(self.failed)} process(es) started by this command could not "
                f"be stopped ({listed}); they may still be running.]"
            )
        if self.strays:
            listed = ", ".join(str(p) for p in sorted(self.strays)[:5])
            parts.append(
                f"[Warning: {len(self.strays)} process(es) that left their session and lost "
                f"their parent could not be attributed to a command (pid {listed}); this "
                "command may have started them, and they were not stopped.]"
            )
        if self.blind:
            parts.append(
                f"[Warning: processes this command moved out of its process group could not be "
                f"searched for ({self.blind}); some may still be running.]"
            )
        return "\n".join(parts) or None


def _signal(pid: int, report: KillReport) -> None:
    if pid <= 1 or pid == os.getpid():
        return
    try:
        os.kill(pid, signal.SIGKILL)
        report.signalled.add(pid)
    except ProcessLookupError:
        pass
    except OSError as exc:
        report.failed[pid] = exc.strerror or str(exc)


def _kill_group(tree: ProcessTree, report: KillReport) -> bool:
    """SIGKILL the tree's process group; True when the kernel took it."""
    # After the leader is reaped its pid could in theory be reused: leave the group to the walk.
    if tree.leader_reaped or tree.pid <= 1 or tree.pid == os.getpgrp():
        return False
    try:
        os.killpg(tree.pid, signal.SIGKILL)
        report.signalled.add(tree.pid)
        return True
    except ProcessLookupError:
        return False
    except OSError:
        _signal(tree.pid, report)  # fallback: at least the direct child
        return False


def kill_trees(trees: list[ProcessTree], report: KillReport | None = None) -> KillReport:
    """SIGKILL the groups of `trees`, then every member found in /proc, until none is left."""
    report = report or KillReport()
    grouped = {tree.pid for tree in trees if _kill_group(tree, report)}
    if not subreaper_enabled():
        report.blind = "this system cannot re-parent escaped processes to the server"
    for _ in range(20):  # new members can appear while we kill (a fork just before SIGKILL)
        procs = _scan()
        if procs is None:
            report.blind = "/proc is not available"
            break
        owner = members(trees, procs)
        _reap(owner, procs)
        fresh = []
        for pid in owner:
            info = procs[pid]
            if info.zombie or pid in report.signalled:
                continue
            owner[pid].known[pid] = info.start
            if info.pgid in grouped:  # the group kill reached it already
                report.signalled.add(pid)
            else:
                fresh.append(pid)
                _signal(pid, report)
        if not fresh:
            report.strays = _strays(trees, procs, owner)
            break
    return report


def _strays(
    trees: list[ProcessTree], procs: dict[int, ProcInfo], owner: dict[int, ProcessTree]
) -> list[int]:
    """Orphans re-parented to us, in a session of their own, that no tree claims.

    Children we spawn ourselves stay in our session (or lead a tracked one), so these most
    likely escaped a command with their tag dropped (`env -i setsid …` in a subshell). Only
    those started after the oldest of `trees` are listed.
    """
    if not subreaper_enabled() or not trees:
        return []
    me, our_sid = os.getpid(), os.getsid(0)
    sessions = {our_sid} | {t.pid for t in tracked()} | {t.pid for t in trees}
    since = min(t.start for t in trees)
    candidates = [
        p
        for p in procs.values()
        if p.ppid == me
        and not p.zombie
        and p.pid not in owner
        and p.sid not in sessions
        and p.start >= since
    ]
    # An escapee of another call running at the same time is that call's, not a stray.
    others = [t for t in tracked() if t not in trees]
    # A dying member (a SIGKILLed escapee's child, re-parented to us) has lost its tag: it is
    # ending anyway, so it is not reported as a process we could not attribute.
    return [
        p.pid
        for p in candidates
        if not any(t._matches(p) or has_tag(p.pid, t.env_entry) for t in others)
        and not exiting(p.pid)
    ]


def survivors(trees: list[ProcessTree], report: KillReport) -> list[int]:
    """Members of `trees` still running (not zombies), each sent SIGKILL (again) on the way."""
    procs = _scan()
    if procs is None:
        return [p for p in report.signalled if is_alive(p)]
    owner = members(trees, procs)
    _reap(owner, procs)
    alive = [p for p in owner if not procs[p].zombie]
    for pid in alive:
        _signal(pid, report)
    return alive


def finish_report(report: KillReport, alive: list[int]) -> KillReport:
    """Record processes still running after the grace of a stop as failures."""
    for pid in alive:
        report.failed.setdefault(pid, "still running after SIGKILL")
    return report


def remember(tree: ProcessTree) -> None:
    """Record the tree's current members, so they are recognised after leaving group and tag."""
    procs = _scan()
    if procs is not None:
        owner = members([tree], procs)
        _reap(owner, procs)
        for pid in owner:
            if not procs[pid].zombie:
                tree.known[pid] = procs[pid].start


def settle(tree: ProcessTree) -> None:
    """After a call's leader was reaped: one /proc scan records the members still running
    (so later escapees are recognised) and forgets the tree when none is (`prune_tracked`
    then has nothing to scan for it at the next spawn)."""
    procs = _scan()
    if procs is None:
        return
    owner = members([tree], procs)
    _reap(owner, procs)
    live = [pid for pid in owner if not procs[pid].zombie]
    for pid in live:
        tree.known[pid] = procs[pid].start
    if tree.leader_reaped and not live:
        untrack(tree)


def track(tree: ProcessTree) -> None:
    """Add a tree to the process-wide registry that `kill_all_tracked` empties."""
    with _lock:
        _tracked[id(tree)] = tree


def untrack(tree: ProcessTree) -> None:
    with _lock:
        _tracked.pop(id(tree), None)


def tracked() -> list[ProcessTree]:
    """The trees currently tracked, oldest first."""
    with _lock:
        return list(_tracked.values())


def prune_tracked() -> None:
    """Forget trees whose processes have all ended (and reap their zombies)."""
    trees = [t for t in tracked() if t.leader_reaped]
    procs = _scan() if trees else None
    if procs is None:
        return
    owner = members(trees, procs)
    _reap(owner, procs)
    live = {id(t) for p, t in owner.items() if not procs[p].zombie}
    for tree in trees:
        if id(tree) not in live:
            untrack(tree)


def kill_all_tracked(grace: float = 0.5) -> KillReport:
    """Kill every tracked tree (the server is exiting); waits up to `grace` s for them to die."""
    trees = tracked()
    report = kill_trees(trees)
    deadline = time.monotonic() + grace
    alive = survivors(trees, report) if trees else []
    while alive and time.monotonic() < deadline:
        time.sleep(0.002)
        alive = survivors(trees, report)
    for tree in trees:
        untrack(tree)
    return finish_report(report, alive)


def _on_exit_signal(previous: object, signum: int, frame: FrameType | None) -> None:
    me = threading.get_ident()
    with _lock:
        if _spawning.get(me):
            # we interrupted `spawn` in this very thread: its child is not tracked yet
            _deferred.append((previous, signum))
            return
        # a spawn in another thread: let it track its child first (never for long)
        _spawn_done.wait_for(lambda: not any(_spawning.values()), timeout=5.0)
    _exit_now(previous, signum, frame)


_exit_hooks: list[Callable[[], None]] = []
"""What must still happen when an exit signal ends the process (session lines not written)."""


def on_exit_signal(hook: Callable[[], None]) -> None:
    """Run `hook` when SIGTERM/SIGINT/SIGHUP ends the process (with `install_exit_cleanup`),
    before the tool processes are killed; interpreter exit runs `atexit` hooks instead."""
    _exit_hooks.append(hook)


def _exit_now(previous: object, signum: int, frame: FrameType | None) -> None:
    for hook in list(_exit_hooks):
        with contextlib.suppress(Exception):  # the exit goes on whatever a hook does
            hook()
    kill_all_tracked()
    _output.remove_log_dir()
    if callable(previous):
        previous(signum, frame)
    elif previous != signal.SIG_IGN:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)  # die of the same signal, as without us


def ensure_watchdog() -> None:
    """Start the watchdog (once) if `install_exit_cleanup` asked for it; called before a
    tagged process starts, so a run that starts none never pays for the helper."""
    if _watchdog_wanted:
        start_watchdog(TAG_PREFIX)


def install_exit_cleanup(*, watchdog: bool = True) -> None:
    """Kill all tracked processes at interpreter exit and on SIGTERM/SIGINT/SIGHUP, and
    (`watchdog`) have the helper that kills them after a `kill -9` of this process start
    with the first of them (`ensure_watchdog`).

    Previous Python handlers still run afterwards. A handler installed later (e.g. with
    `loop.add_signal_handler`) replaces ours: it must then call `kill_all_tracked()` itself.
    """
    global _cleanup_installed, _watchdog_wanted
    if _cleanup_installed:
        return
    _cleanup_installed = True
    enable_subreaper()
    _watchdog_wanted = watchdog
    atexit.register(kill_all_tracked)
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, functools.partial(_on_exit_signal, signal.getsignal(signum)))


def spawn(
    command: str,
    *,
    cwd: Path,
    env: dict[str, str],
    stdin: int | None = None,
    confine: Callable[[], None] | None = None,
    prefix: Sequence[str] = (),
) -> tuple[subprocess.Popen[bytes], ProcessTree]:
    """Start `/bin/bash -c command` in a new session with stdout/stderr pipes, tracked.

    stdin is /dev/null unless `stdin` (a readable fd, e.g. a hook's JSON payload) is given:
    the server's stdin is the JSON-RPC stream. `confine` runs in the child before exec (the
    sandbox), `prefix` runs before the shell (bwrap): the pid, group, tag and tracking are
    those of an unconfined command.
    Raises OSError on failure.
    """
    enable_subreaper()
    ensure_watchdog()
    prune_tracked()
    tag = f"{TAG_PREFIX}-{uuid.uuid4().hex}"
    me = threading.get_ident()
    with _lock:
        _spawning[me] = _spawning.get(me, 0) + 1
    try:
        proc = subprocess.Popen(
            [*prefix, "/bin/bash", "-c", command],
            cwd=str(cwd),
            env={**env, TAG_VAR: tag},
            stdin=subprocess.DEVNULL if stdin is None else stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            close_fds=True,
            preexec_fn=confine,
        )
        tree = ProcessTree(proc.pid, tag)
        track(tree)
    finally:
        with _lock:
            _spawning[me] -= 1
            if not _spawning[me]:
                del _spawning[me]
            _spawn_done.notify_all()
            deferred = list(_deferred) if not _spawning.get(me) else []
            if deferred:
                _deferred.clear()
        for previous, signum in deferred[:1]:  # the child is tracked now: exit as asked
            _exit_now(previous, signum, None)
    for pipe in (proc.stdout, proc.stderr):
        assert pipe is not None
        fd = pipe.fileno()
        os.set_blocking(fd, False)
        if sys.platform.startswith("linux"):
            # Bigger pipes mean fewer wake-ups and reads for chatty commands.
            with contextlib.suppress(OSError):
                import fcntl

                fcntl.fcntl(fd, _F_SETPIPE_SZ, PIPE_SIZE)
    return proc, tree


def watch_exit(
    proc: subprocess.Popen[bytes], tree: ProcessTree, on_exit: Callable[[int | None], None]
) -> None:
    """Reap the leader in a daemon thread; call `on_exit(wait status or None)` from it."""

    def wait() -> None:
        status: int | None = None
        while True:
            try:
                _, status = os.waitpid(proc.pid, 0)
                break
            except InterruptedError:
                continue
            except ChildProcessError:
                break
        tree.leader_reaped = True
        # Popen must not wait again (nor warn that the process is still running).
        proc.returncode = os.waitstatus_to_exitcode(status) if status is not None else -1
        on_exit(status)

    threading.Thread(target=wait, name=f"ink-wait-{proc.pid}", daemon=True).start()
