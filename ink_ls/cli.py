"""The `ink-ls` command line: the language server (default, `--stdio`, `--tcp`), the Agent
Client Protocol agent (`--acp`), `ink-ls run`, `ink-ls sessions` and `ink-ls mcp`. Logs go to
stderr or `--log-file`, never to stdout (stdout is the JSON-RPC stream of the server or the ACP
agent, and the `--json` event stream of `run`).
"""

from __future__ import annotations

import argparse
import gc
import logging
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from ink_ls import __version__

LOG_LEVELS = ("debug", "info", "warning", "error")


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever `sys.stderr` is at the time (rich's live view may redirect it)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> object:
        return sys.stderr

    @stream.setter
    def stream(self, value: object) -> None:
        pass


def _logging_options(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    default = argparse.SUPPRESS if suppress else None
    parser.add_argument(
        "--log-file",
        type=Path,
        default=default,
        metavar="FILE",
        help="write logs to FILE instead of stderr",
    )
    parser.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        type=str.lower,
        default=default,
        help="log level (default: info for the server, warning for run)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The parser of `ink-ls` and its sub-commands."""
    parser = argparse.ArgumentParser(
        prog="ink-ls",
        description="A coding agent that lives inside the editor. Without a command it runs "
        "the language server on stdio.",
    )
    parser.add_argument("--version", action="version", version=f"ink-ls {__version__}")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--stdio", action="store_true", help="serve on stdin/stdout (default)")
    mode.add_argument("--tcp", action="store_true", help="serve on a TCP socket")
    mode.add_argument(
        "--acp",
        action="store_true",
        help="serve the Agent Client Protocol on stdio (Zed, JetBrains, …)",
    )
    parser.add_argument(
        "--trust-workspace",
        action="store_true",
        help="with --acp: trust the sessions' workspaces (their .mcp.json, project settings) "
        "without asking",
    )
    parser.add_argument("--host", default="127.0.0.1", help="TCP host (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=2087, help="TCP port (default: 2087)")
    _logging_options(parser, suppress=False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    from ink_ls.run.args import (
        add_checkpoint_parsers,
        add_mcp_parser,
        add_run_parser,
        add_sessions_parser,
    )

    for add in (add_run_parser, add_sessions_parser, add_mcp_parser):
        _logging_options(add(sub), suppress=True)
    for each in add_checkpoint_parsers(sub):
        _logging_options(each, suppress=True)
    return parser


def setup_logging(level: str, log_file: Path | None) -> None:
    """Root logging to `log_file` (in full), or to stderr as one clean line per record with
    tracebacks in the details file (`core.logs`). Never stdout. Warnings are logged too."""
    from ink_ls.core.logs import FORMAT, DetailsHandler, StderrFormatter, details_path

    handlers: list[logging.Handler] = []
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.FileHandler(log_file, encoding="utf-8")
        handler.setFormatter(logging.Formatter(FORMAT))
        handlers.append(handler)
    else:
        details = DetailsHandler(details_path())
        handler = _StderrHandler()
        handler.setFormatter(StderrFormatter(details.path))
        handlers += [handler, details]
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    for new in handlers:
        root.addHandler(new)
    root.setLevel(level.upper())
    logging.captureWarnings(True)
    if level != "debug":  # httpx logs every request at INFO
        logging.getLogger("httpx").setLevel(logging.WARNING)


def _command(args: argparse.Namespace) -> Callable[[], int]:
    """The chosen command, its module imported (most of start-up's imports happen here)."""
    command = args.command
    if command == "run":
        from ink_ls.run.command import run_main

        return partial(run_main, args)
    if command == "mcp":
        from ink_ls.run.mcp import mcp_main

        return partial(mcp_main, args)
    if command in ("checkpoints", "rewind", "diff"):
        from ink_ls.run import checkpoints

        run = {
            "checkpoints": checkpoints.checkpoints_main,
            "rewind": checkpoints.rewind_main,
            "diff": checkpoints.diff_main,
        }[command]
        return partial(run, args)
    if command == "sessions":
        from ink_ls.run.command import sessions_main

        return partial(sessions_main, args)
    if args.acp:
        from ink_ls.acp.main import run_acp

        return partial(run_acp, trust_workspace=args.trust_workspace)
    from ink_ls.server import run_server

    def serve() -> int:
        run_server("tcp" if args.tcp else "stdio", args.host, args.port)
        return 0

    return serve


def _after_imports() -> None:
    """Start-up's objects (modules, classes, validators) live as long as the process: the
    collector need not scan them again and again while they are made. It stays off while the
    command's modules import (each collection of the older generations walks every object
    made so far: 50-120 ms of `ink-ls run`'s start-up under load), then they are frozen out of
    its reach and it runs as usual. What little garbage start-up made is frozen with them."""
    gc.freeze()
    gc.enable()


def main(argv: Sequence[str] | None = None) -> int:
    """Run `ink-ls`; returns the exit status."""
    gc.disable()
    try:
        command = _start(argv)
    finally:
        _after_imports()
    return command()


def _start(argv: Sequence[str] | None) -> Callable[[], int]:
    """Everything before the command runs: the environment closed, options, logging, the
    command's module imported."""
    from ink_ls.core.env import API_KEY_VARS
    from ink_ls.core.hidden_env import hide_env, make_undumpable
    from ink_ls.tools.processes import install_exit_cleanup

    # API keys out of our environment block, and /proc/<pid>/{environ,mem} closed to others,
    # before any command can be started (the server hides `ink.model.apiKeyEnv` at initialize)
    hide_env(API_KEY_VARS)
    make_undumpable()
    install_exit_cleanup()  # tool processes die with us, whatever the exit path
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "api_key_env", None):
        hide_env([args.api_key_env])
    quiet = ("run", "sessions", "mcp", "checkpoints", "rewind", "diff")
    level = args.log_level or ("warning" if args.command in quiet else "info")
    setup_logging(level, args.log_file)
    return _command(args)
