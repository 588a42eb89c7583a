"""The session file's checkpoint records: entries are numbered across turns and rewinds, a
rewind of the conversation continues from before its target, and all of it survives a reload
(the next prompt continues from the rewound history)."""

from __future__ import annotations

from pathlib import Path

from ink_ls.checkpoints.timeline import rewind_record, turn_record
from ink_ls.core.messages import (
    AssistantMessage,
    Message,
    TextBlock,
    UserMessage,
    text_of,
)
from ink_ls.sessions.store import SessionStore


def texts(messages: list[Message]) -> list[str]:
    out = []
    for m in messages:
        if isinstance(m, UserMessage):
            out.append(text_of(m.content))
        elif isinstance(m, AssistantMessage):
            out.append(m.text)
    return out


def test_rewinds_of_the_conversation_are_replayed_after_a_reload(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    session = store.create(cwd=tmp_path)
    for n, prompt in enumerate(["one", "two"], start=1):
        session.record(turn_record(n, "2026-12-03T10:00:00Z", prompt))
        session.append(UserMessage(content=[TextBlock(text=prompt)]))
        session.append(AssistantMessage(text=f"answer {n}"))
    session.record(rewind_record(3, "t", to=2, restore="conversation", tree=None, skipped=None))
    assert texts(session.messages) == ["one", "answer 1"]
    session.record(turn_record(4, "t", "three"))
    session.append(UserMessage(content=[TextBlock(text="three")]))

    loaded = store.open(session.id)
    assert texts(loaded.messages) == ["one", "answer 1", "three"]
    marks = [(e.number, e.kind, e.rewound) for e in loaded.timeline.ordered()]
    assert marks == [
        (1, "turn", False),
        (2, "turn", True),
        (3, "rewind", False),
        (4, "turn", False),
    ]

    # rewinding to the rewind's entry brings turn 2 back and cuts turn 4 off
    loaded.record(rewind_record(5, "t", to=3, restore="both", tree=None, skipped=None))
    assert texts(loaded.messages) == ["one", "answer 1", "two", "answer 2"]
    again = store.open(session.id)
    assert texts(again.messages) == ["one", "answer 1", "two", "answer 2"]
    rewound = [(e.number, e.rewound) for e in again.timeline.ordered()]
    assert rewound == [(1, False), (2, False), (3, True), (4, True), (5, False)]
    fifth = again.timeline.get(5)
    assert fifth is not None and fifth.prompt == "rewind to 3 (both)"


def test_a_files_only_rewind_keeps_the_conversation(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    session = store.create(cwd=tmp_path)
    session.record(turn_record(1, "t", "one"))
    session.append(UserMessage(content=[TextBlock(text="one")]))
    session.record(rewind_record(2, "t", to=1, restore="files", tree=None, skipped=None))
    assert texts(store.open(session.id).messages) == ["one"]
