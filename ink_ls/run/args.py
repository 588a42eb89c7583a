"""The command lines of `ink-ls run` and `ink-ls sessions` (argparse only).

Kept apart from `command` so that building the parser (every start, the server's too) does
not import the terminal's libraries or the agent.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_run_parser(sub: Any) -> argparse.ArgumentParser:
    """Register `ink-ls run`."""
    p: argparse.ArgumentParser = sub.add_parser(
        "run",
        help="run the agent on one prompt in this terminal",
        description="Run the agent on PROMPT in the terminal and print what it does.",
    )
    p.add_argument(
        "prompt",
        metavar="PROMPT",
        nargs="?",
        default=None,
        help='the request; "-" reads it from stdin (optional with --compact)',
    )
    p.add_argument("--cwd", type=Path, default=None, help="workspace root (default: .)")
    p.add_argument(
        "--base-url",
        help="OpenAI-compatible endpoint (default: $INK_BASE_URL, "
        "$OPENAI_BASE_URL, else http://localhost:11434/v1)",
    )
    p.add_argument("--model", help="model name (default: $INK_MODEL)")
    p.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="environment variable holding the API key (default: INK_API_KEY, then OPENAI_API_KEY)",
    )
    p.add_argument(
        "--approval",
        choices=("ask", "auto", "readonly", "plan"),
        default=None,
        help="ask: confirm changes and commands here (default on a terminal); "
        "auto: allow everything; readonly: refuse changes and commands (default "
        "when stdin is not a terminal); plan: only read, end with a plan to approve. "
        "Permission rules of the settings files apply first; this beats their defaultMode",
    )
    p.add_argument(
        "--trust-workspace",
        action="store_true",
        help="trust this workspace's own files (.mcp.json, project settings, hooks, sandbox "
        "widenings) for this run without asking; otherwise a terminal asks once, and nothing "
        "else trusts them",
    )
    p.add_argument(
        "--session", metavar="ID", help="continue session ID, or start a new one under that ID"
    )
    p.add_argument(
        "--max-turns",
        type=int,
        default=100,
        metavar="N",
        help="model requests per run (default: 100)",
    )
    p.add_argument(
        "--compact",
        action="store_true",
        help="summarise the older part of --session ID now (then run PROMPT, if given)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object per event on stdout, nothing else",
    )
    return p


def add_sessions_parser(sub: Any) -> argparse.ArgumentParser:
    """Register `ink-ls sessions [list | delete ID]`."""
    p: argparse.ArgumentParser = sub.add_parser(
        "sessions",
        help="list or delete saved sessions",
        description="List the saved sessions (newest first), or delete one.",
    )
    p.add_argument("action", nargs="?", choices=("list", "delete"), default="list")
    p.add_argument("session_id", nargs="?", metavar="ID")
    return p


def add_mcp_parser(sub: Any) -> argparse.ArgumentParser:
    """Register `ink-ls mcp list`."""
    p: argparse.ArgumentParser = sub.add_parser(
        "mcp",
        help="show the MCP servers and their tools",
        description="Start the configured MCP servers ($XDG_CONFIG_HOME/ink-ls/mcp.json and "
        "the workspace's .mcp.json), print their state and tools, stop them.",
    )
    p.add_argument("action", nargs="?", choices=("list",), default="list")
    p.add_argument("--cwd", type=Path, default=None, help="workspace root (default: .)")
    p.add_argument(
        "--approval",
        choices=("ask", "auto", "readonly"),
        default=None,
        help="ask (default on a terminal: asks to trust the workspace before its "
        ".mcp.json's servers start) or readonly (never asks); auto does not trust it",
    )
    p.add_argument(
        "--trust-workspace",
        action="store_true",
        help="trust this workspace's own files (.mcp.json, project settings) for this run "
        "without asking; otherwise a terminal asks once, and nothing else trusts them",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="list every tool")
    return p


def add_checkpoint_parsers(sub: Any) -> list[argparse.ArgumentParser]:
    """Register `ink-ls checkpoints`, `ink-ls rewind` and `ink-ls diff`."""
    listing: argparse.ArgumentParser = sub.add_parser(
        "checkpoints",
        help="list a session's turns and rewinds with the files each changed",
        description="One line per entry: number, time, the prompt's first line, the files "
        "with +/- line counts. Rewinding to N restores the state just before entry N.",
    )
    listing.add_argument("session_id", metavar="SESSION")
    listing.add_argument("--json", action="store_true", help="print the entries as JSON")
    back: argparse.ArgumentParser = sub.add_parser(
        "rewind",
        help="restore a session's files and/or conversation to before turn N",
        description="Restore the state just before entry N (--turn 1 is the session's "
        "start): the files and the conversation, or one of them. The rewind is itself an "
        "entry: rewind to it to undo it. Files you changed since the agent did are "
        "conflicts: asked about on a terminal, refused otherwise unless --force.",
    )
    back.add_argument("session_id", metavar="SESSION")
    back.add_argument("--turn", type=int, required=True, metavar="N")
    which = back.add_mutually_exclusive_group()
    which.add_argument("--files", action="store_true", help="restore the files only")
    which.add_argument("--conversation", action="store_true", help="restore the conversation only")
    back.add_argument("--force", action="store_true", help="overwrite files you changed")
    back.add_argument("--json", action="store_true", help="print the rewind's entry as JSON")
    diff: argparse.ArgumentParser = sub.add_parser(
        "diff",
        help="show what a session (or one of its turns) changed, as a unified diff",
        description="A unified diff of the files the session changed (colour only on a "
        "terminal); with --turn N, of entry N only.",
    )
    diff.add_argument("session_id", metavar="SESSION")
    diff.add_argument("--turn", type=int, default=None, metavar="N")
    return [listing, back, diff]
