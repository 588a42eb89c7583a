"""The `bash` tool: run a command, wait by Ink's rules, report output, exit code and stops.

Process handling lives in `_process` (spawn, find, kill, track) and output handling in
`_output` (capture, preview, log). This module only drives one call. It must not leave a
process it started running after a cancel or timeout without saying so.
"""

from __future__ import annotations

import asyncio
import codecs
import math
import os
import signal as signals
import subprocess
from collections.abc import Callable, Coroutine, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from ink_ls.core.env import API_KEY_VARS
from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import (
    CommandDisplay,
    Tool,
    ToolContext,
    ToolParams,
    ToolResult,
    schema_of,
    shared_schema,
    short_line,
    text_arg,
)
from ink_ls.tools import _process
from ink_ls.tools._landlock import SandboxError
from ink_ls.tools._output import (
    LOG_BYTES,
    MAX_BYTES,
    MAX_LINES,
    StreamCapture,
    format_output,
    process_log_dir,
)
from ink_ls.tools.sandbox import (
    Confined,
    Mechanism,
    SandboxSettings,
    availability,
    confinement,
    failure_hint,
)

_told_unavailable: set[str] = set()
"""Workspaces whose model was told the sandbox is unavailable (it is said once)."""


def unavailable_note(cwd: Path, mechanism: Mechanism = "auto") -> str | None:
    """Said once (per workspace and process) when the sandbox is on but cannot run here."""
    if str(cwd) in _told_unavailable:
        return None
    _told_unavailable.add(str(cwd))
    problem = availability(mechanism).problem
    return (
        f"[The command sandbox is enabled but unavailable here ({problem}); "
        "commands run unsandboxed and are approved one by one.]"
    )


SECRET_ENV_VARS: frozenset[str] = frozenset(API_KEY_VARS)
"""Environment variables never passed to commands. Add the configured API key variable here."""

QUIET_SECONDS = 0.1
"""After the shell exits, output quiet this long ends the wait for a pipe still held open."""
EXIT_CAP_SECONDS = 2.0
"""After the shell exits, the wait for pipes held open by background children ends by then."""
STOP_GRACE_SECONDS = 0.25
"""How long a stop waits for SIGKILLed processes to die before reporting them as survivors."""
REAP_SECONDS = 30.0
"""After a stop, how long the call waits for SIGKILLed processes to be gone before it returns:
its budget slot is held until then (an unkillable process in D state must not hang the call)."""
REMEMBER_SECONDS = 0.5
"""How often a running call records its members (to know escapees that drop tag and group)."""
READ_SIZE = 1 << 20

Stop = Literal["timeout", "abort"]


def _timeout_message(value: object) -> str:
    return f"timeout must be a positive number of seconds, got {value!r}"


def _valid_timeout(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value > 0
    )


class BashParams(ToolParams):
    command: str = Field(description="The command to run with /bin/bash -c in the workspace root.")
    timeout: float | None = Field(
        default=None,
        description="Optional limit in seconds (a positive number); the command and everything "
        "it started are killed when it is reached. No limit when omitted.",
    )

    @field_validator("timeout", mode="before")
    @classmethod
    def _positive_number(cls, value: object, info: ValidationInfo) -> object:
        # Strict on purpose: "5", true, 0, -1, NaN and infinity are refused before running.
        if value is None or _valid_timeout(value):
            return value
        message = _timeout_message(value)
        raise PydanticCustomError("positive_number", "{message}", {"message": message})

    @property
    def outside_sandbox(self) -> bool:
        return False


class SandboxedBashParams(BashParams):
    """The parameters while the command sandbox is on: one more, to leave it."""

    sandbox: bool = Field(
        default=True,
        description="Commands run in a sandbox (no writes outside the workspace and temp dirs, "
        "no secrets, no network). false runs this command outside it after the user approves: "
        "use it only when it failed because of the sandbox.",
    )

    @property
    def outside_sandbox(self) -> bool:
        return not self.sandbox


DESCRIPTION = f"""Run a shell command with /bin/bash -c in the workspace root (INK=1 is set).
Returns stdout and stderr as separate sections and `Exit code: <n>` when it is not zero. Each \
stream is cut to its last {MAX_LINES} lines or {MAX_BYTES // 1024}KB; when cut, a note gives the \
real line numbers and the path of a log file with the full output (the first \
{LOG_BYTES // (1024 * 1024)} MiB of each stream) to read with the read tool. stdin is empty: \
commands cannot prompt. Use `timeout` (seconds) for commands that may hang. After the shell \
exits, background processes that keep the output open are waited for at most \
{EXIT_CAP_SECONDS:g}s: redirect their output to a file (`cmd > out.log 2>&1 &`)."""


