"""`Hooks`: the configured hooks of one session, run at the agent's call points.

Matching hooks of one event run together; their answers combine (any block blocks, deny beats
ask beats allow, the last `updatedInput` wins). Each run is reported (start and end) to
`report`, which the agent turns into events (the editor's progress, the terminal's lines).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ink_ls.core.signal import CancelSignal
from ink_ls.hooks import names
from ink_ls.hooks.config import TOOL_EVENTS, HookSpec, matches
from ink_ls.hooks.runner import HookResult, Outcome, PermissionDecision, run_hook
from ink_ls.tools.bash import command_env

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class HookReport:
    """A hook started (`outcome` None) or ended."""

    event: str
    command: str
    tool_call_id: str | None = None
    outcome: Outcome | None = None
    message: str = ""
    duration_ms: float | None = None


@dataclass
class ToolVerdict:
    """What PreToolUse hooks decided about one call."""

    blocked: str | None = None
    """The reason the call is refused (for the model), when it is."""
    permission: PermissionDecision | None = None
    reason: str | None = None
    updated_input: dict[str, Any] | None = None
    """Our argument names, ready to validate."""


@dataclass
class PromptVerdict:
    blocked: str | None = None
    """The reason for the user; the prompt is dropped."""
    context: list[str] = field(default_factory=list)


def _ignore(report: HookReport) -> None:
    return None


class Hooks:
    """One session's hooks; `report` gets every start and end."""

    def __init__(
        self,
        entries: Iterable[HookSpec],
        *,
        cwd: Path,
        session_id: str,
        secret_env: Iterable[str] = (),
        transcript_path: str | None = None,
        events: frozenset[str] | None = None,
    ) -> None:
        self.entries = [e for e in entries if events is None or e.event in events]
        self.cwd = cwd
        self.session_id = session_id
        self.transcript_path = transcript_path
        self.permission_mode: str | None = None
        self.report: Callable[[HookReport], None] = _ignore
        self._secret_env = tuple(secret_env)
        self._session_started = False

    def for_subagent(self) -> Hooks:
        """The tool hooks only, for a `task` call's sub-agent (its prompt and end are ours)."""
        child = Hooks(
            self.entries,
            cwd=self.cwd,
            session_id=self.session_id,
            secret_env=self._secret_env,
            transcript_path=self.transcript_path,
            events=TOOL_EVENTS,
        )
        child.report, child.permission_mode = self.report, self.permission_mode
        return child

    def matching(self, event: str, tool: str | None = None) -> list[HookSpec]:
        """The hooks of `event` (for a tool: whose matcher takes its Claude Code name)."""
        found: list[HookSpec] = []
        seen: set[str] = set()
        for entry in self.entries:
            if entry.event != event or entry.command in seen:
                continue
            if tool is not None and not matches(entry.matcher, tool):
                continue
            seen.add(entry.command)  # the same command twice runs once
            found.append(entry)
        return found

    def _env(self) -> dict[str, str]:
        env = command_env(self._secret_env)
        env["INK_PROJECT_DIR"] = env["CLAUDE_PROJECT_DIR"] = str(self.cwd)
        return env

    async def _run(
        self,
        event: str,
        hooks: Sequence[HookSpec],
        fields: dict[str, Any],
        signal: CancelSignal,
        *,
        call_id: str | None = None,
        context_event: bool = False,
    ) -> list[HookResult]:
        payload: dict[str, Any] = {
            "session_id": self.session_id,
            "transcript_path": self.transcript_path,
            "cwd": str(self.cwd),
            "hook_event_name": event,
        }
        if self.permission_mode is not None:
            payload["permission_mode"] = self.permission_mode
        payload.update(fields)
        env = self._env()

        async def one(hook: HookSpec) -> HookResult:
            self._emit(HookReport(event, hook.command, call_id))
            result = await run_hook(
                hook, payload, cwd=self.cwd, env=env, signal=signal, context_event=context_event
            )
            self._emit(
                HookReport(
                    event,
                    hook.command,
                    call_id,
                    result.outcome,
                    result.summary(),
                    result.duration_ms,
                )
            )
            return result

        return list(await asyncio.gather(*(one(h) for h in hooks)))

    def _emit(self, report: HookReport) -> None:
        try:
            self.report(report)
        except Exception:  # a broken listener must not break a hook
            log.exception("hook report listener failed")

    async def pre_tool_use(
        self, tool: str, args: dict[str, Any], call_id: str, signal: CancelSignal
    ) -> ToolVerdict | None:
        """None when no hook matches; else the combined verdict."""
        name = names.claude_name(tool, args)
        hooks = self.matching("PreToolUse", name)
        if not hooks:
            return None
        claude_input = names.claude_input(tool, args, self.cwd)
        fields: dict[str, Any] = {
            "tool_name": name,
            "tool_input": claude_input,
            "tool_use_id": call_id,
        }
        results = await self._run("PreToolUse", hooks, fields, signal, call_id=call_id)
        verdict = ToolVerdict()
        blocks = [r.reason or f"`{r.command}` gave no reason" for r in results if r.blocked]
        blocks += [r.stop for r in results if r.stop and not r.blocked]  # `continue: false`
        if blocks:
            verdict.blocked = "\n".join(blocks)
            return verdict
        for wanted in ("ask", "allow"):
            for r in results:
                if r.permission == wanted and verdict.permission is None:
                    verdict.permission, verdict.reason = r.permission, r.reason
        for r in results:
            if r.updated_input is not None:
                merged = {**claude_input, **r.updated_input}
                verdict.updated_input = names.our_input(tool, merged)
        return verdict

    async def post_tool_use(
        self,
        tool: str,
        args: dict[str, Any],
        response: dict[str, Any],
        call_id: str,
        signal: CancelSignal,
    ) -> list[str]:
        """Lines for the model: the reasons of blocking hooks and added context."""
        name = names.claude_name(tool, args)
        hooks = self.matching("PostToolUse", name)
        if not hooks:
            return []
        fields = {
            "tool_name": name,
            "tool_input": names.claude_input(tool, args, self.cwd),
            "tool_response": response,
            "tool_use_id": call_id,
        }
        results = await self._run("PostToolUse", hooks, fields, signal, call_id=call_id)
        notes = [f"PostToolUse hook: {r.reason}" for r in results if r.blocked and r.reason]
        notes += [r.context for r in results if r.context]
        return notes

    async def user_prompt_submit(self, prompt: str, signal: CancelSignal) -> PromptVerdict:
        """Runs SessionStart first, once per session, then UserPromptSubmit."""
        verdict = PromptVerdict()
        if not self._session_started:
            self._session_started = True
            start = self.matching("SessionStart")
            if start:
                fields = {"source": "resume" if self.transcript_path else "startup"}
                results = await self._run("SessionStart", start, fields, signal, context_event=True)
                verdict.context += [r.context for r in results if r.context]
        hooks = self.matching("UserPromptSubmit")
        if hooks:
            results = await self._run(
                "UserPromptSubmit", hooks, {"prompt": prompt}, signal, context_event=True
            )
            blocks = [r.reason or r.command for r in results if r.blocked]
            stops = [r.stop for r in results if r.stop]
            if blocks or stops:
                verdict.blocked = "\n".join(blocks + [s for s in stops if s])
                return verdict
            verdict.context += [r.context for r in results if r.context]
        return verdict

    async def stop(self, active: bool, signal: CancelSignal) -> str | None:
        """The reason to go on when a Stop hook blocks the end of the turn, else None."""
        hooks = self.matching("Stop")
        if not hooks:
            return None
        results = await self._run("Stop", hooks, {"stop_hook_active": active}, signal)
        if any(r.stop for r in results):
            return None  # `continue: false` wins: the turn ends
        reasons = [r.reason or f"`{r.command}` gave no reason" for r in results if r.blocked]
        return "\n".join(reasons) or None

    async def pre_compact(self, trigger: Literal["manual", "auto"], signal: CancelSignal) -> None:
        """Run PreCompact hooks (they cannot stop a compaction; they are reported)."""
        hooks = self.matching("PreCompact")
        if hooks:
            fields = {"trigger": trigger, "custom_instructions": ""}
            await self._run("PreCompact", hooks, fields, signal)
