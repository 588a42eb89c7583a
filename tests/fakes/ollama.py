"""A fake Ollama on loopback: its native endpoints (`/api/version`, `/api/ps`, `/api/show`,
`/api/generate` to load a model, `/api/chat` streaming JSON lines) beside its OpenAI layer
(`/v1/chat/completions`, `/v1/models`), shaped after Ollama's API documentation.

Like the real one it runs a model with its default window (`runtime_window`, 4,096) unless a
native request names `options.num_ctx`; `/api/ps` lists a model only once it is loaded.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from typing import Any

from tests.fakes.model_server import FakeModelServer, Reply

MODEL = "qwen3:8b"
CREATED = "2025-12-03T09:00:00.000000Z"


def ndjson(*lines: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def _line(message: dict[str, Any], *, done: bool = False, **more: Any) -> dict[str, Any]:
    return {"model": MODEL, "created_at": CREATED, "message": message, "done": done, **more}


def native_turn(
    *, thinking: str = "", calls: list[tuple[str, dict[str, Any]]] | None = None, text: str = ""
) -> bytes:
    """One `/api/chat` reply: thinking pieces, the calls whole (as Ollama sends them), text
    pieces, then the `done` line with the token counts."""
    lines = [
        _line({"role": "assistant", "content": "", "thinking": thinking[i : i + 9]})
        for i in range(0, len(thinking), 9)
    ]
    if calls:
        lines.append(
            _line(
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {"id": f"call_{n}", "function": {"index": n, "name": name, "arguments": a}}
                        for n, (name, a) in enumerate(calls)
                    ],
                }
            )
        )
    lines += [
        _line({"role": "assistant", "content": text[i : i + 6]}) for i in range(0, len(text), 6)
    ]
    lines.append(
        _line(
            {"role": "assistant", "content": ""},
            done=True,
            done_reason="stop",
            total_duration=912000000,
            load_duration=21000000,
            prompt_eval_count=1830,
            prompt_eval_duration=400000000,
            eval_count=24,
            eval_duration=480000000,
        )
    )
    return ndjson(*lines)


class FakeOllama(FakeModelServer):
    """`srv.base_url` is the OpenAI layer (`…/v1`); `srv.chat` scripts `/api/chat` replies."""

    def __init__(self, *, runtime_window: int = 4096, trained: int = 40960) -> None:
        super().__init__()
        self.runtime_window = runtime_window
        self.trained = trained
        self.loaded: dict[str, int] = {}
        """Model name → the window it runs with."""
        self.chat: deque[bytes] = deque()
        self._lock = threading.Lock()
        self.models = [{"id": MODEL, "object": "model", "created": 1, "owned_by": "library"}]
        self.get_routes.update(
            {"/api/version": lambda: (200, {"version": "0.12.6"}), "/api/ps": self._ps}
        )
        self.post_routes.update(
            {"/api/generate": self._generate, "/api/show": self._show, "/api/chat": self._chat}
        )
        self.default = self._openai_layer

    def _load(self, model: str, num_ctx: int | None) -> None:
        with self._lock:
            self.loaded[model] = num_ctx or self.runtime_window

    def _ps(self) -> tuple[int, Any]:
        with self._lock:
            models = [
                {
                    "name": name,
                    "model": name,
                    "size": 6654289920,
                    "digest": "500a1f067a9f782620b40bee6f7b0c89e17ae61f686b92c24933e4ca4b2b8b41",
                    "details": {"family": "qwen3", "parameter_size": "8.2B"},
                    "expires_at": "2025-12-03T09:05:00.000000Z",
                    "size_vram": 6654289920,
                    "context_length": window,
                }
                for name, window in self.loaded.items()
            ]
        return 200, {"models": models}

    def _generate(self, payload: dict[str, Any]) -> Reply:
        self._load(payload["model"], (payload.get("options") or {}).get("num_ctx"))
        body = {
            "model": payload["model"],
            "created_at": CREATED,
            "response": "",
            "done": True,
            "done_reason": "load",
        }
        return Reply(raw=json.dumps(body).encode(), content_type="application/json")

    def _show(self, payload: dict[str, Any]) -> Reply:
        body = {
            "parameters": 'temperature 0.6\nstop "<|im_end|>"',
            "details": {"family": "qwen3", "parameter_size": "8.2B"},
            "model_info": {"general.architecture": "qwen3", "qwen3.context_length": self.trained},
            "capabilities": ["completion", "tools", "thinking"],
        }
        return Reply(raw=json.dumps(body).encode(), content_type="application/json")

    def _chat(self, payload: dict[str, Any]) -> Reply:
        self._load(payload["model"], (payload.get("options") or {}).get("num_ctx"))
        with self._lock:
            raw = self.chat.popleft() if self.chat else native_turn(text="(script exhausted)")
        return Reply(raw=raw, content_type="application/x-ndjson")

    def _openai_layer(self, payload: dict[str, Any]) -> Reply:
        """The OpenAI layer loads the model with the default window (it cannot set one)."""
        self._load(payload["model"], None)
        return Reply(text="(script exhausted)")

    def native_chats(self) -> list[dict[str, Any]]:
        with self._cond:
            return [body for path, body in self.native_requests if path == "/api/chat"]
