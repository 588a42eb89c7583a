"""Path-aware planning: which calls of a batch
may overlap, from the paths each call declares through `Tool.access`.

Rules: two concurrency-safe calls never conflict (the flag's promise). A call
involving a non-safe tool conflicts with another when either may touch anything (`access` is
None) or one writes a path the other reads or writes (a directory covers everything below it).
A non-safe call with no declared access is a barrier: nothing crosses it. Pure functions; this
module runs nothing and knows nothing of events.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ink_ls.agent import pipeline
from ink_ls.agent.pipeline import CallResult, PreparedCall
from ink_ls.core.messages import ToolCall
from ink_ls.core.tool import Access, ToolRegistry

log = logging.getLogger(__name__)


@dataclass
class Plan:
    """The regions of a batch (lists of call indices) and what was learnt while planning."""

    regions: list[list[int]]
    prepared: dict[int, PreparedCall | CallResult]
    access: dict[int, Access | None]
    decoded: dict[int, object]


def _overlap(xs: Iterable[Path], ys: Iterable[Path]) -> bool:
    ys = list(ys)
    for x in xs:
        for y in ys:
            if x == y or x in y.parents or y in x.parents:
                return True
    return False


def conflicts(a_safe: bool, a: Access | None, b_safe: bool, b: Access | None) -> bool:
    """Whether two calls must keep their call order (the later waits for the earlier)."""
    if a_safe and b_safe:
        return False
    if a is None or b is None:
        return True
    return _overlap(a.writes, b.reads | b.writes) or _overlap(b.writes, a.reads | a.writes)


def _access_of(prepared: PreparedCall, cwd: Path) -> Access | None:
    try:
        return prepared.tool.access(prepared.args, cwd)
    except Exception:  # a tool that cannot say what it touches may touch anything
        log.exception(
            "access() of tool %s failed; treating the call as a barrier", prepared.tool.name
        )
        return None


def plan(calls: list[ToolCall], tools: ToolRegistry, cwd: Path) -> Plan:
    """Validate every call up front (pure) and split the batch at barriers."""
    regions: list[list[int]] = []
    current: list[int] = []
    prepared: dict[int, PreparedCall | CallResult] = {}
    access: dict[int, Access | None] = {}
    decoded: dict[int, object] = {}
    for i, call in enumerate(calls):
        decoded[i] = value = pipeline.decode_arguments(call.arguments)
        p = prepared[i] = pipeline.prepare(call, tools, value)
        if not isinstance(p, PreparedCall):
            current.append(i)
            continue
        access[i] = _access_of(p, cwd)
        if p.tool.concurrency_safe or access[i] is not None:
            current.append(i)
            continue
        if current:
            regions.append(current)
            current = []
        regions.append([i])
    if current:
        regions.append(current)
    return Plan(regions, prepared, access, decoded)


def dependencies(
    approved: list[tuple[int, PreparedCall]], access: dict[int, Access | None]
) -> dict[int, list[int]]:
    """For each approved call, the earlier approved calls it conflicts with."""
    deps: dict[int, list[int]] = {}
    for n, (j, pj) in enumerate(approved):
        found = [
            i
            for i, pi in approved[:n]
            if conflicts(
                pi.tool.concurrency_safe, access.get(i), pj.tool.concurrency_safe, access.get(j)
            )
        ]
        if found:
            deps[j] = found
    return deps
