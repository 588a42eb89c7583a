"""Live command output over ACP: terminal chunks for a terminal-showing client, else the
output so far as text content."""

from __future__ import annotations

from acp.schema import ClientCapabilities

from ink_ls.acp.terminal import LIVE_CAP, LiveOutput, display_terminal


def test_only_a_client_announcing_both_gets_terminals() -> None:
    assert not display_terminal(ClientCapabilities())
    assert not display_terminal(ClientCapabilities(terminal=True))
    assert display_terminal(ClientCapabilities(terminal=True, field_meta={"terminal_output": True}))


def test_text_content_accumulates_and_is_capped() -> None:
    live = LiveOutput()
    assert live.started("c1", "bash") == ([], None)
    live.output("c1", "1\n")
    update = live.output("c1", "2\n")
    assert update.content is not None
    assert update.content[0].model_dump()["content"]["text"] == "```console\n1\n2\n```"
    big = live.output("c1", "x" * (LIVE_CAP * 2))
    assert big.content is not None
    assert len(big.content[0].model_dump()["content"]["text"]) < LIVE_CAP + 40


def test_terminal_chunks_then_exit() -> None:
    live = LiveOutput()
    live.terminals = True
    content, meta = live.started("c1", "bash")
    assert [c.model_dump(by_alias=True) for c in content] == [
        {"type": "terminal", "terminalId": "c1", "_meta": None}
    ]
    assert meta == {"terminal_info": {"terminal_id": "c1"}}
    chunk = live.output("c1", "1\n")
    assert chunk.content is None
    assert chunk.field_meta == {"terminal_output": {"terminal_id": "c1", "data": "1\n"}}
    _, end = live.ended("c1", [], failed=True, output="stdout:\nx\n\nExit code: 3")
    assert end == {"terminal_exit": {"terminal_id": "c1", "exit_code": 3, "signal": None}}
    assert live.started("c2", "read") == ([], None)  # only commands are terminals
