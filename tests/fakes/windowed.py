"""A scripted model with a context window, for long-session tests and the compaction bench.

`WindowedModel` is a `FakeModelServer` responder. It "tokenizes" a request as one token per
four characters of the JSON of its messages and tools, reports that as `prompt_tokens`,
refuses a request over its window with the error an OpenAI-compatible server sends, answers
summary requests (ink's compaction) with a short summary, and plays a fixed little task per
user prompt: read the prompt's file `reads` times, then answer. Every request it saw is kept
with its token count, so tests can check what the model received.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.model_server import Reply

SUMMARY_MARK = "You compress a coding session"
OVERFLOW_BODY = json.dumps(
    {
        "error": {
            "message": "This model's maximum context length is {window} tokens. However, your "
            "messages resulted in {tokens} tokens. Please reduce the length of the messages.",
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
        }
    }
)


def request_tokens(payload: dict[str, Any]) -> int:
    """The fake tokenizer: a token per 4 characters of the messages' and tools' JSON."""
    body = json.dumps({"messages": payload.get("messages", []), "tools": payload.get("tools", [])})
    return -(-len(body) // 4)


def is_summary_request(payload: dict[str, Any]) -> bool:
    messages = payload.get("messages") or [{}]
    return str(messages[0].get("content", "")).startswith(SUMMARY_MARK)


@dataclass
class Seen:
    payload: dict[str, Any]
    tokens: int
    summary: bool
    refused: bool


@dataclass
class WindowedModel:
    window: int
    reads: int = 2
    """`read` calls per prompt before the answer."""
    summary_hang: bool = False
    """Summary requests never finish (to kill or cancel mid-compaction)."""
    seen: list[Seen] = field(default_factory=list)
    summary_seen: threading.Event = field(default_factory=threading.Event)
    """Set when a summary request arrives (clear it to wait for the next)."""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, payload: dict[str, Any]) -> Reply:
        tokens = request_tokens(payload)
        summary = is_summary_request(payload)
        refused = tokens > self.window
        with self._lock:
            self.seen.append(Seen(payload, tokens, summary, refused))
        if refused:
            return Reply(
                status=400,
                body=OVERFLOW_BODY.replace("{window}", str(self.window)).replace(
                    "{tokens}", str(tokens)
                ),
            )
        if summary:
            self.summary_seen.set()
            prompts = payload["messages"][-1]["content"].count("USER:")
            return Reply(
                text=f"Summary: the user asked for {prompts} more file checks; each "
                "file was read and reported. Nothing is open.",
                usage=_usage(tokens, 30),
                hang=self.summary_hang,
            )
        messages = payload["messages"]
        last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
        prompt = str(messages[last_user]["content"])
        done = sum(1 for m in messages[last_user:] if m["role"] == "tool")
        if done < self.reads and prompt.startswith("check "):
            path = prompt.split()[1]
            return Reply(tool_calls=[("read", {"path": path})], usage=_usage(tokens, 20))
        return Reply(text=f"Checked: {prompt[:40]} is fine.", usage=_usage(tokens, 12))

    def conversation(self) -> list[Seen]:
        """The requests of the conversation itself (not summaries, not refused)."""
        return [s for s in self.seen if not s.summary and not s.refused]


def _usage(prompt: int, completion: int) -> dict[str, int]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def unpaired_calls(payload: dict[str, Any]) -> list[str]:
    """Tool call ids without a result (or results without a call) in one request."""
    calls: list[str] = []
    results: list[str] = []
    for message in payload["messages"]:
        if message["role"] == "assistant":
            calls += [c["id"] for c in message.get("tool_calls") or []]
        elif message["role"] == "tool":
            if message["tool_call_id"] not in calls:
                results.append(message["tool_call_id"])
            else:
                calls.remove(message["tool_call_id"])
    return calls + results
