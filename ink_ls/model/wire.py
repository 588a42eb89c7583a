"""The wire form of a conversation's history, built once per message and reused, and the
request body assembled from those encoded pieces.

A long session sends the same past messages on every turn; converting each of them to the
provider's shape and encoding it to JSON again made a turn cost grow with the session. A
`WireCache` belongs to one conversation: per dialect (and per option that changes the
conversion, such as vision) it keeps the encoded items of each history message, checked by
identity against the history it is asked about, so a turn converts only what it added. A
compaction or a rewind replaces the history: its owner calls `invalidate` (and a message that
is not the very object seen before is converted again anyway).
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ink_ls.core.memo import IdentityMemo
from ink_ls.core.messages import Message

JSONObject = dict[str, Any]
T = TypeVar("T")


def dumps(value: object) -> str:
    """JSON text exactly as httpx encodes a `json=` body (compact, UTF-8, no NaN)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


@dataclass(frozen=True)
class RawJSON:
    """An array already encoded: runs of its items' JSON texts, each run comma-joined (an
    empty run adds nothing)."""

    runs: tuple[str, ...]

    def text(self) -> str:
        return "[" + ",".join(run for run in self.runs if run) + "]"


def encode_body(body: dict[str, object]) -> bytes:
    """The request body's bytes; a top-level `RawJSON` value is spliced in as it is.

    Byte for byte what `dumps` gives for the same body with plain lists in their place."""
    if not any(isinstance(v, RawJSON) for v in body.values()):
        return dumps(body).encode("utf-8")
    parts = [
        dumps(key) + ":" + (value.text() if isinstance(value, RawJSON) else dumps(value))
        for key, value in body.items()
    ]
    return ("{" + ",".join(parts) + "}").encode("utf-8")


@dataclass
class _Converted:
    """The history messages converted so far under one key, and what each became."""

    messages: list[Message] = field(default_factory=list)
    values: list[Any] = field(default_factory=list)
    joined: str = ""
    """For encoded items: all of `values` comma-joined, as far as `joined_count` reaches."""
    joined_count: int = 0

    def keep(self, history: Sequence[Message]) -> None:
        """Drop what no longer matches `history` (the same objects at the same places)."""
        seen = self.messages
        if len(seen) <= len(history) and all(map(operator.is_, seen, history)):
            return  # the usual case, checked at C speed: the history only grew
        kept = 0
        while kept < min(len(seen), len(history)) and seen[kept] is history[kept]:
            kept += 1
        del seen[kept:], self.values[kept:]
        if self.joined_count > kept:
            self.joined, self.joined_count = "", 0


class WireCache:
    """The wire form of one conversation's messages, per dialect key (see module doc)."""

    def __init__(self) -> None:
        self._keys: dict[str, _Converted] = {}
        self.converted = 0
        """Messages converted since the cache was made (what tests and benchmarks read)."""

    def invalidate(self) -> None:
        """Forget everything: the history was replaced (a compaction, a rewind)."""
        self._keys.clear()

    def _sync(
        self, key: str, history: Sequence[Message], convert: Callable[[Message], Any]
    ) -> _Converted:
        done = self._keys.setdefault(key, _Converted())
        done.keep(history)
        for message in history[len(done.messages) :]:
            done.messages.append(message)
            done.values.append(convert(message))
            self.converted += 1
        return done

    def each(
        self, key: str, history: Sequence[Message], convert: Callable[[Message], T]
    ) -> list[T]:
        """`convert(m)` for every message of `history`, reusing what was built for the same
        message object at the same place; the rest (what the turn added) is converted now."""
        return list(self._sync(key, history, convert).values)

    def joined(
        self, key: str, history: Sequence[Message], encode: Callable[[Message], list[str]]
    ) -> str:
        """Every item `encode` gives for the messages of `history`, comma-joined; only what
        the turn added is encoded and joined on."""
        done = self._sync(key, history, encode)
        fresh = [text for texts in done.values[done.joined_count :] for text in texts]
        if fresh:
            done.joined = ",".join([done.joined, *fresh] if done.joined else fresh)
        done.joined_count = len(done.values)
        return done.joined


_TOOL_TEXTS: IdentityMemo[JSONObject, str] = IdentityMemo()
"""The JSON of each shared tool entry's wire form, by dialect."""


def encoded_tools(
    cache: WireCache | None,
    key: str,
    schemas: Sequence[JSONObject],
    convert: Callable[[JSONObject], JSONObject],
) -> list[JSONObject] | RawJSON:
    """A body's tools array: each `{name, description, parameters}` entry in the dialect's
    shape (`convert`). Without a cache the plain list; with one, each entry's JSON is made
    once per process and dialect (the entries are shared by every request: `Tool.schema`),
    so a request of a new session encodes no schema again."""
    if cache is None:
        return [convert(entry) for entry in schemas]

    def encode(entry: JSONObject) -> str:
        return dumps(convert(entry))

    return RawJSON(tuple(_TOOL_TEXTS.get(key, entry, encode) for entry in schemas))


def encoded_items(
    cache: WireCache | None,
    key: str,
    history: Sequence[Message],
    convert: Callable[[Message], list[JSONObject]],
    head: Sequence[JSONObject] = (),
) -> list[JSONObject] | RawJSON:
    """A body's message array: `head` (e.g. the system prompt) and each message's items.

    Without a cache the plain list (as before); with one, the items encoded once per
    message and spliced by `encode_body`."""
    if cache is None:
        return [*head, *(item for message in history for item in convert(message))]

    def encode(message: Message) -> list[str]:
        return [dumps(item) for item in convert(message)]

    return RawJSON((*(dumps(item) for item in head), cache.joined(key, history, encode)))