def command_env(extra_secrets: Iterable[str] = ()) -> dict[str, str]:
    """The environment a command gets: ours, without API keys, with INK=1."""
    hidden = SECRET_ENV_VARS | set(extra_secrets)
    env = {k: v for k, v in os.environ.items() if k not in hidden}
    env["INK"] = "1"
    return env


class BashTool(Tool[BashParams]):
    """Runs one command per call; serial (it may touch anything)."""

    name = "bash"
    description = DESCRIPTION
    params_model = BashParams
    concurrency_safe = False
    kind = "execute"

    def title(self, args: Mapping[str, Any], cwd: Path) -> str:
        command = short_line(text_arg(args, "command"))
        return f"bash: {command}" if command else "bash"

    def __init__(
        self,
        *,
        secret_env: Iterable[str] = (),
        log_dir: str | None = None,
        sandbox: SandboxSettings | None = None,
    ) -> None:
        self._secret_env = frozenset(secret_env)
        self._log_dir = log_dir
        self._sandbox: SandboxSettings | None = None
        self.use_sandbox(sandbox)

    def use_sandbox(self, settings: SandboxSettings | None) -> None:
        """Run commands in the kernel sandbox (when this machine has one)."""
        self._sandbox = settings if settings is not None and settings.enabled else None

    def _params(self) -> type[BashParams]:
        return SandboxedBashParams if self._sandbox is not None else BashParams

    def parameters(self) -> dict[str, Any]:
        """The schema; with the sandbox on, it has `sandbox` too."""
        return schema_of(self._params())

    def schema(self) -> dict[str, Any]:
        """The shared entry of the schema in force (`parameters`): read per request, so a
        sandbox turned on after the registry was built shows in the next request."""
        return shared_schema(self.name, self.description, self._params())

    def validate_arguments(self, data: dict[str, Any]) -> BashParams:
        return self._params().model_validate(data)

    def runs_sandboxed(self, args: BashParams) -> bool:
        """True when this call runs in the sandbox (so `ask` mode need not ask for it)."""
        box = self._sandbox
        return box is not None and not args.outside_sandbox and availability(box.mechanism).ok

    async def execute(
        self, args: BashParams, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        if not args.command.strip():
            return ToolResult(output="Error: empty command", is_error=True)
        if args.timeout is not None and not _valid_timeout(args.timeout):
            return ToolResult(output=f"Error: {_timeout_message(args.timeout)}", is_error=True)
        out, err = StreamCapture("stdout"), StreamCapture("stderr")
        try:
            if signal.cancelled:
                return self._result(args, out, err, error="command aborted by user")
            env = command_env(self._secret_env)
            confined = Confined()
            sandboxed = self.runs_sandboxed(args)
            try:
                if sandboxed:
                    assert self._sandbox is not None
                    log_dir = self._log_dir or str(process_log_dir())
                    confined = confinement(self._sandbox, cwd=context.cwd, env=env, log_dir=log_dir)
                proc, tree = _process.spawn(
                    args.command,
                    cwd=context.cwd,
                    env=env,
                    confine=confined.preexec,
                    prefix=confined.prefix,
                )
            except (OSError, ValueError, subprocess.SubprocessError, SandboxError) as exc:
                return ToolResult(output=f"Error: failed to spawn command: {exc}", is_error=True)
            call = _Call(proc, tree, out, err, signal, args.timeout)
            call.on_output = context.output
            await call.run()
            result = self._result(
                args,
                out,
                err,
                error=call.error(),
                exit_code=call.exit_code,
                kill_note=call.kill_note,
            )
            if sandboxed and call.exit_code not in (0, None) and self._sandbox is not None:
                hint = failure_hint(result.output, self._sandbox)
                if hint:
                    result.output += "\n\n" + hint
            elif self._sandbox is not None and not sandboxed and not args.outside_sandbox:
                note = unavailable_note(context.cwd, self._sandbox.mechanism)
                result.output += f"\n\n{note}" if note else ""
            return result
        finally:
            out.close()
            err.close()

    def _result(
        self,
        args: BashParams,
        out: StreamCapture,
        err: StreamCapture,
        *,
        error: str | None,
        exit_code: int | None = None,
        kill_note: str | None = None,
    ) -> ToolResult:
        text, log_path = format_output(
            args.command,
            [out, err],
            exit_code=None if error else exit_code,
            interruption=error,
            log_dir=self._log_dir,
        )
        if kill_note:
            text += "\n\n" + kill_note
        # For the editor only (never history): the exit code and where the full log is.
        display = CommandDisplay(
            args.command, None if error else exit_code, str(log_path) if log_path else None
        )
        if error:
            output = f"Error: {error}. Partial output:\n{text}"
            return ToolResult(output=output, is_error=True, display=display)
        return ToolResult(output=text, display=display)


class _Call:
    """The life of one spawned command on the event loop: read, wait, stop, clean up."""

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        tree: _process.ProcessTree,
        out: StreamCapture,
        err: StreamCapture,
        signal: CancelSignal,
        timeout: float | None,
    ) -> None:
        self.loop = asyncio.get_running_loop()
        self.proc, self.tree, self.signal, self.timeout = proc, tree, signal, timeout
        assert proc.stdout is not None and proc.stderr is not None
        self.pipes = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
        self.files = {proc.stdout.fileno(): proc.stdout, proc.stderr.fileno(): proc.stderr}
        self.open_fds = set(self.pipes)
        self.buf = bytearray(READ_SIZE)
        self.done: asyncio.Future[None] = self.loop.create_future()
        self.reaped: asyncio.Future[None] = self.loop.create_future()
        """Set once the waiter thread has reaped the leader."""
        self.status: int | None = None
        self.exited = False
        self.stopped: Stop | None = None
        self.kill_report: _process.KillReport | None = None
        self.kill_note: str | None = None
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.on_output: Callable[[str], None] | None = None
        """Gets the output as it is read (decoded per stream: a split character waits)."""
        self.decoders = {
            fd: codecs.getincrementaldecoder("utf-8")(errors="replace") for fd in self.pipes
        }

    # -- events ----------------------------------------------------------------------------

    def _on_readable(self, fd: int) -> None:
        try:
            n = os.readv(fd, [self.buf])
        except BlockingIOError:
            return
        except OSError:
            n = 0
        if n == 0:
            self._close_pipe(fd)
            self._maybe_done()
            return
        self.pipes[fd].feed(self.buf, n)
        if self.on_output is not None:
            self.on_output(self.decoders[fd].decode(bytes(self.buf[:n])))
        if self.exited:
            self._arm("quiet", QUIET_SECONDS)  # output re-arms the quiet timer

    def _on_exit(self, status: int | None) -> None:  # runs in the waiter thread
        try:
            self.loop.call_soon_threadsafe(self._exited, status)
        except RuntimeError:  # the loop is closed: nobody is waiting any more
            pass

    def _exited(self, status: int | None) -> None:
        self.exited, self.status = True, status
        if not self.reaped.done():
            self.reaped.set_result(None)
        if not self._maybe_done():
            self._arm("quiet", QUIET_SECONDS)
            self._arm("cap", EXIT_CAP_SECONDS)

    def _maybe_done(self) -> bool:
        if self.exited and not self.open_fds:
            self._finish()
            return True
        return False

    def _stop(self, why: Stop) -> None:
        if self.stopped or self.done.done():
            return
        self.stopped = why
        self.kill_report = _process.kill_trees([self.tree])
        self._finish()  # a stop ends the wait at once

    def _arm(self, name: str, delay: float) -> None:
        if name == "cap" and name in self.timers:
            return
        old = self.timers.pop(name, None)
        if old is not None:
            old.cancel()
        self.timers[name] = self.loop.call_later(delay, self._finish)

    def _remember(self) -> None:
        _process.remember(self.tree)
        self.timers["remember"] = self.loop.call_later(REMEMBER_SECONDS, self._remember)

    def _finish(self) -> None:
        if not self.done.done():
            self.done.set_result(None)

    # -- driving ---------------------------------------------------------------------------

    async def run(self) -> None:
        """Wait by the rules; on cancel/timeout kill everything and verify what died."""
        for fd in self.pipes:
            self.loop.add_reader(fd, self._on_readable, fd)
        _process.watch_exit(self.proc, self.tree, self._on_exit)
        unsubscribe = self.signal.subscribe(lambda: self._stop("abort"))
        if self.timeout is not None:
            self.timers["timeout"] = self.loop.call_later(self.timeout, self._stop, "timeout")
        self.timers["remember"] = self.loop.call_later(REMEMBER_SECONDS, self._remember)
        try:
            await asyncio.shield(self.done)
        except asyncio.CancelledError:
            self._stop("abort")  # our task was cancelled: never leave the command behind
            raise
        finally:
            unsubscribe()
            for timer in self.timers.values():
                timer.cancel()
            for fd in list(self.open_fds):
                self._close_pipe(fd)
            if self.kill_report is not None:
                await _uncancellable(self._verify_stopped())
            else:
                _process.settle(self.tree)

    async def _verify_stopped(self) -> None:
        """Wait until what was killed is gone and the leader reaped, then note what is not.

        Processes the kill reached are waited for up to `REAP_SECONDS` (they die, only slowly
        on a loaded machine); those it could not signal only for `STOP_GRACE_SECONDS`.
        """
        report = self.kill_report
        assert report is not None
        start = self.loop.time()
        while True:
            await _wait_ended(report.signalled, start + STOP_GRACE_SECONDS - self.loop.time())
            alive = _process.survivors([self.tree], report)
            if not alive or self.loop.time() >= start + STOP_GRACE_SECONDS:
                break
        while self.loop.time() < start + REAP_SECONDS:
            dying = [p for p in alive if p not in report.failed]
            if not dying and self.reaped.done():
                break
            left = start + REAP_SECONDS - self.loop.time()
            await asyncio.wait(
                [asyncio.ensure_future(_wait_ended(dying, left)), self.reaped],
                timeout=left,
                return_when=asyncio.ALL_COMPLETED,
            )
            alive = _process.survivors([self.tree], report)
        self.kill_note = _process.finish_report(report, alive).note()

    def _close_pipe(self, fd: int) -> None:
        if fd in self.open_fds:
            self.open_fds.discard(fd)
            self.loop.remove_reader(fd)
            self.files[fd].close()

    @property
    def exit_code(self) -> int | None:
        if self.status is None or not os.WIFEXITED(self.status):
            return None
        return os.WEXITSTATUS(self.status)

    def error(self) -> str | None:
        """The reason the call failed, in Ink's precedence, or None for a normal exit."""
        if self.stopped == "timeout":
            return f"command timed out after {_seconds(self.timeout)}s and was killed"
        if self.stopped == "abort":
            return "command aborted by user"
        if self.status is not None and os.WIFSIGNALED(self.status):
            return f"command terminated by signal {_signal_name(os.WTERMSIG(self.status))}"
        if self.status is None or not os.WIFEXITED(self.status):
            return "command ended without an exit status"
        return None


