"""Path-aware scheduling (always on):
disjoint declared paths overlap, conflicting calls keep call order, a call that may touch
anything stays a barrier, and flag-only planning is unchanged when the option is off."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from agent_fakes import Board, ControlledTool, KeyParams, Recorder
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field

from ink_ls.agent._access import conflicts
from ink_ls.agent.pipeline import CallResult
from ink_ls.agent.scheduler import BatchEnv, run_batch
from ink_ls.core.messages import ToolCall
from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import Access, ToolContext, ToolRegistry, ToolResult

ROOT = Path("/work/ws")


class PathParams(KeyParams):
    path: str = Field(default=".", description="the path touched")


class WriterTool(ControlledTool):
    """Not concurrency-safe, but says which file it writes (like edit and write)."""

    name = "edit"
    params_model = PathParams

    def access(self, args: PathParams, cwd: Path) -> Access:  # type: ignore[override]
        return Access(writes=frozenset({cwd / args.path}))


class ReaderTool(ControlledTool):
    name = "read"
    params_model = PathParams
    concurrency_safe = True

    def access(self, args: PathParams, cwd: Path) -> Access:  # type: ignore[override]
        return Access(reads=frozenset({cwd / args.path}))


class GrepTool(ReaderTool):
    name = "grep"


class BashTool(ControlledTool):
    name = "bash"


def c(name: str, key: str, path: str = ".") -> ToolCall:
    return ToolCall(id=key, name=name, arguments=json.dumps({"key": key, "path": path}))


def make_env(board: Board, rec: Recorder) -> BatchEnv:
    tools = ToolRegistry([WriterTool(board), ReaderTool(board), GrepTool(board), BashTool(board)])
    return BatchEnv(tools=tools, cwd=ROOT, on_event=rec)


def launch(calls: list[ToolCall], env: BatchEnv) -> asyncio.Task[list[CallResult]]:
    return asyncio.ensure_future(run_batch(calls, env))


async def spin(n: int = 20) -> None:
    for _ in range(n):
        await asyncio.sleep(0)


async def test_writes_to_different_files_overlap() -> None:
    board, rec = Board(), Recorder()
    task = launch([c("edit", "a", "a.py"), c("edit", "b", "b.py")], make_env(board, rec))
    await board.wait_started("a", "b")
    board.release("b", "a")
    await asyncio.wait_for(task, 5)
    assert board.max_running == 2
    assert rec.of("tool_end") == ["a", "b"]


async def test_a_read_after_a_write_of_the_same_file_waits_for_it() -> None:
    board, rec = Board(), Recorder()
    calls = [c("edit", "w", "a.py"), c("read", "r", "a.py"), c("read", "other", "b.py")]
    task = launch(calls, make_env(board, rec))
    await board.wait_started("w", "other")
    await spin()
    assert "start:r" not in board.log
    board.release("w")
    await board.wait_started("r")
    board.release("r", "other")
    await asyncio.wait_for(task, 5)
    assert board.log.index("end:w") < board.log.index("start:r")
    assert rec.of("tool_end") == ["w", "r", "other"]


async def test_a_write_after_a_read_of_the_same_file_waits_for_the_read() -> None:
    board, rec = Board(), Recorder()
    task = launch([c("read", "r", "a.py"), c("edit", "w", "a.py")], make_env(board, rec))
    await board.wait_started("r")
    await spin()
    assert "start:w" not in board.log
    board.release("r")
    await board.wait_started("w")
    board.release("w")
    await asyncio.wait_for(task, 5)


async def test_a_directory_search_conflicts_with_a_write_below_it() -> None:
    board, rec = Board(), Recorder()
    calls = [c("grep", "g", "src"), c("edit", "w", "src/app.py"), c("edit", "x", "docs/a.md")]
    task = launch(calls, make_env(board, rec))
    await board.wait_started("g", "x")
    await spin()
    assert "start:w" not in board.log
    board.release("g", "x")
    await board.wait_started("w")
    board.release("w")
    await asyncio.wait_for(task, 5)


async def test_a_call_that_may_touch_anything_stays_a_barrier() -> None:
    board, rec = Board(), Recorder()
    bash = ToolCall(id="C", name="bash", arguments='{"key": "C"}')
    calls = [c("read", "A", "a"), c("grep", "B", "b"), bash, c("read", "D", "d")]
    task = launch(calls, make_env(board, rec))
    await board.wait_started("A", "B")
    await spin()
    assert sorted(board.log) == ["start:A", "start:B"]
    board.release("A", "B")
    await board.wait_started("C")
    await spin()
    assert "start:D" not in board.log
    board.release("C", "D")
    await asyncio.wait_for(task, 5)
    assert board.log[-4:] == ["start:C", "end:C", "start:D", "end:D"]


def test_conflict_rules() -> None:
    a, b = ROOT / "a.py", ROOT / "b.py"
    reads_a, writes_a, writes_b = (
        Access(reads=frozenset({a})),
        Access(writes=frozenset({a})),
        Access(writes=frozenset({b})),
    )
    assert not conflicts(True, reads_a, True, reads_a)
    assert not conflicts(True, None, True, None)  # two safe calls never conflict
    assert conflicts(True, reads_a, False, writes_a)
    assert not conflicts(True, reads_a, False, writes_b)
    assert conflicts(False, writes_a, False, writes_a)
    assert conflicts(True, None, False, writes_b)  # unknown reads vs a write
    assert conflicts(True, Access(reads=frozenset({ROOT})), False, writes_b)


_kinds = st.sampled_from(["edit", "read", "grep", "bash"])
_paths = st.sampled_from([".", "a.py", "b.py", "src", "src/x.py"])


@given(st.lists(st.tuples(_kinds, _paths, st.integers(0, 4)), min_size=1, max_size=9))
@settings(max_examples=80, deadline=None)
def test_conflicting_calls_never_run_at_the_same_time(specs: list[tuple[str, str, int]]) -> None:
    asyncio.run(_no_conflicting_overlap(specs))


class _Watched(ControlledTool):
    params_model = PathParams
    steps: dict[str, int] = {}
    live: dict[str, tuple[bool, Access | None]] = {}
    bad: list[str] = []

    async def execute(
        self, args: KeyParams, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        assert isinstance(args, PathParams)
        mine = (self.concurrency_safe, self.access(args, ROOT))
        for other, (safe, acc) in self.live.items():
            if conflicts(safe, acc, *mine):
                self.bad.append(f"{args.key} overlapped {other}")
        self.live[args.key] = mine
        try:
            for _ in range(self.steps[args.key]):
                await asyncio.sleep(0)
            return ToolResult(output="ok")
        finally:
            del self.live[args.key]


async def _no_conflicting_overlap(specs: list[tuple[str, str, int]]) -> None:
    _Watched.steps, _Watched.live, _Watched.bad = {}, {}, []
    classes = {
        "edit": type("E", (_Watched,), {"name": "edit", "access": WriterTool.access}),
        "read": type(
            "R",
            (_Watched,),
            {"name": "read", "access": ReaderTool.access, "concurrency_safe": True},
        ),
        "grep": type(
            "G",
            (_Watched,),
            {"name": "grep", "access": ReaderTool.access, "concurrency_safe": True},
        ),
        "bash": type("B", (_Watched,), {"name": "bash"}),
    }
    board, rec = Board(), Recorder()
    tools = ToolRegistry([cls(board) for cls in classes.values()])
    calls = []
    for i, (kind, path, steps) in enumerate(specs):
        _Watched.steps[f"k{i}"] = steps
        calls.append(c(kind, f"k{i}", path))
    env = BatchEnv(tools=tools, cwd=ROOT, on_event=rec)
    results = await asyncio.wait_for(run_batch(calls, env), 10)
    assert not _Watched.bad
    assert [r.tool_call_id for r in results] == [f"k{i}" for i in range(len(specs))]
    assert rec.of("tool_end") == [f"k{i}" for i in range(len(specs))]
    assert all(not r.is_error for r in results)
