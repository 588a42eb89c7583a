"""`ink-ls --acp`: serve the Agent Client Protocol on stdin/stdout."""

from __future__ import annotations

import asyncio
import logging
from typing import cast

from acp import Agent, run_agent

from ink_ls.acp.agent import InkAcpAgent
from ink_ls.agent.factory import AgentFactory

log = logging.getLogger(__name__)


async def _serve() -> None:
    agent = InkAcpAgent(AgentFactory())
    try:
        # the SDK routes only the methods an agent has; the unstable ones are left out
        await run_agent(cast(Agent, agent))
    finally:
        await agent.close()


def run_acp() -> int:
    """Run until the client closes stdin; returns the exit status."""
    try:
        asyncio.run(_serve())
    except KeyboardInterrupt:
        return 130
    return 0
