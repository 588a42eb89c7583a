"""The approval policy as a gate: what asks, what passes, what is refused, per approval mode,
after the user's permission rules (deny > ask > allow > mode; `agent.permissions`).

Without a rule it decides from what a call touches (`Tool.access`), not from tool names. It
never shows anything itself: a `Prompter` (the editor's prompt, or the terminal's) asks the
user. File changes inside the workspace pass the gate under `ask`: the `FileWriter` asks for
them at write time, when the real diff is known (unless a rule allowed the call: `granted`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol, TypeVar

from ink_ls.agent.gate import GateBlock, GateRequest
from ink_ls.agent.permissions import Permissions, read_only
from ink_ls.core.config import ApprovalMode
from ink_ls.core.signal import CancelledError, CancelSignal, WaitTimeoutError, race

Choice = Literal["allow_once", "allow_always", "allow_project", "reject"]
"""`allow_project`: always in this project (the question's `project_rules` are saved)."""
QuestionKind = Literal["command", "outside_workspace", "change", "trust", "hook"]

DEFAULT_APPROVAL_TIMEOUT = 600.0

log = logging.getLogger(__name__)

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
    project_rules: tuple[str, ...] = ()
    """What "always in this project" saves (`.ink/settings.local.json`); empty: not offered."""
    rule: str | None = None
    """The ask rule that made this question, described (`ask rule "…" (… in …)`)."""


class Prompter(Protocol):
    """Asks the user; returns the choice, or None when the prompt was dismissed."""

    async def __call__(self, question: ApprovalQuestion, signal: CancelSignal) -> Choice | None: ...


def _inside(path: Path, root: Path) -> bool:
    real = Path(os.path.realpath(path))
    return real == root or root in real.parents


def _sandboxed(request: GateRequest) -> bool:
    """Whether the call runs in the command sandbox (a tool says so with `runs_sandboxed`)."""
    check = getattr(request.tool, "runs_sandboxed", None)
    return bool(check(request.args)) if callable(check) else False


def _describe_call(request: GateRequest) -> str:
    return f"{request.tool.name} {_describe_args(request)}"


def _describe_args(request: GateRequest) -> str:
    return json.dumps(request.args.model_dump(mode="json", by_alias=True), ensure_ascii=False)


@dataclass
class ApprovalGate:
    """A `Gate` implementing the approval modes and permission rules. One instance per
    session ("Always allow" and `granted` live here)."""

    mode: ApprovalMode
    prompter: Prompter | None = None
    timeout: float = DEFAULT_APPROVAL_TIMEOUT
    always_allowed: set[str] = field(default_factory=set)
    permissions: Permissions | None = None
    """The user's rules; None: the mode alone decides."""
    granted: set[str] = field(default_factory=set)
    """Ids of calls a rule allowed: writers apply their changes without asking."""

    def would_pass(self, request: GateRequest) -> bool:
        """Side-effect free: True when `__call__` would pass the call without a question.

        Mirrors `__call__`: an allow rule, auto mode, a delegating tool, or files touched only
        inside the workspace (writes not under readonly or plan), or a question already
        answered "always"; never when a deny or ask rule matches.
        """
        if request.ask is not None:  # a hook wants the user asked
            return False
        by_rules = self._rules_pass(request)
        if by_rules is not None:
            return by_rules
        if self.mode == "auto":
            return True
        tool = request.tool
        access = tool.access(request.args, request.cwd)
        if access is None:
            if self.mode == "ask" and _sandboxed(request):
                return True
            return tool.delegates or (
                self.mode in ("ask", "auto") and f"{tool.name}:command" in self.always_allowed
            )
        if access.writes and self.mode in ("readonly", "plan"):
            return False
        root = Path(os.path.realpath(request.cwd))
        if all(_inside(Path(p), root) for p in access.reads | access.writes):
            return True
        return f"{tool.name}:outside_workspace" in self.always_allowed

    def _rules_pass(self, request: GateRequest) -> bool | None:
        """What the rules and plan mode say for `would_pass` (None: the mode decides)."""
        kind = self.permissions.decide(request).kind if self.permissions is not None else None
        if kind in ("deny", "ask") or (self.mode == "plan" and not read_only(request)):
            return False
        return True if kind == "allow" else None

    async def __call__(self, request: GateRequest, signal: CancelSignal) -> GateBlock | None:
        decision = self.permissions.decide(request) if self.permissions is not None else None
        if decision is not None and decision.kind == "deny":
            return GateBlock("permission rule", decision.reason())
        if self.mode == "plan" and not read_only(request):
            return GateBlock("plan mode", PLAN_REFUSAL)
        if request.ask is not None:  # a hook wants the user asked, in every mode
            command = getattr(request.args, "command", None)
            what = command if isinstance(command, str) else _describe_call(request)
            return await self._ask(request, "hook", f"{request.ask}: {what}", signal)
        if decision is None or decision.kind is None:
            return await self._by_mode(request, signal)
        if decision.kind == "allow":
            self.granted.add(request.tool_call_id)
            return None
        if self.mode in ("readonly", "plan"):
            why = f"{decision.reason()}; approval mode {self.mode} asks no one"
            return GateBlock("permission rule", why)
        return await self._ask_rule(request, decision.reason(), signal)

    async def _ask_rule(
        self, request: GateRequest, rule: str, signal: CancelSignal
    ) -> GateBlock | None:
        """An ask rule matched: ask in every mode that asks (also auto), never "always"."""
        tool = request.tool
        command = getattr(request.args, "command", None)
        command = command if isinstance(command, str) else None
        title = (
            f"Run command: {command}"
            if command is not None
            else f"Run {tool.name} {_describe_args(request)}"
        )
        block = await self._ask(
            request, "command", title, signal, command=command, rule=rule, remember=False
        )
        if block is None:
            self.granted.add(request.tool_call_id)  # asked once: the writer asks no more
        return block

    async def _by_mode(self, request: GateRequest, signal: CancelSignal) -> GateBlock | None:
        if self.mode == "auto":
            return None
        tool = request.tool
        access = tool.access(request.args, request.cwd)
        root = Path(os.path.realpath(request.cwd))
        if access is None:
            return await self._command(request, signal)
        touched = {os.path.realpath(p) for p in access.reads | access.writes}
        outside = sorted(p for p in touched if not _inside(Path(p), root))
        if access.writes and self.mode in ("readonly", "plan"):
            return GateBlock("policy", f"approval mode is {self.mode}: files are not changed")
        if not outside:
            return None
        if self.mode in ("readonly", "plan"):  # nobody is asked: they never leave the workspace
            return GateBlock(
                "policy",
                f"approval mode is {self.mode}: files outside the workspace are not read",
            )
        verb = "change" if access.writes else "read"
        title = f"{tool.name}: {verb} outside the workspace: {', '.join(outside)}"
        return await self._ask(request, "outside_workspace", title, signal)

    def save_project_rules(self, rules: Sequence[str], cwd: Path) -> str | None:
        """Save "always in this project" rules; None, or why they could not be saved."""
        if self.permissions is None:
            return "no permission rules are in use"
        return self.permissions.save(rules, cwd)

    async def _command(self, request: GateRequest, signal: CancelSignal) -> GateBlock | None:
        """A call that may touch anything (a command): asked in `ask` mode, unless it runs in
        the command sandbox or only delegates to a sub-agent (whose calls are gated)."""
        tool = request.tool
        if tool.delegates:
            return None  # the sub-agent's own calls go through this gate
        if self.mode == "ask" and _sandboxed(request):
            return None  # the kernel sandbox is the guard
        if self.mode in ("readonly", "plan"):
            return GateBlock("policy", f"approval mode is {self.mode}: commands are not run")
        command = getattr(request.args, "command", None)
        command = command if isinstance(command, str) else None
        title = (
            f"Run command: {command}"
            if command is not None
            else (f"Run {tool.name} {_describe_args(request)}")
        )
        return await self._ask(request, "command", title, signal, command=command)

    async def _ask(
        self,
        request: GateRequest,
        kind: QuestionKind,
        title: str,
        signal: CancelSignal,
        *,
        command: str | None = None,
        rule: str | None = None,
        remember: bool = True,
    ) -> GateBlock | None:
        key = f"{request.tool.name}:{kind}"
        if remember and key in self.always_allowed:
            return None
        if self.prompter is None:
            return GateBlock("policy", "approval is required but no one can be asked")
        suggested = self.permissions.suggest(request) if self.permissions is not None else []
        question = ApprovalQuestion(
            tool_name=request.tool.name,
            tool_call_id=request.tool_call_id,
            kind=kind,
            title=title,
            detail=_describe_args(request),
            command=command,
            project_rules=tuple(suggested) if remember else (),
            rule=rule,
        )
        try:
            choice = await wait_answer(
                self.prompter(question, signal), timeout=self.timeout, signal=signal
            )
        except WaitInterruptedError as exc:
            return GateBlock("user", exc.reason)
        except Exception as exc:
            return GateBlock("user", f"the approval prompt failed: {exc}")
        return self._answered(choice, question, request, key if remember else None)

    def _answered(
        self,
        choice: Choice | None,
        question: ApprovalQuestion,
        request: GateRequest,
        key: str | None,
    ) -> GateBlock | None:
        """What the user's answer means; `key` is what "always" remembers (None: nothing)."""
        if choice == "allow_project" and question.project_rules:
            problem = self.save_project_rules(question.project_rules, request.cwd)
            if problem is not None:
                log.warning("%s", problem)
            return None
        if choice in ("allow_always", "allow_project"):
            if key is not None:
                self.always_allowed.add(key)
            return None
        if choice == "allow_once":
            return None
        if choice == "reject":
            return GateBlock("user", "the user rejected this call")
        return GateBlock("user", "the approval prompt was dismissed")


PLAN_REFUSAL = (
    "plan mode: only tools that read run until the user approves the plan; "
    "finish investigating and end your reply with the plan"
)
