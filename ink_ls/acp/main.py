"""`ink-ls --acp`: serve the Agent Client Protocol on stdin/stdout."""

from __future__ import annotations

import asyncio
import logging
from typing import cast

from acp import Agent, run_agent
from acp.stdio import stdio_streams

from ink_ls.acp.agent import InkAcpAgent
from ink_ls.acp.wire import MAX_LINE, LineTransport
from ink_ls.agent.factory import AgentFactory

log = logging.getLogger(__name__)


async def _serve(trust_workspace: bool | None) -> None:
    agent = InkAcpAgent(AgentFactory(), trust_workspace=trust_workspace)
    reader, writer = await stdio_streams(limit=MAX_LINE)
    try:
        # the SDK routes only the methods an agent has; the unstable ones are left out.
        # Lines are read and checked by our transport: a bad one is answered, never fatal
        await run_agent(cast(Agent, agent), LineTransport(reader, writer))
    finally:
        await agent.close()


def run_acp(*, trust_workspace: bool = False) -> int:
    """Run until the client closes stdin; returns the exit status. `trust_workspace`: the
    sessions' workspaces are trusted without asking (`--trust-workspace`)."""
    try:
        asyncio.run(_serve(True if trust_workspace else None))
    except KeyboardInterrupt:
        return 130
    return 0
