"""Reading a session file's lines and repairing what damage leaves behind.

Records are split on `\\n` only: JSON text written with `ensure_ascii=False` keeps U+2028,
U+2029, U+0085 and form feeds raw inside strings, and `str.splitlines` would cut a record there.
`pair_tool_calls` makes a history valid for a model request again after a damaged line was
skipped: every tool call gets a result, and results whose call is gone are dropped.
"""

from __future__ import annotations

from collections.abc import Iterator

from ink_ls.core.messages import (
    AssistantMessage,
    Message,
    TextBlock,
    ToolResultEntry,
    ToolResultMessage,
)

LOST = "(lost: the session file was damaged where this tool call's result was stored)"


def record_lines(raw: bytes) -> Iterator[tuple[int, str]]:
    """`(line number, text)` of each non-blank line of `raw`, split on `\\n` only; bytes that
    are not UTF-8 are replaced (the record then fails to parse on its own, not its neighbours)."""
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if line.strip():
            yield number, line.decode("utf-8", "replace")


def pair_tool_calls(messages: list[Message]) -> tuple[list[Message], int]:
    """`messages` with every tool call answered (a synthesized error result where the stored one
    is missing) and orphan results dropped; also the number of changes made. The last assistant
    message's open calls are left alone (the store closes those, persistently)."""
    out: list[Message] = []
    changes = 0
    open_calls: dict[str, str] = {}  # id → tool name, of the assistant message just before

    def close_open() -> None:
        nonlocal changes
        if open_calls:
            out.append(
                ToolResultMessage(
                    results=[
                        ToolResultEntry(
                            tool_call_id=call_id,
                            tool_name=name,
                            content=[TextBlock(text=LOST)],
                            is_error=True,
                        )
                        for call_id, name in open_calls.items()
                    ]
                )
            )
            changes += len(open_calls)
            open_calls.clear()

    for message in messages:
        if isinstance(message, ToolResultMessage):
            kept = [r for r in message.results if open_calls.pop(r.tool_call_id, None) is not None]
            changes += len(message.results) - len(kept)
            if open_calls:  # some results of the batch were lost
                kept += [
                    ToolResultEntry(
                        tool_call_id=call_id,
                        tool_name=name,
                        content=[TextBlock(text=LOST)],
                        is_error=True,
                    )
                    for call_id, name in open_calls.items()
                ]
                changes += len(open_calls)
                open_calls.clear()
            if kept:
                out.append(ToolResultMessage(results=kept))
            continue
        close_open()
        out.append(message)
        if isinstance(message, AssistantMessage):
            open_calls.update((c.id, c.name) for c in message.tool_calls)
    return out, changes
