"""Real-shaped streams of the Chat Completions dialects users run, as raw response bytes.

Each dialect replays one tool-calling reply (with the server's reasoning fields) and one final
answer, in the framing its server uses (field names, where usage and finish_reason go, comment
lines, with or without `data: [DONE]`), written from each server's documentation and source.
The follow-up request is checked the way the provider checks it: the responder refuses it with
the provider's own HTTP 400 when what must come back is missing, so a test passes only when the
agent really sends it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.fakes.model_server import Reply

NOTES = "ship on Friday\n"
ANSWER = "The notes say: ship on Friday."
THOUGHT = "The user asks about notes.txt, so I should read it first."
ARGS = '{"path": "notes.txt"}'


def sse(*items: Any, done: bool = True, prefix: str = "") -> bytes:
    """`data:` events (dicts are JSON-encoded compactly, like the servers do)."""
    out = [prefix]
    for item in items:
        data = item if isinstance(item, str) else json.dumps(item, separators=(",", ":"))
        out.append(f"data: {data}\n\n")
    if done:
        out.append("data: [DONE]\n\n")
    return "".join(out).encode()


def pieces(text: str, n: int = 7) -> list[str]:
    return [text[i : i + n] for i in range(0, len(text), n)]


def _chunk(delta: dict[str, Any], finish: str | None = None, **top: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1733000000,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        **top,
    }


USAGE = {"prompt_tokens": 812, "completion_tokens": 41, "total_tokens": 853}


@dataclass
class Dialect:
    name: str
    tool_turn: bytes
    answer_turn: bytes
    thinking: str
    """The visible reasoning the user is shown ("" when the dialect sends none)."""
    required: Callable[[dict[str, Any]], str | None]
    """What the provider refuses in a follow-up request (None: accepted)."""

    def replies(self) -> list[Callable[[dict[str, Any]], Reply]]:
        """The two responders: the tool turn, then the answer (or the provider's refusal)."""

        def follow_up(payload: dict[str, Any]) -> Reply:
            problem = self.required(payload)
            if problem is not None:
                body = json.dumps({"error": {"message": problem, "type": "invalid_request_error"}})
                return Reply(status=400, body=body)
            return Reply(raw=self.answer_turn)

        return [lambda payload: Reply(raw=self.tool_turn), follow_up]


def assistant_of(payload: dict[str, Any]) -> dict[str, Any]:
    """The assistant message with tool calls in a follow-up request."""
    return next(m for m in payload["messages"] if m["role"] == "assistant" and m.get("tool_calls"))


def _tool_result_follows(payload: dict[str, Any]) -> str | None:
    tools = [m for m in payload["messages"] if m["role"] == "tool"]
    if not tools or NOTES.strip() not in tools[0]["content"]:
        return "the tool result for the read call is missing"
    return None


def _answer(done: bool = True, **top: Any) -> bytes:
    events = [_chunk({"role": "assistant", "content": ""}, **top)]
    events += [_chunk({"content": p}, **top) for p in pieces(ANSWER)]
    events.append(_chunk({}, "stop", **top))
    events.append({**_chunk({}, **top), "choices": [], "usage": USAGE})
    return sse(*events, done=done)


def llama_cpp(*, done: bool) -> Dialect:
    """llama.cpp's `llama-server --jinja --reasoning-format deepseek` (ik_llama.cpp: no [DONE],
    https://github.com/ikawrakow/ik_llama.cpp/issues/467): `reasoning_content` deltas, the call's
    arguments in pieces, usage and `timings` on the finish chunk."""
    top = {"system_fingerprint": "b6000-abc", "model": "gpt-3.5-turbo"}
    events: list[Any] = [_chunk({"role": "assistant", "content": None}, **top)]
    events += [_chunk({"reasoning_content": p}, **top) for p in pieces(THOUGHT)]
    events.append(
        _chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "yBNqKk1VbJbOAKMb5pUCtAPnb7HWOHD0",
                        "type": "function",
                        "function": {"name": "read", "arguments": ""},
                    }
                ]
            },
            **top,
        )
    )
    events += [
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}, **top)
        for p in pieces(ARGS, 5)
    ]
    timings = {"prompt_n": 812, "predicted_n": 41, "predicted_per_second": 31.5}
    events.append(_chunk({}, "tool_calls", usage=USAGE, timings=timings, **top))
    answer = [_chunk({"content": p}, **top) for p in pieces(ANSWER)]
    answer.append(_chunk({}, "stop", usage=USAGE, timings=timings, **top))

    def required(payload: dict[str, Any]) -> str | None:
        return _tool_result_follows(payload)

    return Dialect(
        "llama.cpp" if done else "ik_llama.cpp",
        sse(*events, done=done),
        sse(*answer, done=done),
        THOUGHT,
        required,
    )


