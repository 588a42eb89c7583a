"""`ink-ls run` and `ink-ls sessions`: argument parsing, the run itself, exit statuses.

Exit status: 0 completed, 1 failed (reason on stderr), 2 bad usage or configuration,
3 stopped at the turn limit, 4 the last answer was cut at the output-token limit, 5 the run
ended but its session could not be saved (reason on stderr), 130 cancelled with Ctrl-C.
"""

from __future__ import annotations

import argparse
import asyncio
import signal as signals
import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Literal

from rich.console import Console

from ink_ls.agent.approval import ApprovalGate
from ink_ls.agent.compaction import CompactionCancelledError, CompactionError
from ink_ls.agent.events import EventSink, InstructionsEvent
from ink_ls.agent.factory import AgentFactory
from ink_ls.agent.loop import Agent, RunResult
from ink_ls.agent.trust import workspace_trust
from ink_ls.agent.turn import FrontEnd, PreparedTurn, TurnBuilder
from ink_ls.agent.user_turn import PlanApproval, run_turn
from ink_ls.core.config import ApprovalMode, ConfigError, ModelSettings
from ink_ls.core.signal import CancelController
from ink_ls.core.trust import WorkspaceTrust
from ink_ls.mcp.hub import McpHub
from ink_ls.run.accounting import Meter, context_line
from ink_ls.run.jsonout import JsonPrinter
from ink_ls.run.rules import NoTerminalAsker, first_mode
from ink_ls.run.safe import SafeConsole, clean_line
from ink_ls.run.terminal import (
    Asker,
    TerminalAsker,
    TerminalChanges,
    TerminalPrompter,
    ask_plan_approval,
)
from ink_ls.run.view import TerminalView
from ink_ls.sessions.conversation import StoredConversation
from ink_ls.sessions.rewind_command import run_rewind
from ink_ls.sessions.store import Session, SessionError, SessionStore, unsaved_message

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_MAX_TURNS, EXIT_MAX_TOKENS, EXIT_INTERRUPTED = (
    0,
    1,
    2,
    3,
    4,
    130,
)
EXIT_NOT_SAVED = 5


def _stderr() -> Console:
    return SafeConsole(stderr=True, soft_wrap=True)


def sessions_main(args: argparse.Namespace) -> int:
    """`ink-ls sessions`: one line per session, or delete one."""
    store = SessionStore()
    err = _stderr()
    try:
        if args.action == "delete":
            if not args.session_id:
                err.print("ink-ls sessions delete: give the ID of the session to delete")
                return EXIT_USAGE
            store.delete(args.session_id)
            err.print(f"deleted session {args.session_id}")
            return EXIT_OK
        for info in store.list():
            updated = info.updated_at.strftime("%Y-%m-%d %H:%M")
            title = clean_line(info.title)
            sys.stdout.write(f"{info.id}\t{updated}\t{info.message_count}\t{title}\n")
        return EXIT_OK
    except SessionError as exc:
        err.print(f"ink-ls: {exc}", markup=False)
        return EXIT_FAILED


@dataclass
class _Setup:
    cwd: Path
    prompt: str
    settings: ModelSettings
    approval: ApprovalMode
    session: Session
    stated: ApprovalMode | None
    """`--approval`, which beats the settings files' defaultMode."""
    interactive: bool
    trust: WorkspaceTrust


def _prepare(args: argparse.Namespace, err: Console) -> _Setup | None:
    """Validate options and open the session; prints the reason and returns None on failure."""

    def fail(message: str) -> None:
        err.print(f"ink-ls run: {message}", markup=False)

    cwd = (args.cwd or Path.cwd()).expanduser().resolve()
    if not cwd.is_dir():
        fail(f"--cwd {cwd} is not a directory")
        return None
    if args.compact and not args.session:
        fail("--compact needs --session ID (the session to compact)")
        return None
    if args.prompt is None and not args.compact:
        fail("give a PROMPT (or --compact --session ID)")
        return None
    prompt = sys.stdin.read() if args.prompt == "-" else (args.prompt or "")
    if not prompt.strip() and not args.compact:
        fail("the prompt is empty")
        return None
    if args.max_turns < 1:
        fail("--max-turns must be at least 1")
        return None
    interactive = sys.stdin.isatty() and args.prompt != "-"
    # the project's defaultMode counts only once the workspace is trusted (in `_run`)
    approval = first_mode(cwd, approval=args.approval, interactive=interactive)
    try:
        settings = ModelSettings.from_env(
            base_url=args.base_url, model=args.model, api_key_env=args.api_key_env
        )
    except ConfigError as exc:
        fail(str(exc))
        return None
    store = SessionStore()
    try:
        if args.compact:
            session = store.open(args.session)
        else:
            session = (
                store.open_or_create(args.session, cwd=cwd)
                if args.session
                else store.create(cwd=cwd)
            )
    except (SessionError, OSError) as exc:
        fail(str(exc))
        return None
    trust = workspace_trust(
        cwd, explicit=True if args.trust_workspace else None, interactive=interactive
    )
    return _Setup(cwd, prompt, settings, approval, session, args.approval, interactive, trust)