async def _uncancellable(work: Coroutine[Any, Any, None]) -> None:
    """Run `work` to its end even if our task is cancelled meanwhile (then re-raise): the
    call's budget slot is freed when the task ends, so it must not end before the reap."""
    task = asyncio.ensure_future(work)
    cancelled = False
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            if task.done():
                break
            cancelled = True
    task.result()
    if cancelled:
        raise asyncio.CancelledError


async def _wait_ended(pids: Iterable[int], timeout: float) -> None:
    """Return once every pid has ended (its pidfd is readable) or after `timeout` seconds.

    Where pidfds are unavailable, sleeps 1 ms instead (the caller polls).
    """
    loop = asyncio.get_running_loop()
    fds: list[int] = []
    try:
        for pid in pids:
            try:
                fds.append(os.pidfd_open(pid))
            except ProcessLookupError:
                continue  # already reaped
            except (OSError, AttributeError):
                await asyncio.sleep(0.001)
                return
        pending = set(fds)
        if not pending or timeout <= 0:
            return
        done = loop.create_future()

        def ended(fd: int) -> None:
            loop.remove_reader(fd)
            pending.discard(fd)
            if not pending and not done.done():
                done.set_result(None)

        for fd in fds:
            loop.add_reader(fd, ended, fd)
        try:
            await asyncio.wait([done], timeout=timeout)
        finally:
            for fd in pending:
                loop.remove_reader(fd)
    finally:
        for fd in fds:
            os.close(fd)


def _seconds(value: float | None) -> str:
    if value is not None and value == int(value):
        return str(int(value))
    return f"{value}"


def _signal_name(number: int) -> str:
    try:
        return signals.Signals(number).name
    except ValueError:
        return str(number)
