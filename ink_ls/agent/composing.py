"""The user's prompt as the model gets it, built once for every front end (`TurnBuilder`):
a prompt file's `/name` expanded, the @-mentions attached (through the front end's file view),
then the front end's own context (the editor's document and selection).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ink_ls.agent.mentions import MentionSources, attach_mentions
from ink_ls.agent.slash import expand_prompt
from ink_ls.core.messages import TextBlock, UserMessage
from ink_ls.core.tool import DiskFiles, FileView


@dataclass(frozen=True)
class Composer:
    """Turns what the user typed into the user message of a turn."""

    cwd: Path
    files: FileView = field(default_factory=DiskFiles)
    sources: MentionSources = field(default_factory=MentionSources)
    context: str = ""
    """Appended after the attachments (the editor's `Context: the user is looking at …`)."""

    async def text(self, typed: str) -> str:
        """`typed` expanded, with its attachments and the front end's context."""
        text = expand_prompt(typed, self.cwd)
        text = await attach_mentions(text, self.cwd, self.files, self.sources)
        return f"{text}\n\n{self.context}" if self.context else text

    async def compose(self, prompt: str | UserMessage) -> str | UserMessage:
        """The prompt (its first text block when it is a message with attachments) composed."""
        if isinstance(prompt, str):
            return await self.text(prompt)
        blocks = list(prompt.content)
        for i, block in enumerate(blocks):
            if isinstance(block, TextBlock):
                blocks[i] = TextBlock(text=await self.text(block.text))
                return UserMessage(content=blocks)
        return prompt
