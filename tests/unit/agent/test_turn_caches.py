"""What a turn keeps from the turns before it: the wire form of the history (forgotten when a
compaction replaces the history) and which messages' paths were already looked at for
project instructions (a later turn's new directory still brings its AGENTS.md)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

from agent_fakes import Recorder, ScriptedModel, reply

from ink_ls.agent.events import InstructionsEvent
from ink_ls.agent.instructions import ProjectInstructions
from ink_ls.agent.loop import Agent, AgentOptions
from ink_ls.core.config import ModelSettings
from ink_ls.core.messages import AssistantMessage, Message, ToolCall, user_text
from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import ToolRegistry
from ink_ls.model.base import ModelRequest, StreamItem
from ink_ls.model.chat import ChatDialect
from ink_ls.model.wire import WireCache, dumps, encode_body
from ink_ls.tools.read import ReadTool

SETTINGS = ModelSettings(model="m")


class BodyModel(ScriptedModel):
    """A scripted model that builds each request's body as the HTTP client does, and checks it
    against the body built without the cache."""

    bodies: list[bytes]

    def __init__(self, steps: list[AssistantMessage]) -> None:
        super().__init__(list(steps))
        self.bodies = []

    async def stream(
        self, request: ModelRequest, signal: CancelSignal
    ) -> AsyncIterator[StreamItem]:
        if request.wire is not None:  # a conversation's request (not a summary's)
            body = encode_body(ChatDialect().body(request, SETTINGS))
            plain = ModelRequest(request.system, request.messages, request.tools)
            assert body == dumps(ChatDialect().body(plain, SETTINGS)).encode()
            self.bodies.append(body)
        async for item in super().stream(request, signal):
            yield item


def agent_for(
    model: ScriptedModel, tmp_path: Path, history: list[Message], wire: WireCache, **kw: object
) -> Agent:
    return Agent(
        model,
        ToolRegistry([ReadTool()]),
        AgentOptions(cwd=tmp_path, context_window=4096),
        history=history,
        wire=wire,
        **kw,  # type: ignore[arg-type]
    )


async def test_turns_reuse_the_wire_form_and_a_compaction_forgets_it(tmp_path: Path) -> None:
    history: list[Message] = []
    wire = WireCache()
    model = BodyModel([reply(f"answer {i}") for i in range(4)] + [reply("the summary")])
    for i in range(4):  # a new agent per turn, as the turn builder makes them
        await agent_for(model, tmp_path, history, wire).run("x" * 300 + str(i))
        # each turn converts its prompt (its reply is converted by the next turn)
        assert wire.converted == 2 * i + 1
    before = wire.converted
    compaction = await agent_for(model, tmp_path, history, wire).compact()
    assert compaction is not None and "the summary" in json.dumps(history[0].model_dump())
    model.steps.append(reply("after"))
    await agent_for(model, tmp_path, history, wire).run("next")
    # forgotten: the whole compacted history (summary, kept tail, new prompt) converted again
    assert wire.converted - before == len(history) - 1
    assert b"the summary" in model.bodies[-1]


async def test_a_later_turn_still_loads_the_instructions_of_a_new_directory(
    tmp_path: Path,
) -> None:
    (tmp_path / "AGENTS.md").write_text("root rule\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "AGENTS.md").write_text("pkg rule\n")
    (tmp_path / "pkg" / "m.py").write_text("x = 1\n")
    (tmp_path / "a.py").write_text("y = 2\n")
    history: list[Message] = []
    wire, instructions = WireCache(), ProjectInstructions(tmp_path)

    def read(path: str, n: int) -> AssistantMessage:
        args = json.dumps({"path": path})
        return AssistantMessage(tool_calls=[ToolCall(id=f"c{n}", name="read", arguments=args)])

    model = BodyModel([read("a.py", 1), reply("one"), read("pkg/m.py", 2), reply("two")])
    loaded: list[list[str]] = []
    for _ in range(2):
        rec = Recorder()
        agent = agent_for(model, tmp_path, history, wire, instructions=instructions, on_event=rec)
        await agent.run("go")
        loaded.append(
            [Path(p).name for e in rec.events if isinstance(e, InstructionsEvent) for p in e.paths]
        )
    assert loaded == [["AGENTS.md"], ["AGENTS.md"]]
    assert "pkg rule" in instructions.render()
    assert b"pkg rule" in model.bodies[-1]  # in the system prompt of the last request


def test_unscanned_hands_out_what_the_history_added_and_all_after_a_replacement(
    tmp_path: Path,
) -> None:
    found = ProjectInstructions(tmp_path)
    history: list[Message] = [user_text("a"), AssistantMessage(text="b")]
    assert found.unscanned(history) == history
    history.append(user_text("c"))
    assert found.unscanned(history) == [history[2]]
    assert found.unscanned(history) == []
    history[:] = [user_text("summary"), history[2]]  # a compaction or a rewind
    assert found.unscanned(history) == history


def test_a_resumed_session_looks_at_its_whole_history(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "AGENTS.md").write_text("pkg rule\n")
    call = ToolCall(id="c", name="read", arguments=json.dumps({"path": "pkg/m.py"}))
    history: list[Message] = [user_text("go"), AssistantMessage(tool_calls=[call])]
    agent = agent_for(
        ScriptedModel([]),
        tmp_path,
        history,
        WireCache(),
        instructions=ProjectInstructions(tmp_path),
    )
    agent.context.start(history, agent.tools, tmp_path)
    assert agent.context.instructions is not None
    assert "pkg rule" in agent.context.instructions.render()