def vllm(field: str = "reasoning") -> Dialect:
    """vLLM with `--reasoning-parser` and `--tool-call-parser` (`reasoning`; older releases and
    SGLang say `reasoning_content`): the call's name first, its arguments after, the usage on a
    chunk without choices (`stream_options.include_usage`), then [DONE]."""
    events: list[Any] = [_chunk({"role": "assistant", "content": ""})]
    events += [_chunk({field: p}) for p in pieces(THOUGHT)]
    first = {
        "index": 0,
        "id": "chatcmpl-tool-8d3c0e3f6b2b4f0e",
        "type": "function",
        "function": {"name": "read"},
    }
    events.append(_chunk({"tool_calls": [first]}))
    events += [
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]})
        for p in pieces(ARGS, 4)
    ]
    events.append(_chunk({}, "tool_calls"))
    events.append({**_chunk({}), "choices": [], "usage": USAGE})

    def required(payload: dict[str, Any]) -> str | None:
        if assistant_of(payload).get(field) != THOUGHT:
            return f"the assistant message lost its {field}"
        return _tool_result_follows(payload)

    name = "vLLM" if field == "reasoning" else "SGLang"
    return Dialect(name, sse(*events), _answer(), THOUGHT, required)


def ollama_openai() -> Dialect:
    """Ollama's OpenAI layer (`/v1/chat/completions`): thinking as `reasoning`, the whole call
    in one chunk, `finish_reason: tool_calls`, a usage chunk, [DONE]."""
    top = {"model": "qwen3:8b", "system_fingerprint": "fp_ollama"}
    events: list[Any] = [
        _chunk({"role": "assistant", "content": "", "reasoning": p}, **top) for p in pieces(THOUGHT)
    ]
    call = {
        "id": "call_k2xq7d1f",
        "index": 0,
        "type": "function",
        "function": {"name": "read", "arguments": ARGS},
    }
    events.append(_chunk({"role": "assistant", "content": "", "tool_calls": [call]}, **top))
    events.append(_chunk({"role": "assistant", "content": ""}, "tool_calls", **top))
    events.append({**_chunk({}, **top), "choices": [], "usage": USAGE})
    return Dialect(
        "Ollama (OpenAI layer)", sse(*events), _answer(**top), THOUGHT, _tool_result_follows
    )


def deepseek() -> Dialect:
    """DeepSeek's thinking mode: `reasoning_content` deltas (content null meanwhile), which must
    come back on the assistant message of a tool-calling turn or the request is refused."""
    top = {"model": "deepseek-reasoner", "system_fingerprint": "fp_ffc7281d48_prod0820"}
    events: list[Any] = [
        _chunk({"role": "assistant", "content": None, "reasoning_content": ""}, **top)
    ]
    events += [_chunk({"content": None, "reasoning_content": p}, **top) for p in pieces(THOUGHT)]
    events.append(
        _chunk(
            {
                "content": None,
                "reasoning_content": None,
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_00_SVq0JuzUMAUA5dlTbGrBsmi1",
                        "type": "function",
                        "function": {"name": "read", "arguments": ""},
                    }
                ],
            },
            **top,
        )
    )
    events += [
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}, **top)
        for p in pieces(ARGS, 6)
    ]
    usage = {
        **USAGE,
        "prompt_tokens_details": {"cached_tokens": 768},
        "completion_tokens_details": {"reasoning_tokens": 13},
        "prompt_cache_hit_tokens": 768,
        "prompt_cache_miss_tokens": 44,
    }
    events.append(
        _chunk({"content": "", "reasoning_content": None}, "tool_calls", usage=usage, **top)
    )

    def required(payload: dict[str, Any]) -> str | None:
        if assistant_of(payload).get("reasoning_content") != THOUGHT:
            # DeepSeek's own refusal text for a thinking-mode tool turn sent back without it
            return (
                "Missing `reasoning_content` field in the assistant message at message index 2. "
                "For more information, please refer to https://api-docs.deepseek.com/guides/"
                "thinking_mode#tool-calls"
            )
        return _tool_result_follows(payload)

    return Dialect("DeepSeek", sse(*events), _answer(**top), THOUGHT, required)


SIGNATURE = "CiQBcsjafJ3a7T4nVQ1+9xw2Aw3XuKQe0d/ExampleThoughtSignature=="


def gemini() -> Dialect:
    """Gemini 3 through its OpenAI layer: the whole call in one chunk with
    `extra_content.google.thought_signature`, finish and usage on that same chunk; the follow-up
    is refused when the signature does not come back on its call."""
    top = {"model": "gemini-3-pro-preview"}
    call = {
        "extra_content": {"google": {"thought_signature": SIGNATURE}},
        "function": {"arguments": ARGS, "name": "read"},
        "id": "function-call-7360420011413402396",
        "type": "function",
        "index": 0,
    }
    events = [_chunk({"role": "assistant", "tool_calls": [call]}, "tool_calls", usage=USAGE, **top)]

    def required(payload: dict[str, Any]) -> str | None:
        sent = assistant_of(payload)["tool_calls"][0]
        if sent.get("extra_content") != {"google": {"thought_signature": SIGNATURE}}:
            return (
                "Function call is missing a thought_signature in functionCall parts. This is "
                "required for tools to work correctly, and missing thought_signature may lead "
                "to degraded model performance."
            )
        return _tool_result_follows(payload)

    return Dialect("Gemini", sse(*events), _answer(**top), "", required)


