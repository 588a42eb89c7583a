"""The conversation just before each checkpoint entry (what a rewind to it continues from),
kept as a length into one shared list of messages instead of a copy per turn."""

from __future__ import annotations

import operator

from ink_ls.core.messages import Message


class ConversationViews:
    """Per checkpoint entry, the messages the conversation held when it began.

    Between compactions and rewinds a conversation only grows, so every entry's view is a
    prefix of one list that grows with it: a turn costs what it added, and memory stays one
    list per compaction or rewind, not one per turn."""

    def __init__(self) -> None:
        self._log: list[Message] = []
        self._at: dict[int, tuple[list[Message], int]] = {}

    def take(self, number: int, messages: list[Message]) -> None:
        """Remember `messages` as entry `number`'s view."""
        log = self._log
        if len(log) <= len(messages) and all(map(operator.is_, log, messages)):
            log.extend(messages[len(log) :])  # it only grew since the last entry
        else:  # replaced (a compaction, a rewind): earlier views keep the list they had
            self._log = log = list(messages)
        self._at[number] = (log, len(messages))

    def __getitem__(self, number: int) -> list[Message]:
        """Entry `number`'s view, a fresh list (KeyError when it has none)."""
        log, length = self._at[number]
        return log[:length]
