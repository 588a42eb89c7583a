"""The views a rewind continues from: each entry's conversation as it was, without a copy of
the whole history per turn, across compactions (the history replaced)."""

from __future__ import annotations

from ink_ls.core.messages import Message, user_text
from ink_ls.sessions.views import ConversationViews


def test_each_entry_sees_its_conversation_and_growth_shares_one_list() -> None:
    views = ConversationViews()
    messages: list[Message] = []
    for turn in range(1, 6):
        views.take(turn, messages)
        messages += [user_text(f"prompt {turn}"), user_text(f"answer {turn}")]
    assert [len(views[t]) for t in range(1, 6)] == [0, 2, 4, 6, 8]
    assert views[3] == messages[:4] and views[3] is not views[3]  # a fresh list each time
    assert len({id(log) for log, _ in views._at.values()}) == 1  # one shared list


def test_a_replaced_history_keeps_the_earlier_views_as_they_were() -> None:
    views = ConversationViews()
    messages: list[Message] = [user_text("a"), user_text("b")]
    views.take(1, messages)
    messages += [user_text("c")]
    views.take(2, messages)
    old = list(messages)
    messages[:] = [user_text("summary"), messages[-1]]  # a compaction
    views.take(3, messages)
    messages.append(user_text("d"))
    views.take(4, messages)
    assert views[1] == old[:2] and views[2] == old
    assert views[3] == messages[:2] and views[4] == messages