def openrouter() -> Dialect:
    """OpenRouter (an Anthropic model with reasoning): `: OPENROUTER PROCESSING` comments,
    `reasoning` text and `reasoning_details` streamed by index with the signature last, the
    provider's name on each chunk; `reasoning_details` must come back whole."""
    top = {"provider": "Anthropic", "model": "anthropic/claude-sonnet-4.5"}
    events: list[Any] = []
    for p in pieces(THOUGHT):
        detail = {"type": "reasoning.text", "text": p, "format": "anthropic-claude-v1", "index": 0}
        events.append(
            _chunk(
                {"role": "assistant", "content": "", "reasoning": p, "reasoning_details": [detail]},
                **top,
            )
        )
    signed = {
        "type": "reasoning.text",
        "signature": "EqQBCkYIBxgCKkB-sig",
        "index": 0,
        "format": "anthropic-claude-v1",
    }
    events.append(
        _chunk(
            {"role": "assistant", "content": "", "reasoning": None, "reasoning_details": [signed]},
            **top,
        )
    )
    call = {
        "index": 0,
        "id": "toolu_01A09q90qw90lq917835lq9",
        "type": "function",
        "function": {"name": "read", "arguments": ""},
    }
    events.append(_chunk({"role": "assistant", "content": "", "tool_calls": [call]}, **top))
    events += [
        _chunk(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"index": 0, "type": "function", "function": {"arguments": p}}],
            },
            **top,
        )
        for p in pieces(ARGS, 5)
    ]
    events.append(
        _chunk(
            {"role": "assistant", "content": ""},
            "tool_calls",
            native_finish_reason="tool_use",
            **top,
        )
    )
    events.append({**_chunk({}, **top), "choices": [], "usage": {**USAGE, "cost": 0.0031}})
    whole = [
        {
            "type": "reasoning.text",
            "text": THOUGHT,
            "format": "anthropic-claude-v1",
            "index": 0,
            "signature": "EqQBCkYIBxgCKkB-sig",
        }
    ]

    def required(payload: dict[str, Any]) -> str | None:
        if assistant_of(payload).get("reasoning_details") != whole:
            return "reasoning_details must be passed back unmodified for tool use"
        return _tool_result_follows(payload)

    processing = ": OPENROUTER PROCESSING\n\n"
    return Dialect(
        "OpenRouter", sse(*events, prefix=processing * 2), _answer(**top), THOUGHT, required
    )


def mistral() -> Dialect:
    """Mistral's reasoning models (Magistral): thinking as typed `content` parts, the call whole
    in one chunk with a 9-character id, usage on the finish chunk."""
    top = {"model": "magistral-medium-latest"}
    events: list[Any] = [_chunk({"role": "assistant", "content": ""}, **top)]
    events += [
        _chunk(
            {"content": [{"type": "thinking", "thinking": [{"type": "text", "text": p}]}]}, **top
        )
        for p in pieces(THOUGHT)
    ]
    call = {"id": "D681PevKs", "function": {"name": "read", "arguments": ARGS}, "index": 0}
    events.append(_chunk({"tool_calls": [call]}, **top))
    events.append(_chunk({"content": ""}, "tool_calls", usage=USAGE, **top))
    return Dialect("Mistral", sse(*events), _answer(**top), THOUGHT, _tool_result_follows)


def all_dialects() -> list[Dialect]:
    return [
        llama_cpp(done=True),
        llama_cpp(done=False),
        vllm("reasoning"),
        vllm("reasoning_content"),
        ollama_openai(),
        deepseek(),
        gemini(),
        openrouter(),
        mistral(),
    ]


IN_STREAM_ERRORS: dict[str, bytes] = {
    # llama.cpp: server_sent_event(sink, "error", format_error_response(...))
    "llama.cpp": sse(_chunk({"content": "Let"}), done=False)
    + b'error: {"code":500,"message":"the slot crashed mid-reply","type":"server_error"}\n\n',
    # vLLM: create_streaming_error_response, then [DONE]
    "vLLM": sse(
        _chunk({"content": "Let"}),
        {
            "error": {
                "object": "error",
                "message": "the slot crashed mid-reply",
                "type": "InternalServerError",
                "param": None,
                "code": 500,
            }
        },
    ),
    # an SSE `event: error` (proxies, gateways)
    "event-error": sse(_chunk({"content": "Let"}), done=False)
    + b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error",'
    b'"message":"the slot crashed mid-reply"}}\n\n',
    # OpenRouter: the error on a chunk whose choice finishes with "error"
    "OpenRouter": sse(
        _chunk({"content": "Let"}),
        {
            **_chunk({"content": ""}, "error"),
            "error": {"code": "server_error", "message": "the slot crashed mid-reply"},
        },
        done=False,
    ),
}
