"""Approvals on the terminal for `ink-ls run --approval ask`: a `Prompter` for commands and
other risky calls, and a change channel that shows the diff to ask about.

Questions are asked one at a time; the live view is paused while one is on screen. Reading
the answer never blocks the event loop, and a cancel ends the wait at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Literal, Protocol

from rich.console import Console, RenderableType
from rich.text import Text

from ink_ls.agent.approval import ApprovalQuestion, Choice
from ink_ls.agent.writes import DiskChannel, ProposedChange
from ink_ls.core.settings_files import LOCAL_FILE
from ink_ls.core.signal import CancelSignal
from ink_ls.run.safe import clean, clean_line, safe_text
from ink_ls.tools.diffs import numbered_diff

ReadLine = Callable[[CancelSignal], Awaitable[str | None]]
MAX_DIFF_LINES = 400


async def read_stdin_line(signal: CancelSignal) -> str | None:
    """One line typed on stdin (a terminal); None on end of input or cancel."""
    loop = asyncio.get_running_loop()
    fd = sys.stdin.fileno()
    answer: asyncio.Future[str | None] = loop.create_future()

    def readable() -> None:
        # a terminal in canonical mode hands over one whole line per read
        data = os.read(fd, 4096)
        if not answer.done():
            answer.set_result(data.decode(errors="replace") if data else None)

    def cancelled() -> None:
        if not answer.done():
            answer.set_result(None)

    loop.add_reader(fd, readable)
    unsubscribe = signal.subscribe(cancelled)
    try:
        return await answer
    finally:
        loop.remove_reader(fd)
        unsubscribe()


def parse_answer(line: str | None) -> Choice | None:
    """`y`/`yes` → allow once, `a`/`always` → always this session, `p`/`project` → always in
    this project; anything else (Enter too) → reject; None (no answer at all) stays None."""
    if line is None:
        return None
    word = line.strip().lower()
    if word in ("y", "yes"):
        return "allow_once"
    if word in ("a", "always"):
        return "allow_always"
    if word in ("p", "project"):
        return "allow_project"
    return "reject"


KEYS = "[y]es / [a]lways this session / [N]o: "
TRUST_KEYS = "[y]es / [a]lways / [N]o: "
"""The workspace trust question: always means remembered until the files change."""
PROJECT_KEYS = "[y]es / [a]lways this session / [p]roject: always in this project / [N]o: "


class TerminalAsker:
    """Asks yes / always / no questions on `console`, one at a time."""

    def __init__(
        self,
        console: Console,
        read_line: ReadLine = read_stdin_line,
        pause: Callable[[], AbstractContextManager[None]] = contextlib.nullcontext,
    ) -> None:
        self._console = console
        self._read_line = read_line
        self._pause = pause
        self._lock = asyncio.Lock()

    async def ask(
        self,
        title: str,
        body: RenderableType | None,
        signal: CancelSignal,
        *,
        project_rules: tuple[str, ...] = (),
        keys: str | None = None,
    ) -> Choice | None:
        """Show `body` and `title`, wait for the answer; None when cancelled or at end of input.
        `project_rules` are what `p` saves (the key is offered only with them); `keys`
        replaces the keys shown."""
        async with self._lock:
            if signal.cancelled:
                return None
            with self._pause():
                if body is not None:
                    self._console.print(body)
                if project_rules:
                    self._console.print(
                        f"  [p] saves {', '.join(project_rules)} to {LOCAL_FILE}",
                        style="dim",
                        markup=False,
                        highlight=False,
                    )
                prompt = Text()
                prompt.append(clean(title), style="bold")
                keys = keys or (PROJECT_KEYS if project_rules else KEYS)
                prompt.append("  " + keys, style="dim")
                self._console.print(prompt, end="")
                line = await self._read_line(signal)
                if line is None:
                    self._console.print()
                return parse_answer(line)

    async def line(self, prompt: str, signal: CancelSignal) -> str | None:
        """Show `prompt` and read one line (None when cancelled or at end of input)."""
        async with self._lock:
            if signal.cancelled:
                return None
            with self._pause():
                self._console.print(safe_text(prompt, style="bold"), end="")
                line = await self._read_line(signal)
                if line is None:
                    self._console.print()
                return line


PLAN_KEYS = "Approve the plan and continue in [a]sk / a[u]to mode, or [N]o: "


async def ask_plan_approval(
    asker: TerminalAsker, signal: CancelSignal
) -> Literal["ask", "auto"] | None:
    """After a plan: "Approve and continue in ask/auto" (Enter alone is no)."""
    line = await asker.line(PLAN_KEYS, signal)
    word = (line or "").strip().lower()
    if word in ("a", "ask"):
        return "ask"
    if word in ("u", "auto"):
        return "auto"
    return None


class Asker(Protocol):
    """Asks one question (the terminal's `TerminalAsker`, or `NoTerminalAsker`)."""

    async def ask(
        self,
        title: str,
        body: RenderableType | None,
        signal: CancelSignal,
        *,
        project_rules: tuple[str, ...] = (),
        keys: str | None = None,
    ) -> Choice | None: ...


class TerminalPrompter:
    """The `Prompter` of `ApprovalGate` for the terminal."""

    def __init__(self, asker: Asker) -> None:
        self._asker = asker

    async def __call__(self, question: ApprovalQuestion, signal: CancelSignal) -> Choice | None:
        body = None
        if question.kind != "command":  # a command's title already shows the whole command
            body = safe_text(question.detail, style="dim")
        if question.rule is not None:
            body = safe_text(f"asked by {question.rule}", style="dim")
        return await self._asker.ask(
            question.title,
            body,
            signal,
            project_rules=question.project_rules,
            keys=TRUST_KEYS if question.kind == "trust" else None,
        )


class TerminalChanges:
    """The terminal's `ChangeChannel`: a change is shown as a diff and asked about on the
    terminal, then written to disk (the write policy, `agent.writes`, decides whether it is
    asked about at all)."""

    reviews_on_apply = False

    def __init__(self, asker: Asker, cwd: Path) -> None:
        self._asker = asker
        self._cwd = cwd
        self._disk = DiskChannel(root=cwd)

    def _shown(self, path: Path) -> str:
        try:
            return clean_line(str(path.relative_to(self._cwd)))
        except ValueError:
            return clean_line(str(path))

    async def review(self, change: ProposedChange, signal: CancelSignal) -> Choice | None:
        """One question with every file's diff (a rename shows all its files), capped."""
        files = change.all_files
        shown = [self._shown(c.path) for c in files]
        pairs = zip(files, shown, strict=True)
        diff = "\n".join(numbered_diff(c.old_text or "", c.new_text, path=n) for c, n in pairs)
        lines = diff.splitlines()
        if len(lines) > MAX_DIFF_LINES:
            cut = len(lines) - MAX_DIFF_LINES
            diff = "\n".join([*lines[:MAX_DIFF_LINES], f"… {cut} more diff lines"])
        if len(files) > 1:
            title = f"Change {len(files)} files ({', '.join(shown)})?"
        else:
            title = f"{'Create' if change.old_text is None else 'Change'} {shown[0]}?"
        return await self._asker.ask(
            title, _diff_view(diff), signal, project_rules=change.project_rules
        )

    async def apply(self, change: ProposedChange, *, approved: bool, signal: CancelSignal) -> None:
        await self._disk.apply(change, approved=approved, signal=signal)


def _diff_view(diff: str) -> RenderableType:
    """A highlighted diff; the highlighter loads with the first change to approve."""
    from rich.syntax import Syntax

    return Syntax(clean(diff), "diff", theme="ansi_dark")