async def _run(setup: _Setup, *, json_mode: bool, max_turns: int, compact: bool) -> int:
    err = _stderr()
    ui = err if json_mode else SafeConsole()
    view = None if json_mode else TerminalView(ui, setup.cwd, err=err)
    sink: EventSink
    controller = CancelController()
    terminal = TerminalAsker(ui, pause=view.paused) if view is not None else TerminalAsker(ui)
    asker: Asker = terminal if setup.interactive else NoTerminalAsker(controller.cancel)
    if view is None:
        sink = JsonPrinter(sys.stdout, session_id=setup.session.id)
    else:
        sink = view
    meter = Meter(sink, setup.session.totals)
    factory = AgentFactory(max_turns=max_turns)
    hub = McpHub.for_workspace(setup.cwd, secret_env=setup.settings.secret_env_names())
    front = FrontEnd(
        kind="terminal",
        gate=ApprovalGate(setup.approval, TerminalPrompter(asker)),
        changes=TerminalChanges(asker, setup.cwd),
        on_event=meter,
        mcp=hub,
        trust=setup.trust,
        mode_stated=setup.stated is not None,
        rewind=partial(run_rewind, setup.session),
    )
    try:
        async with TurnBuilder(factory).turn(
            front,
            StoredConversation.of(setup.session),
            settings=setup.settings,
            cwd=setup.cwd,
            signal=controller.signal,
            session_id=setup.session.id,
            transcript_path=str(setup.session.path) if setup.session.messages else None,
            prompt=setup.prompt if setup.prompt.strip() else None,
            checkpoints=setup.session,
        ) as prepared:
            _header(prepared, hub, err, setup, json_mode=json_mode)
            if compact:
                status = await _compact(prepared.agent, err, setup)
                if status != EXIT_OK or not setup.prompt.strip():
                    return status
            approve = _plan_approval(terminal, controller) if setup.interactive else None
            result = await _run_agent(prepared, front.gate, setup, controller, approve)
    except asyncio.CancelledError:
        from ink_ls.tools.processes import kill_all_tracked

        kill_all_tracked()
        err.print("stopped without waiting for running tools", style="yellow")
        return EXIT_INTERRUPTED
    finally:
        if view is not None:
            view.close()
        await factory.close_models()
        await factory.close_language_servers()
        await hub.close()
    if isinstance(asker, NoTerminalAsker) and asker.needed is not None:
        err.print(f"ink-ls run: {asker.usage_message(front.gate.mode)}", markup=False)
        return EXIT_USAGE
    return _report(
        result, setup, err, json_mode=json_mode, max_turns=max_turns, tokens=meter.summary()
    )


def _header(
    prepared: PreparedTurn, hub: McpHub, err: Console, setup: _Setup, *, json_mode: bool
) -> None:
    """MCP servers that could not start (the run goes on without them); then, in the live
    view, the session, the model, its window and the project instructions in force."""
    for notice in prepared.notices:  # settings files: problems, ignored parts, sandbox
        err.print(f"ink-ls run: {notice}", style="yellow", markup=False)
    for problem in hub.problems:  # e.g. a ${VAR} a project file may not expand
        err.print(f"MCP: {problem}", style="yellow", markup=False)
    for server in hub.status():
        if server.error:
            err.print(
                f"MCP server {server.name}: {server.state}: {server.error}",
                style="yellow",
                markup=False,
            )
    if json_mode:
        return
    err.print(
        f"session {setup.session.id} · {setup.settings.model} at "
        f"{setup.settings.base_url} · {prepared.window_info.describe()}",
        style="dim",
        markup=False,
    )
    root = prepared.instructions.start()  # the header names them; later ones show as they load
    if root:
        event = InstructionsEvent(
            paths=[str(f.path) for f in root], truncated=any(f.truncated for f in root)
        )
        err.print(context_line(event, setup.cwd), style="dim", markup=False)


