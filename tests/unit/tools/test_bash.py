"""The bash tool as the model sees it: sections, exit codes, errors, limits, log file, env.

Real commands through `/bin/bash -c`; exact strings where they are the contract.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError

from ink_ls.core.signal import NEVER, CancelController
from ink_ls.core.tool import CommandDisplay, ToolContext, ToolResult
from ink_ls.tools import _process, bash
from ink_ls.tools.bash import BashParams, BashTool
from tests.unit.tools.proc_checks import exit_code, exit_log

LOG_RE = re.compile(r"Full output: (\S+/ink-output-[0-9a-f-]{36}\.log) ")


@pytest.fixture(autouse=True)
def _no_leftovers() -> Iterator[None]:
    yield
    _process.kill_all_tracked()


async def run(
    command: str, tmp_path: Path, *, timeout: float | None = None, tool: BashTool | None = None
) -> ToolResult:
    tool = tool or BashTool(log_dir=str(tmp_path))
    args = BashParams(command=command, timeout=timeout)
    return await tool.execute(args, NEVER, ToolContext("call-1", tmp_path))


def log_path(result: ToolResult) -> Path:
    match = LOG_RE.search(result.output)
    assert match, result.output
    return Path(match.group(1))


async def test_stdout_stderr_sections_and_exit_code(tmp_path: Path) -> None:
    result = await run("echo out; echo err >&2; exit 7", tmp_path)
    assert result.output == "stdout:\nout\n\nstderr:\nerr\n\nExit code: 7"
    assert result.is_error is False
    assert result.display == CommandDisplay("echo out; echo err >&2; exit 7", 7, None)


async def test_no_output_and_zero_exit(tmp_path: Path) -> None:
    result = await run("true", tmp_path)
    assert (result.output, exit_code(result), result.is_error) == ("(no output)", 0, False)


async def test_only_stderr_and_runs_in_workspace_root(tmp_path: Path) -> None:
    result = await run("pwd >&2", tmp_path)
    assert result.output == f"stderr:\n{tmp_path}"


async def test_stdin_is_empty(tmp_path: Path) -> None:
    result = await run("cat; echo after", tmp_path)
    assert result.output == "stdout:\nafter"


async def test_self_sigterm_reports_the_signal(tmp_path: Path) -> None:
    result = await run("echo before; kill -TERM $$", tmp_path)
    assert result.output == (
        "Error: command terminated by signal SIGTERM. Partial output:\nstdout:\nbefore"
    )
    assert result.is_error is True
    assert exit_code(result) is None


async def test_empty_command(tmp_path: Path) -> None:
    for command in ("", "   \n"):
        result = await run(command, tmp_path)
        assert (result.output, result.is_error) == ("Error: empty command", True)


@pytest.mark.parametrize("value", [0, -1, "2", True, float("nan"), float("inf")])
def test_invalid_timeout_refused_by_params(value: object) -> None:
    with pytest.raises(ValidationError) as info:
        BashParams.model_validate({"command": "true", "timeout": value})
    errors = info.value.errors(include_url=False)
    assert errors[0]["msg"] == f"timeout must be a positive number of seconds, got {value!r}"


async def test_invalid_timeout_refused_by_execute(tmp_path: Path) -> None:
    args = BashParams.model_construct(command="touch ran", timeout=0)
    result = await BashTool().execute(args, NEVER, ToolContext("c", tmp_path))
    assert result.output == "Error: timeout must be a positive number of seconds, got 0"
    assert result.is_error and not (tmp_path / "ran").exists()


def test_valid_timeouts_accepted() -> None:
    assert BashParams.model_validate({"command": "x", "timeout": 5}).timeout == 5
    assert BashParams.model_validate({"command": "x", "timeout": 0.5}).timeout == 0.5


async def test_spawn_failure(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    args = BashParams(command="true")
    result = await BashTool().execute(args, NEVER, ToolContext("c", missing))
    assert result.output == (
        f"Error: failed to spawn command: [Errno 2] No such file or directory: '{missing}'"
    )
    assert result.is_error


async def test_cancelled_before_start_runs_nothing(tmp_path: Path) -> None:
    controller = CancelController()
    controller.cancel("user")
    args = BashParams(command="touch ran")
    result = await BashTool().execute(args, controller.signal, ToolContext("c", tmp_path))
    assert result.output == "Error: command aborted by user. Partial output:\n(no output)"
    assert not (tmp_path / "ran").exists()


async def test_environment_has_ink_and_no_api_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-secret")
    monkeypatch.setenv("INK_API_KEY", "sk-ink-secret")
    monkeypatch.setenv("MY_PROVIDER_KEY", "sk-configured-secret")
    monkeypatch.setenv("ADDED_LATER_KEY", "sk-added-secret")
    monkeypatch.setattr(bash, "SECRET_ENV_VARS", bash.SECRET_ENV_VARS | {"ADDED_LATER_KEY"})
    monkeypatch.setenv("HARMLESS", "kept")
    tool = BashTool(secret_env=["MY_PROVIDER_KEY"], log_dir=str(tmp_path))
    result = await run("env", tmp_path, tool=tool)
    lines = result.output.splitlines()
    assert "INK=1" in lines and "HARMLESS=kept" in lines
    assert "sk-" not in result.output


async def test_500_lines_shown_whole(tmp_path: Path) -> None:
    result = await run("seq 1 500", tmp_path)
    assert result.output == "stdout:\n" + "\n".join(str(i) for i in range(1, 501))
    assert not list(tmp_path.glob("ink-output-*.log"))  # no cut, no file


async def test_501_lines_cut_with_real_line_numbers(tmp_path: Path) -> None:
    result = await run("seq 1 501", tmp_path)
    path = log_path(result)
    assert exit_log(result) == str(path)
    shown = "\n".join(str(i) for i in range(2, 502))
    assert result.output == (
        f"stdout:\n{shown}\n[stdout: showing lines 2-501 of 501 (500 line limit). "
        f"Full output: {path} (stdout starts at line 3); read it with the read tool.]"
    )
    assert path.parent == tmp_path
    assert path.read_text() == (
        "$ seq 1 501\n[stdout]\n"
        + "".join(f"{i}\n" for i in range(1, 502))
        + "[stderr]\n[exit code: 0]\n"
    )


LINE_1K = "x" * 1023  # 1024 bytes with its newline


async def test_exactly_50kib_shown_whole(tmp_path: Path) -> None:
    result = await run(f"for i in $(seq 1 50); do echo {LINE_1K}; done", tmp_path)
    assert result.output == "stdout:\n" + "\n".join([LINE_1K] * 50)


async def test_50kib_plus_one_byte_cut(tmp_path: Path) -> None:
    result = await run(f"for i in $(seq 1 50); do echo {LINE_1K}; done; printf y", tmp_path)
    path = log_path(result)
    assert result.output == (
        "stdout:\n" + "\n".join([LINE_1K] * 49) + "\ny\n"
        "[stdout: showing lines 2-51 of 51 (50KB limit). "
        f"Full output: {path} (stdout starts at line 3); read it with the read tool.]"
    )


async def test_one_huge_line_shows_its_end(tmp_path: Path) -> None:
    # 3 MiB without a newline, ending in a 3-byte character split around the 50 KiB cut.
    result = await run(
        "head -c 3145728 /dev/zero | tr '\\0' a; printf '€%.0s' $(seq 1 20000)", tmp_path
    )
    path = log_path(result)
    body = result.output.split("\n")[1]
    assert body == "€" * 17066 + ""  # 51200 // 3 whole characters, none split
    assert result.output.endswith(
        "[stdout: showing the last 50KB of line 1 of 1 (50KB limit). "
        f"Full output: {path} (stdout starts at line 3); read it with the read tool.]"
    )


async def test_log_holds_200000_lines_and_is_closed_at_return(tmp_path: Path) -> None:
    result = await run("seq 1 200000; echo warn >&2", tmp_path)
    path = log_path(result)
    # Nothing of ours still has the file open: it was flushed and closed before returning.
    open_files = {os.path.realpath(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd")}
    assert str(path) not in open_files
    lines = path.read_text().split("\n")
    assert lines[0] == "$ seq 1 200000; echo warn >&2"
    assert lines[1] == "[stdout]"
    assert lines[2:200002] == [str(i) for i in range(1, 200001)]
    assert lines[200002:] == ["[stderr]", "warn", "[exit code: 0]", ""]
    assert "[stdout: showing lines 199501-200000 of 200000 (500 line limit). " in result.output
    assert result.output.endswith("\n\nstderr:\nwarn")
    assert oct(path.stat().st_mode & 0o777) == "0o600"


async def test_log_copy_partial_beyond_10_mib_and_says_so(tmp_path: Path) -> None:
    result = await run("yes abcdefghi | head -c 16777216", tmp_path)  # 16 MiB of 10-byte lines
    path = log_path(result)
    assert result.output.endswith(
        "[stdout: showing lines 1677223-1677722 of 1677722 (500 line limit). "
        f"Full output: {path} (stdout starts at line 3; only its first 10 MiB were saved); "
        "read it with the read tool.]"
    )
    text = path.read_bytes()
    assert text.count(b"abcdefghi\n") == 1048576
    assert text.endswith(
        b"[stdout incomplete in this file: only the first 10485760 of 16777216 bytes were saved]\n"
        b"[stderr]\n[exit code: 0]\n"
    )


async def test_log_goes_to_a_private_per_process_dir_in_the_temp_dir(tmp_path: Path) -> None:
    result = await run("seq 1 600", tmp_path, tool=BashTool())
    path = log_path(result)
    assert path.parent.parent == Path(tempfile.gettempdir())
    assert path.parent.name.startswith(f"ink-ls-{os.getpid()}-")
    assert path.parent.stat().st_mode & 0o777 == 0o700
    assert path.read_text().count("\n") == 604


async def test_no_log_promised_when_it_cannot_be_written(tmp_path: Path) -> None:
    tool = BashTool(log_dir=str(tmp_path / "no-such-dir"))
    result = await run("seq 1 501", tmp_path, tool=tool)
    assert result.output.endswith(
        "[stdout: showing lines 2-501 of 501 (500 line limit). "
        "The full output could not be saved: No such file or directory.]"
    )


def test_schema_pinned() -> None:
    assert BashTool().parameters() == {
        "additionalProperties": False,
        "properties": {
            "command": {
                "description": "The command to run with /bin/bash -c in the workspace root.",
                "type": "string",
            },
            "timeout": {
                "anyOf": [{"type": "number"}, {"type": "null"}],
                "default": None,
                "description": "Optional limit in seconds (a positive number); the command and "
                "everything it started are killed when it is reached. No limit when omitted.",
            },
        },
        "required": ["command"],
        "type": "object",
    }
    assert BashTool.concurrency_safe is False
    assert BashTool().access(BashParams(command="ls"), Path("/")) is None
