"""bash and real process trees: cancel, timeout, escapees (setsid, double fork), waiting rules.

Commands write the pids they start to files; the test waits for those files (an event with a
deadline), acts, then checks in /proc that the processes are gone.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ink_ls.core.signal import CancelController
from ink_ls.core.tool import ToolContext, ToolResult
from ink_ls.tools import _process
from ink_ls.tools.bash import BashParams, BashTool
from tests.unit.tools.proc_checks import exit_code, running


@pytest.fixture(autouse=True)
def _no_leftovers() -> Iterator[None]:
    yield
    _process.kill_all_tracked()


def parent_of(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2 :].split()[1])


def session_of(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2 :].split()[3])


async def wait_until(cond: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.01)


async def pids_from(path: Path, count: int = 1) -> list[int]:
    """The pids a command wrote to `path`, one per line, once `count` are there."""

    def ready() -> bool:
        return path.exists() and len(path.read_text().split()) >= count

    await wait_until(ready)
    return [int(p) for p in path.read_text().split()]


class Running:
    """A bash call running as a task, with its controller."""

    def __init__(self, command: str, cwd: Path, timeout: float | None = None) -> None:
        self.controller = CancelController()
        args = BashParams(command=command, timeout=timeout)
        ctx = ToolContext("call-1", cwd)
        tool = BashTool(log_dir=str(cwd))
        self.started = time.monotonic()
        self.task = asyncio.create_task(tool.execute(args, self.controller.signal, ctx))

    async def cancel(self) -> tuple[ToolResult, float]:
        at = time.monotonic()
        self.controller.cancel("user")
        result = await asyncio.wait_for(self.task, 5)
        return result, time.monotonic() - at


async def test_cancel_ends_sleep_and_wait_fast(tmp_path: Path) -> None:
    call = Running("sleep 60 & echo $! > pids; wait", tmp_path)
    [pid] = await pids_from(tmp_path / "pids")
    result, took = await call.cancel()
    assert took < 15  # the command runs for a minute unless the cancel ends it (loaded CI)
    assert result.output == "Error: command aborted by user. Partial output:\n(no output)"
    assert result.is_error and exit_code(result) is None
    assert not running(pid)


async def test_timeout_kills_the_grandchild(tmp_path: Path) -> None:
    tool = BashTool(log_dir=str(tmp_path))
    args = BashParams(command="sleep 60 & echo $!; wait", timeout=0.5)
    started = time.monotonic()
    result = await tool.execute(args, CancelController().signal, ToolContext("c", tmp_path))
    assert time.monotonic() - started < 15  # not the escapee's minute
    prefix = "Error: command timed out after 0.5s and was killed. Partial output:\nstdout:\n"
    assert result.output.startswith(prefix)
    pid = int(result.output[len(prefix) :])
    assert not running(pid)


async def test_setsid_escapee_that_keeps_writing_is_gone_after_cancel(tmp_path: Path) -> None:
    call = Running(
        "setsid bash -c 'echo $$ > esc; while :; do echo tick; sleep 0.01; done' & wait",
        tmp_path,
    )
    [escapee] = await pids_from(tmp_path / "esc")
    assert session_of(escapee) == escapee  # it really left the command's session
    result, took = await call.cancel()
    assert took < 15  # the command runs for a minute unless the cancel ends it (loaded CI)
    assert result.output.startswith("Error: command aborted by user. Partial output:\n")
    assert "Warning" not in result.output
    assert not running(escapee)


async def test_double_forked_escapee_is_gone_after_cancel(tmp_path: Path) -> None:
    # The middle process exits at once: the escapee is orphaned while the shell still runs.
    call = Running("( setsid sleep 60 & echo $! > esc ); sleep 60", tmp_path)
    [escapee] = await pids_from(tmp_path / "esc")
    await wait_until(lambda: running(escapee) and session_of(escapee) == escapee)
    _, took = await call.cancel()
    assert took < 15  # the command runs for a minute unless the cancel ends it (loaded CI)
    assert not running(escapee)


async def test_escapee_without_tag_or_group_is_found_from_earlier_sightings(
    tmp_path: Path,
) -> None:
    # `env -i` drops the tag and setsid leaves group and session; its parent lingers a bit.
    command = "( env -i setsid sleep 60 & echo $! > esc; sleep 1 ); sleep 60"
    call = Running(command, tmp_path)
    [escapee] = await pids_from(tmp_path / "esc")
    [tree] = [t for t in _process.tracked() if not t.leader_reaped]
    await wait_until(lambda: escapee in tree.known)  # seen by the periodic member walk
    # Its parent exits: it is now our orphan, with no tag, group or session of the command.
    await wait_until(lambda: parent_of(escapee) == os.getpid())
    result, _ = await call.cancel()
    assert "Warning" not in result.output
    assert not running(escapee)


async def test_untraceable_escapee_is_reported_not_claimed_stopped(tmp_path: Path) -> None:
    # Tag dropped, own session, orphaned at once: nothing ties it to the command any more.
    call = Running("( env -i setsid sleep 60 & echo $! > esc ); sleep 60", tmp_path)
    [escapee] = await pids_from(tmp_path / "esc")
    await wait_until(lambda: running(escapee) and session_of(escapee) == escapee)
    result, _ = await call.cancel()
    try:
        if not running(escapee):
            # a loaded machine let the member walk see it before it was orphaned: it was
            # attributed and stopped, and nothing may claim otherwise
            assert "Warning" not in result.output
            return
        assert result.output.endswith(
            "[Warning: 1 process(es) that left their session and lost their parent could not "
            f"be attributed to a command (pid {escapee}); this command may have started them, "
            "and they were not stopped.]"
        )
    finally:
        if running(escapee):
            os.kill(escapee, signal.SIGKILL)
            os.waitpid(escapee, 0)  # it was re-parented to us (the subreaper)


async def test_silent_escapee_does_not_hang_the_call(tmp_path: Path) -> None:
    tool = BashTool(log_dir=str(tmp_path))
    args = BashParams(command="setsid sleep 60 & echo $! > esc; echo started")
    started = time.monotonic()
    result = await tool.execute(args, CancelController().signal, ToolContext("c", tmp_path))
    assert time.monotonic() - started < 15  # not the escapee's minute
    assert (result.output, exit_code(result)) == ("stdout:\nstarted", 0)
    [escapee] = await pids_from(tmp_path / "esc")
    assert running(escapee)  # a normal exit leaves background work running, tracked
    _process.kill_all_tracked()
    assert not running(escapee)


async def test_chatty_escapee_is_cut_at_the_2s_cap(tmp_path: Path) -> None:
    tool = BashTool(log_dir=str(tmp_path))
    command = "setsid yes tick & echo started"  # never quiet, never closes the pipe
    started = time.monotonic()
    result = await tool.execute(
        BashParams(command=command), CancelController().signal, ToolContext("c", tmp_path)
    )
    took = time.monotonic() - started
    assert 2.0 <= took < 15  # the cap, never the escapee's endless output
    assert result.output.startswith("stdout:\ntick\ntick\n")
    assert "(500 line limit). Full output: " in result.output
    assert exit_code(result) == 0 and not result.is_error


async def test_writing_grandchild_output_is_all_kept(tmp_path: Path) -> None:
    # The shell exits at once; the grandchild keeps writing 1.3 MB into the inherited pipe.
    command = "( seq 1 200000 ) & echo shell-done"
    tool = BashTool(log_dir=str(tmp_path))
    result = await tool.execute(
        BashParams(command=command), CancelController().signal, ToolContext("c", tmp_path)
    )
    assert "lines 199502-200001 of 200001 (500 line limit)" in result.output
    [log] = tmp_path.glob("ink-output-*.log")
    lines = log.read_text().split("\n")
    stdout = lines[lines.index("[stdout]") + 1 : lines.index("[stderr]")]
    assert sorted(stdout) == sorted([str(i) for i in range(1, 200001)] + ["shell-done"])


async def test_return_is_immediate_when_shell_exited_and_pipes_closed(tmp_path: Path) -> None:
    tool = BashTool(log_dir=str(tmp_path))
    # A background child that closed its copies of the pipes does not delay the result.
    args = BashParams(command="sleep 60 >/dev/null 2>&1 & echo $! > pids")
    took = []
    for _ in range(3):  # the best of three, so a busy machine does not fail the test
        started = time.monotonic()
        await tool.execute(args, CancelController().signal, ToolContext("c", tmp_path))
        took.append(time.monotonic() - started)
    assert min(took) < 0.09  # well under the 100 ms quiet wait


async def test_cancel_during_the_post_exit_wait_ends_it_at_once(tmp_path: Path) -> None:
    call = Running(
        "setsid bash -c 'echo $$ > esc; while :; do echo tick; sleep 0.01; done' & echo x",
        tmp_path,
    )
    [escapee] = await pids_from(tmp_path / "esc")
    result, took = await call.cancel()
    assert took < 1.9  # at once: never the 2 s cap of the post-exit wait
    assert result.output.startswith("Error: command aborted by user. Partial output:\nstdout:\nx")
    assert not running(escapee)


async def test_task_cancellation_also_kills_the_tree(tmp_path: Path) -> None:
    call = Running("sleep 60 & echo $! > pids; wait", tmp_path)
    [pid] = await pids_from(tmp_path / "pids")
    call.task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call.task
    assert not running(pid)


async def test_unkillable_process_is_reported_not_claimed_dead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    call = Running("sleep 60 & echo $! > pids; wait", tmp_path)
    [pid] = await pids_from(tmp_path / "pids")
    real_kill = _process.os.kill

    def refuse(target: int, sig: int) -> None:
        if target == pid:
            raise PermissionError(1, "Operation not permitted")
        real_kill(target, sig)

    monkeypatch.setattr(_process.os, "killpg", lambda pgid, sig: real_kill(call_leader(), sig))
    monkeypatch.setattr(_process.os, "kill", refuse)
    result, _ = await call.cancel()
    assert result.output.endswith(
        "[Warning: 1 process(es) started by this command could not be stopped "
        f"(pid {pid}: Operation not permitted); they may still be running.]"
    )
    monkeypatch.undo()
    assert running(pid)  # the report was right: it is still there (the fixture kills it)


def call_leader() -> int:
    [tree] = [t for t in _process.tracked() if not t.leader_reaped]
    return tree.pid


async def test_stops_never_signal_pid_1_ourselves_or_our_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[tuple[str, int]] = []
    real_kill, real_killpg = os.kill, os.killpg

    def kill(pid: int, sig: int) -> None:
        sent.append(("kill", pid))
        real_kill(pid, sig)

    def killpg(pgid: int, sig: int) -> None:
        sent.append(("killpg", pgid))
        real_killpg(pgid, sig)

    monkeypatch.setattr(_process.os, "kill", kill)
    monkeypatch.setattr(_process.os, "killpg", killpg)
    call = Running("setsid sleep 60 & echo $! > esc; sleep 60 & wait", tmp_path)
    [escapee] = await pids_from(tmp_path / "esc")
    await wait_until(lambda: session_of(escapee) == escapee)  # out of the group for sure
    await call.cancel()
    assert not running(escapee)
    leader = max(t.pid for t in _process.tracked())
    assert ("killpg", leader) in sent and ("kill", escapee) in sent
    assert all(pid > 1 and pid not in (os.getpid(), os.getpgrp()) for _, pid in sent)


async def test_group_kill_failure_falls_back_to_the_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(pgid: int, sig: int) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(_process.os, "killpg", refuse)
    call = Running("sleep 60 & echo $! > pids; wait", tmp_path)
    [pid] = await pids_from(tmp_path / "pids")
    leader = max(t.pid for t in _process.tracked())
    result, _ = await call.cancel()
    assert "Warning" not in result.output
    assert not running(leader) and not running(pid)


async def test_missing_exit_status_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_waitpid = os.waitpid

    def reaped_elsewhere(pid: int, options: int) -> tuple[int, int]:
        if options == 0:  # the leader's waiter: someone else got the status first
            real_waitpid(pid, options)
            raise ChildProcessError(10, "No child processes")
        return real_waitpid(pid, options)

    monkeypatch.setattr(_process.os, "waitpid", reaped_elsewhere)
    result = await BashTool(log_dir=str(tmp_path)).execute(
        BashParams(command="echo hi"), CancelController().signal, ToolContext("c", tmp_path)
    )
    assert result.output == (
        "Error: command ended without an exit status. Partial output:\nstdout:\nhi"
    )
    assert result.is_error


async def test_concurrent_calls_stop_only_their_own_processes(tmp_path: Path) -> None:
    a_dir, b_dir = tmp_path / "a", tmp_path / "b"
    a_dir.mkdir()
    b_dir.mkdir()
    escape = "( setsid sleep 60 & echo $! > esc ); sleep 60"
    first, second = Running(escape, a_dir), Running(escape, b_dir)
    [a_escapee] = await pids_from(a_dir / "esc")
    [b_escapee] = await pids_from(b_dir / "esc")
    await wait_until(lambda: parent_of(a_escapee) == parent_of(b_escapee) == os.getpid())
    await wait_until(lambda: session_of(a_escapee) == a_escapee)
    await wait_until(lambda: session_of(b_escapee) == b_escapee)
    result, _ = await first.cancel()
    assert "Warning" not in result.output  # the other call's escapee is not called a stray
    assert not running(a_escapee) and running(b_escapee)
    result, _ = await second.cancel()
    assert "Warning" not in result.output
    assert not running(b_escapee)
