"""A stored session as a turn's `Conversation`: the history to continue, recorded in the
session file as it grows (messages and compactions)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ink_ls.agent.compaction import Compaction
from ink_ls.agent.instructions import ProjectInstructions
from ink_ls.core.messages import Message
from ink_ls.model.wire import WireCache
from ink_ls.sessions.store import Session


@dataclass
class StoredConversation:
    """One session's conversation for the terminal and ACP front ends (the editor keeps its
    own live sessions, which are conversations too)."""

    session: Session
    messages: list[Message] = field(default_factory=list)
    instructions: ProjectInstructions | None = None
    """The project instructions loaded so far (kept across the session's turns)."""
    wire: WireCache = field(default_factory=WireCache)
    """The wire form of `messages`, built once per message across the session's turns."""

    @classmethod
    def of(cls, session: Session) -> StoredConversation:
        return cls(session, list(session.messages))

    def record(self, message: Message) -> None:
        self.session.append(message)

    def record_compaction(self, compaction: Compaction) -> None:
        self.session.record_compaction(compaction)
