"""The approval policy as a gate: what asks, what passes, what is refused, per approval mode.

It decides from what a call touches (`Tool.access`), not from tool names. It never shows
anything itself: a `Prompter` (the editor's prompt, or the terminal's) asks the user.
File changes inside the workspace pass the gate under `ask`: the `FileWriter` asks for
them at write time, when the real diff is known.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol, TypeVar

from ink_ls.agent.gate import GateBlock, GateRequest
from ink_ls.core.config import ApprovalMode
from ink_ls.core.signal import NEVER, CancelledError, CancelSignal, WaitTimeoutError, race

Choice = Literal["allow_once", "allow_always", "reject"]
QuestionKind = Literal["command", "outside_workspace", "change"]

DEFAULT_APPROVAL_TIMEOUT = 600.0

T = TypeVar("T")


class WaitInterruptedError(Exception):
    """A wait for the user ended by cancel or timeout; `reason` says which, for the model."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


async def wait_answer(aw: Awaitable[T], *, timeout: float, signal: CancelSignal) -> T:
    """Await the user's answer, giving up on cancel or after `timeout` seconds.

    The one place approvals wait (the gate's prompts, the editor's edit reviews); giving
    up cancels `aw`, so whatever asked can withdraw its question.
    """
    try:
        return await race(aw, signal, timeout=timeout)
    except CancelledError:
        raise WaitInterruptedError("cancelled while waiting for approval") from None
    except WaitTimeoutError:
        raise WaitInterruptedError(
            f"no answer to the approval prompt within {timeout:g}s"
        ) from None
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise  # we are being cancelled ourselves
        # the asking side withdrew the question
        raise WaitInterruptedError("the approval prompt was dismissed") from None


@dataclass(frozen=True)
class ApprovalQuestion:
    tool_name: str
    tool_call_id: str
    kind: QuestionKind
    title: str
    """One line a person reads, e.g. `Run command: npm test`."""
    detail: str
    command: str | None = None
    """The command itself when the call runs one (kind `command`)."""


class Prompter(Protocol):
    """Asks the user; returns the choice, or None when the prompt was dismissed."""

    async def __call__(self, question: ApprovalQuestion, signal: CancelSignal) -> Choice | None: ...


def _inside(path: Path, root: Path) -> bool:
    real = Path(os.path.realpath(path))
    return real == root or root in real.parents


def _describe_args(request: GateRequest) -> str:
    return json.dumps(request.args.model_dump(mode="json", by_alias=True), ensure_ascii=False)


@dataclass
class ApprovalGate:
    """A `Gate` implementing the approval modes. One instance per session ("Always allow")."""

    mode: ApprovalMode
    prompter: Prompter | None = None
    timeout: float = DEFAULT_APPROVAL_TIMEOUT
    always_allowed: set[str] = field(default_factory=set)

    def would_pass(self, request: GateRequest) -> bool:
        """Side-effect free: True when `__call__` would pass the call without a question.

        Mirrors `__call__`: auto mode, a delegating tool, or files touched only inside the
        workspace (writes not under readonly), or a question already answered "always".
        """
        if self.mode == "auto":
            return True
        tool = request.tool
        access = tool.access(request.args, request.cwd)
        if access is None:
            return tool.delegates or (
                self.mode != "readonly" and f"{tool.name}:command" in self.always_allowed
            )
        if access.writes and self.mode == "readonly":
            return False
        root = Path(os.path.realpath(request.cwd))
        if all(_inside(Path(p), root) for p in access.reads | access.writes):
            return True
        return f"{tool.name}:outside_workspace" in self.always_allowed

    async def __call__(self, request: GateRequest, signal: CancelSignal) -> GateBlock | None:
        if self.mode == "auto":
            return None
        tool = request.tool
        access = tool.access(request.args, request.cwd)
        root = Path(os.path.realpath(request.cwd))
        if access is None:
            if tool.delegates:
                return None  # the sub-agent's own calls go through this gate
            if self.mode == "readonly":
                return GateBlock("policy", "approval mode is readonly: commands are not run")
            command = getattr(request.args, "command", None)
            command = command if isinstance(command, str) else None
            title = (
                f"Run command: {command}"
                if command is not None
                else (f"Run {tool.name} {_describe_args(request)}")
            )
            return await self._ask(request, "command", title, signal, command=command)
        touched = {os.path.realpath(p) for p in access.reads | access.writes}
        outside = sorted(p for p in touched if not _inside(Path(p), root))
        if access.writes and self.mode == "readonly":
            return GateBlock("policy", "approval mode is readonly: files are not changed")
        if not outside:
            return None
        if self.mode == "readonly":  # nobody is asked: readonly never leaves the workspace
            return GateBlock(
                "policy", "approval mode is readonly: files outside the workspace are not read"
            )
        verb = "change" if access.writes else "read"
        title = f"{tool.name}: {verb} outside the workspace: {', '.join(outside)}"
        return await self._ask(request, "outside_workspace", title, signal)

    async def _ask(
        self,
        request: GateRequest,
        kind: QuestionKind,
        title: str,
        signal: CancelSignal,
        *,
        command: str | None = None,
    ) -> GateBlock | None:
        key = f"{request.tool.name}:{kind}"
        if key in self.always_allowed:
            return None
        if self.prompter is None:
            return GateBlock("policy", "approval is required but no one can be asked")
        question = ApprovalQuestion(
            tool_name=request.tool.name,
            tool_call_id=request.tool_call_id,
            kind=kind,
            title=title,
            detail=_describe_args(request),
            command=command,
        )
        try:
            choice = await wait_answer(
                self.prompter(question, signal), timeout=self.timeout, signal=signal
            )
        except WaitInterruptedError as exc:
            return GateBlock("user", exc.reason)
        except Exception as exc:
            return GateBlock("user", f"the approval prompt failed: {exc}")
        if choice == "allow_always":
            self.always_allowed.add(key)
            return None
        if choice == "allow_once":
            return None
        if choice == "reject":
            return GateBlock("user", "the user rejected this call")
        return GateBlock("user", "the approval prompt was dismissed")


def yes_no(
    prompter: Prompter, *, timeout: float = DEFAULT_APPROVAL_TIMEOUT, signal: CancelSignal = NEVER
) -> Callable[[str, str], Awaitable[bool]]:
    """A yes/no question through `prompter` (Allow = yes; Reject, dismissed or timeout = no);
    e.g. starting the MCP servers a workspace's `.mcp.json` names."""

    async def ask(title: str, detail: str) -> bool:
        question = ApprovalQuestion("mcp", "mcp-servers", "command", title, detail)
        try:
            choice = await wait_answer(prompter(question, signal), timeout=timeout, signal=signal)
        except WaitInterruptedError:
            return False
        return choice in ("allow_once", "allow_always")

    return ask