def _plan_approval(asker: TerminalAsker, controller: CancelController) -> PlanApproval:
    """Plan mode's "Approve and continue in ask/auto" on the terminal."""

    async def approve(plan: str) -> Literal["ask", "auto"] | None:
        return await ask_plan_approval(asker, controller.signal)

    return approve


async def _run_agent(
    prepared: PreparedTurn,
    gate: ApprovalGate,
    setup: _Setup,
    controller: CancelController,
    approve: PlanApproval | None,
) -> RunResult:
    """The run (with plan mode's approval), Ctrl-C cancelling it (a second Ctrl-C stops at
    once: `CancelledError`)."""
    err = _stderr()
    loop = asyncio.get_running_loop()
    main_task = asyncio.current_task()
    interrupts = 0

    def on_interrupt() -> None:
        nonlocal interrupts
        interrupts += 1
        if interrupts == 1:
            err.print("\ncancelling… (Ctrl-C again to stop at once)", style="yellow")
            controller.cancel("interrupted by the user (Ctrl-C)")
        elif main_task is not None:
            main_task.cancel()

    loop.add_signal_handler(signals.SIGINT, on_interrupt)
    try:
        return await run_turn(prepared, gate, setup.prompt, controller.signal, approve)
    finally:
        loop.remove_signal_handler(signals.SIGINT)


async def _compact(agent: Agent, err: Console, setup: _Setup) -> int:
    """`--compact`: summarise the session's older messages now."""
    try:
        done = await agent.compact()
    except CompactionError as exc:
        err.print(f"ink-ls run: {exc}", markup=False)
        return EXIT_FAILED
    except CompactionCancelledError:
        return EXIT_INTERRUPTED
    if done is None:
        err.print(
            f"session {setup.session.id}: nothing older than the latest turn to compact",
            markup=False,
        )
    else:
        err.print(
            f"compacted session {setup.session.id}: {done.tokens_before:,} → "
            f"{done.tokens_after:,} tokens",
            markup=False,
        )
    return EXIT_OK


def _report(
    result: RunResult, setup: _Setup, err: Console, *, json_mode: bool, max_turns: int, tokens: str
) -> int:
    if not json_mode:
        err.print(
            f"{result.stop_reason} · {tokens} · continue with --session {setup.session.id}",
            style="dim",
            markup=False,
        )
    if result.stop_reason == "completed":
        return EXIT_OK
    if result.stop_reason == "aborted":
        err.print("ink-ls run: cancelled", markup=False)
        return EXIT_INTERRUPTED
    if result.stop_reason == "max_tokens":
        err.print(
            "ink-ls run: the answer was cut at the output-token limit (raise INK_MAX_TOKENS "
            "or ask for a shorter answer)",
            markup=False,
        )
        return EXIT_MAX_TOKENS
    if result.stop_reason == "max_iterations":
        err.print(
            f"ink-ls run: stopped after {max_turns} model requests (--max-turns)", markup=False
        )
        return EXIT_MAX_TURNS
    err.print(f"ink-ls run: {result.error or 'the run failed'}", markup=False)
    return EXIT_FAILED


def _watch_saving(session: Session, err: Console) -> None:
    """Warn on stderr when the session cannot be saved (now, and whenever it starts failing)."""

    def on_save(session: Session, reason: str | None) -> None:
        if reason is not None:
            err.print(
                f"ink-ls run: warning: {unsaved_message(session.id, reason)}",
                style="yellow",
                markup=False,
            )

    session.on_save = on_save
    if session.save_error is not None:
        on_save(session, session.save_error)


def _saved(session: Session, err: Console, code: int) -> int:
    """A last try to save; a run that could not save its session does not exit 0."""
    if session.save():
        return code
    err.print(f"ink-ls run: session {session.id} was not saved: {session.save_error}", markup=False)
    return EXIT_NOT_SAVED if code == EXIT_OK else code


def run_main(args: argparse.Namespace) -> int:
    """`ink-ls run`: returns the exit status."""
    err = _stderr()
    setup = _prepare(args, err)
    if setup is None:
        return EXIT_USAGE
    _watch_saving(setup.session, err)
    code = asyncio.run(
        _run(setup, json_mode=args.json, max_turns=args.max_turns, compact=args.compact)
    )
    return _saved(setup.session, err, code)
