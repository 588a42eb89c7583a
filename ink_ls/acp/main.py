"""`ink-ls --acp`: serve the Agent Client Protocol on stdin/stdout."""

from __future__ import annotations

import asyncio
import logging
from typing import cast

from acp import Agent, run_agent

from ink_ls.acp.agent import InkAcpAgent
from ink_ls.agent.factory import AgentFactory

log = logging.getLogger(__name__)


async def _serve(trust_workspace: bool | None) -> None:
    agent = InkAcpAgent(AgentFactory(), trust_workspace=trust_workspace)
    try:
        # the SDK routes only the methods an agent has; the unstable ones are left out
        await run_agent(cast(Agent, agent))
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
