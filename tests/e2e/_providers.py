"""Scenarios shared by the CLI and language-server tests of the native providers: a turn that
thinks, reads README.md and answers, replayed as Anthropic's and OpenAI Responses' real-shaped
byte streams, and what the follow-up request must carry for each."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any

from tests.fakes.model_server import Reply
from tests.fakes.providers import (
    AnthropicTurn,
    ResponsesTurn,
    anthropic_error,
    anthropic_stream,
    replay,
    responses_stream,
)

ANSWER = "Start it with `make start` (after `make setup`)."
SIGNATURE = "ErUBCkYIBRgCIkDp2o0e9H3P+8y5YmZs2cKXq1v0bC/6sTq7yJgK4n0vQ0g8rS0w=="
REDACTED = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"
THOUGHT = "The user asks how to start the project. README.md should say; I will read it.\n"
ENCRYPTED = "gAAAAABor0AwVb1x8Hx_e2e-reasoning-blob-0d6c1f0c8a3e4b2f9a7d5c3b1e0f=="
SUMMARY = "**Reading README.md** to find the start command."
CALL_ID = {"anthropic": "toolu_01D7FLrfh4GYq7yT1ULFeyMV", "openai-responses": "call_r3adm3"}


@dataclass(frozen=True)
class Scenario:
    provider: str
    path: str
    """The endpoint path under the base URL."""

    def tool_turn(self) -> Reply:
        """Thinking, then a `read README.md` call."""
        if self.provider == "anthropic":
            turn = AnthropicTurn(
                thinking=[(THOUGHT, SIGNATURE)],
                redacted=[REDACTED],
                tools=[(CALL_ID[self.provider], "read", {"path": "README.md"})],
                input_tokens=10,
                cache_write=1500,
                cache_read=0,
                output_tokens=80,
            )
            return replay(anthropic_stream(turn))
        resp = ResponsesTurn(
            reasoning=[("rs_0a1b2c3d4e5f", SUMMARY, ENCRYPTED)],
            calls=[("fc_0a1b2c3d4e60", CALL_ID[self.provider], "read", {"path": "README.md"})],
            input_tokens=1510,
            cached_tokens=0,
            output_tokens=80,
        )
        return replay(responses_stream(resp))

    def answer(self, hold: threading.Event | None = None) -> Reply:
        """The final answer, served mostly from the prompt cache."""
        if self.provider == "anthropic":
            turn = AnthropicTurn(
                text=ANSWER,
                input_tokens=40,
                cache_read=1510,
                cache_write=0,
                output_tokens=20,
                hold_after_text=hold is not None,
            )
            return replay(anthropic_stream(turn), hold)
        resp = ResponsesTurn(
            text=ANSWER,
            input_tokens=1550,
            cached_tokens=1510,
            output_tokens=20,
            hold_after_text=hold is not None,
        )
        return replay(responses_stream(resp), hold)

    def rate_limited(self) -> Reply:
        if self.provider == "anthropic":
            body = anthropic_error("rate_limit_error", "This request would exceed the rate limit")
        else:
            body = '{"error":{"message":"Rate limit reached","type":"requests","code":null}}'
        return Reply(status=429, headers={"retry-after": "1"}, body=body)

    @property
    def usage(self) -> tuple[int, int, int]:
        """(input, cached, output) summed over both replies, as the usage line shows them."""
        return (1510 + 1550, 1510, 80 + 20)

    def check_follow_up(self, body: dict[str, Any], raw: bytes) -> None:
        """The second request carries the first reply's thinking exactly, before its call."""
        if self.provider == "anthropic":
            assistant = body["messages"][1]
            assert assistant["role"] == "assistant"
            assert assistant["content"] == [
                {"type": "thinking", "thinking": THOUGHT, "signature": SIGNATURE},
                {"type": "redacted_thinking", "data": REDACTED},
                {
                    "type": "tool_use",
                    "id": CALL_ID[self.provider],
                    "name": "read",
                    "input": {"path": "README.md"},
                },
            ]
            result = body["messages"][2]["content"][0]
            assert result["type"] == "tool_result"
            assert result["tool_use_id"] == CALL_ID[self.provider]
            assert "# Demo" in result["content"][0]["text"]
            # one breakpoint on the system prompt, one on the last message, and no more
            assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
            assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
            assert raw.count(b'"cache_control"') == 2
            assert json.dumps(THOUGHT).encode() in raw and SIGNATURE.encode() in raw
            return
        items = body["input"]
        kinds = [i.get("type", i.get("role")) for i in items]
        assert kinds == ["user", "reasoning", "function_call", "function_call_output"]
        assert items[1] == {
            "id": "rs_0a1b2c3d4e5f",
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": SUMMARY}],
            "encrypted_content": ENCRYPTED,
        }
        assert items[2]["call_id"] == CALL_ID[self.provider]
        assert items[2]["id"] == "fc_0a1b2c3d4e60"
        assert items[3]["call_id"] == CALL_ID[self.provider]
        assert "# Demo" in items[3]["output"]
        assert (body["store"], body["include"]) == (False, ["reasoning.encrypted_content"])


SCENARIOS = [Scenario("anthropic", "/v1/messages"), Scenario("openai-responses", "/v1/responses")]
