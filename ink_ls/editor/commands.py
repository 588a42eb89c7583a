"""Ink for LSP clients without an ink plugin (Helix, Emacs/eglot, Kate, Sublime LSP, Zed's LSP
support): code actions on a selection or a diagnostic, and the `ink.ask` / `ink.cancel`
commands.

`ink.ask` answers at once (eglot gives a request 10 s) and runs the turn in the background as
an ordinary turn of the host: edits go through `workspace/applyEdit` with the generic-client
safeguards (a confirmation first, never over the user's typing). The answer comes back through
standard LSP: `window/showMessage` when it is short, else a markdown transcript opened with
`window/showDocument` (or, for a client without it, the message with the transcript's path).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ink_ls.core.env import state_dir
from ink_ls.core.messages import AssistantMessage, Message
from ink_ls.editor.documents import path_to_uri
from ink_ls.editor.host import Host
from ink_ls.editor.sessions import LiveSession
from ink_ls.protocol import lsp
from ink_ls.protocol.errors import session_busy
from ink_ls.protocol.methods import SHOW_DOCUMENT, SHOW_MESSAGE
from ink_ls.protocol.models import (
    AskCommandArgs,
    AskCommandResult,
    CancelCommandResult,
    SessionPromptParams,
    SessionPromptResult,
    TextDocumentIdentifier,
)

log = logging.getLogger(__name__)

SHORT_ANSWER = 280
"""An answer up to this many characters on at most three lines is shown as a message."""
MESSAGE_LIMIT = 2000

EXPLAIN = "Explain what the selected code does and anything surprising in it. Change nothing."
ASK_SELECTION = (
    "The selected text is my request (for example a comment saying what to do, or "
    "a question): do what it asks."
)


@dataclass(frozen=True)
class ActionSpec:
    """One code action: a title and the `ink.ask` argument object it runs with."""

    title: str
    arguments: dict[str, Any]
    kind: str | None = None
    diagnostics: list[dict[str, Any]] = field(default_factory=list)


def code_actions(
    uri: str, rng: dict[str, Any], diagnostics: list[dict[str, Any]]
) -> list[ActionSpec]:
    """`Ink: fix this problem` per diagnostic, then `Ink: explain this`, `Ink: ask about this…`.

    Without a selection (a cursor) they are about the cursor's line."""
    if rng.get("start") == rng.get("end") and isinstance(rng.get("start"), dict):
        line = rng["start"].get("line", 0)
        rng = {"start": {"line": line, "character": 0}, "end": {"line": line + 1, "character": 0}}
    actions = [
        ActionSpec(
            title=f"Ink: fix this problem ({_short(d.get('message', ''))})",
            arguments={"prompt": _fix_prompt(d), "uri": uri, "range": d.get("range", rng)},
            kind="quickfix",
            diagnostics=[d],
        )
        for d in diagnostics
    ]
    actions.append(ActionSpec("Ink: explain this", {"prompt": EXPLAIN, "uri": uri, "range": rng}))
    actions.append(ActionSpec("Ink: ask about this…", {"uri": uri, "range": rng}))
    return actions


def _short(text: str, limit: int = 60) -> str:
    line = text.strip().splitlines()[0] if text.strip() else "diagnostic"
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _fix_prompt(diagnostic: dict[str, Any]) -> str:
    source = diagnostic.get("source")
    code = diagnostic.get("code")
    origin = " ".join(str(x) for x in (source, code) if x)
    return (
        f"Fix this problem{f' ({origin})' if origin else ''} reported in the selected "
        f"code: {diagnostic.get('message', '')}"
    )


def is_short(text: str) -> bool:
    return len(text) <= SHORT_ANSWER and text.count("\n") < 3


def _tool_lines(messages: list[Message]) -> list[str]:
    return [
        f"- `{call.name}` {call.arguments}"
        for m in messages
        if isinstance(m, AssistantMessage)
        for call in m.tool_calls
    ]


class CommandTurns:
    """The commands of one connection; their turns share one session (follow-ups have context)."""

    def __init__(self, host: Host, transcripts: Path | None = None) -> None:
        self.host = host
        self.transcripts = transcripts if transcripts is not None else state_dir() / "transcripts"
        self.session: LiveSession | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def ask(self, args: AskCommandArgs) -> AskCommandResult:
        """Start a turn in the background; answers at once with the session id."""
        prompt = (args.prompt or "").strip() or ASK_SELECTION
        session = self.session
        if session is None or session.session_id not in self.host.sessions.live:
            session = self.session = self.host.sessions.new(prompt)
        if session.turn is not None or self._tasks:  # one command turn at a time
            raise session_busy(session.session_id)
        params = SessionPromptParams(
            session_id=session.session_id,
            prompt=prompt,
            text_document=TextDocumentIdentifier(uri=args.uri) if args.uri else None,
            range=args.range,
        )
        before = len(session.messages)
        task = asyncio.get_running_loop().create_task(self._run(session, params, before))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return AskCommandResult(session_id=session.session_id)

    def cancel(self) -> CancelCommandResult:
        """Cancel every running turn of this connection."""
        running = self.host.sessions.running()
        for turn in running:
            turn.controller.cancel("cancelled by the user (ink.cancel)")
        return CancelCommandResult(cancelled=len(running))

    async def _run(self, session: LiveSession, params: SessionPromptParams, before: int) -> None:
        try:
            result = await self.host.prompt(params)
        except Exception as exc:  # a refusal (busy, shutting down): say so, never crash
            log.info("ink.ask failed: %s", exc)
            self._message("error", f"Ink: {getattr(exc, 'message', exc)}")
            return
        await self._deliver(session, params.prompt, result, session.messages[before:])

    def _message(self, kind: lsp.MessageKind, text: str) -> None:
        self.host.client.notify(SHOW_MESSAGE, lsp.user_message_params(text, kind))

    async def _deliver(
        self, session: LiveSession, prompt: str, result: SessionPromptResult, turn: list[Message]
    ) -> None:
        if result.stop_reason == "cancelled":
            self._message("warning", "Ink: cancelled")
            return
        if result.stop_reason == "error":
            self._message("error", f"Ink: {result.error or 'the turn failed'}")
            return
        answer = result.text.strip() or "(no answer text)"
        if is_short(answer):
            self._message("info", f"Ink: {answer}")
            return
        path = self._write_transcript(session, prompt, answer, turn)
        if self.host.features.show_document:
            try:
                shown = await self.host.client.request(
                    SHOW_DOCUMENT, lsp.show_document_params(path_to_uri(path))
                )
                if isinstance(shown, dict) and shown.get("success"):
                    return
            except Exception as exc:  # fall back to the message
                log.info("showDocument failed: %s", exc)
        text = answer if len(answer) <= MESSAGE_LIMIT else answer[: MESSAGE_LIMIT - 1] + "…"
        self._message("info", f"Ink: {text}\n(transcript: {path})")

    def _write_transcript(
        self, session: LiveSession, prompt: str, answer: str, turn: list[Message]
    ) -> Path:
        """Append this turn to the session's markdown transcript; returns its path."""
        self.transcripts.mkdir(parents=True, exist_ok=True)
        path = self.transcripts / f"{session.session_id}.md"
        parts = [] if path.exists() else [f"# Ink: {session.title}\n"]
        parts.append(f"\n## You\n\n{prompt}\n")
        tools = _tool_lines(turn)
        if tools:
            parts.append("\n### Tools\n\n" + "\n".join(tools) + "\n")
        parts.append(f"\n## Ink\n\n{answer}\n")
        with open(path, "a", encoding="utf-8") as fh:
            fh.write("".join(parts))
        return path
