"""`ink-ls mcp list`, and the MCP servers of an `ink-ls run`.

`mcp list` starts every configured server for the workspace (a `.mcp.json`'s once the
workspace is trusted: asked on the terminal, like a run) and prints one line per server, then
stops them.
Exit status 0 when every server connected (or was held back on purpose), 1 when one failed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from rich.console import Console

from ink_ls.agent.approval import Prompter
from ink_ls.agent.trust import trust_asker, workspace_trust
from ink_ls.core.config import ApprovalMode, ModelSettings
from ink_ls.core.trust import WorkspaceTrust
from ink_ls.mcp.hub import McpHub, ServerStatus
from ink_ls.run.safe import SafeConsole, clean_line
from ink_ls.run.terminal import TerminalAsker, TerminalPrompter


def secret_env(settings: ModelSettings | None) -> tuple[str, ...]:
    """Variables MCP servers must not inherit (the model's API key)."""
    return (settings or ModelSettings()).secret_env_names()


async def start_hub(
    trust: WorkspaceTrust,
    mode: ApprovalMode,
    prompter: Prompter | None,
    settings: ModelSettings | None,
) -> McpHub:
    """The workspace's servers, started; a `.mcp.json`'s once the workspace is trusted (asked
    through `prompter` when `trust` may ask)."""
    hub = McpHub.for_workspace(trust.root, secret_env=secret_env(settings))
    await trust.resolve(trust_asker(prompter) if prompter is not None else None, mode=mode)
    await hub.start(trust=trust)
    return hub


def format_status(status: ServerStatus, *, verbose: bool) -> list[str]:
    """One tab-separated line (`name state tools origin target`), then indented details."""
    count = f"{len(status.tools)} tools"
    timing = f" ({status.start_ms:.0f} ms)" if status.start_ms is not None else ""
    lines = [f"{status.name}\t{status.state}{timing}\t{count}\t{status.origin}\t{status.target}"]
    if status.error:
        lines.append(f"  {status.error}")
    for skipped in status.skipped:
        lines.append(f"  left out: {skipped}")
    if verbose:
        lines += [f"  {name}" for name in status.tools]
    return lines


async def _list(args: argparse.Namespace, err: Console) -> int:
    cwd = (args.cwd or Path.cwd()).expanduser().resolve()
    interactive = sys.stdin.isatty()
    mode: ApprovalMode = args.approval or ("ask" if interactive else "readonly")
    prompter = TerminalPrompter(TerminalAsker(err)) if interactive else None
    trust = workspace_trust(
        cwd, explicit=True if args.trust_workspace else None, interactive=interactive
    )
    hub = await start_hub(trust, mode, prompter, None)
    try:
        for problem in hub.problems:
            err.print(f"ink-ls mcp: {problem}", markup=False)
        statuses = hub.status()
        if not statuses:
            err.print(
                "no MCP servers configured (.mcp.json in the workspace, "
                "$XDG_CONFIG_HOME/ink-ls/mcp.json)",
                markup=False,
            )
        for status in statuses:
            for line in format_status(status, verbose=args.verbose):
                # names, targets and errors (a server's stderr) come from outside
                sys.stdout.write("\t".join(clean_line(p) for p in line.split("\t")) + "\n")
        return 1 if any(s.state == "failed" for s in statuses) else 0
    finally:
        await hub.close()


def mcp_main(args: argparse.Namespace) -> int:
    """`ink-ls mcp list`: returns the exit status."""
    return asyncio.run(_list(args, SafeConsole(stderr=True, soft_wrap=True)))
