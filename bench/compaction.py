"""Long sessions under a small window, run on demand: `.venv/bin/python bench/compaction.py`.

A 200-prompt session (each prompt: one `read` of a ~2 KB file, then an answer) with the real
agent, the real OpenAI client and tools, against the scripted model of `tests/fakes/windowed.py`
(loopback HTTP; a token is 4 characters of the request's JSON; it refuses what does not fit).
Reports:
1. tokens sent per conversation request (max, median) against the window, and what the last
   request would have held without compaction (the history's estimate);
2. the time compaction adds: the summaries' share of the session's wall time, and the median
   summary against the median ordinary model request of the same run (the baseline).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ink_ls.agent.events import AgentEvent, CompactionEvent, MessageEndEvent  # noqa: E402
from ink_ls.agent.factory import AgentFactory, AgentParts  # noqa: E402
from ink_ls.agent.tokens import estimate_fixed, estimate_message  # noqa: E402
from ink_ls.core.config import ModelSettings  # noqa: E402
from ink_ls.core.messages import Message  # noqa: E402
from tests.fakes.model_server import FakeModelServer  # noqa: E402
from tests.fakes.windowed import WindowedModel  # noqa: E402


async def session(root: Path, base_url: str, window: int, prompts: int) -> dict[str, float]:
    settings = ModelSettings(base_url=base_url, model="fake-model", context_window=window)
    factory = AgentFactory()
    full: list[Message] = []
    compactions: list[float] = []
    replies: list[float] = []
    started = [time.perf_counter()]

    def on_event(event: AgentEvent) -> None:
        now = time.perf_counter()
        if isinstance(event, CompactionEvent) and event.phase == "end":
            compactions.append((event.duration_ms or 0) / 1000)
        elif isinstance(event, MessageEndEvent):
            replies.append(now - started[0])
        started[0] = now

    agent = factory.build(
        AgentParts(settings=settings, cwd=root, on_event=on_event, on_message=full.append),
        context_window=await factory.window(settings),
    )
    tools = agent.tools
    t0 = time.perf_counter()
    for n in range(prompts):
        started[0] = time.perf_counter()
        result = await agent.run(f"check f{n % 10}.txt (turn {n})")
        assert result.stop_reason == "completed", result.error
    wall = time.perf_counter() - t0
    await factory.close_models()
    uncompacted = estimate_fixed(agent.options.system_prompt, tools.schemas()) + sum(
        estimate_message(m) for m in full
    )
    return {
        "wall": wall,
        "compactions": len(compactions),
        "compaction_time": sum(compactions),
        "compaction_median": statistics.median(compactions) if compactions else 0.0,
        "reply_median": statistics.median(replies),
        "uncompacted": uncompacted,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--window", type=int, default=8_192)
    parser.add_argument("--prompts", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as srv:
        root = Path(tmp)
        for i in range(10):
            (root / f"f{i}.txt").write_text(
                "".join(f"line {n} of file {i}: the quick brown fox jumps\n" for n in range(40))
            )
        scripted = WindowedModel(args.window, reads=1)
        srv.default = scripted
        figures = asyncio.run(session(root, srv.base_url, args.window, args.prompts))
    sent = [s.tokens for s in scripted.conversation()]
    refused = sum(1 for s in scripted.seen if s.refused)
    print(
        f"session: {args.prompts} prompts, {len(sent)} conversation requests, window "
        f"{args.window:,} tokens, {figures['compactions']:.0f} compactions, {refused} refused"
    )
    print(
        f"tokens per request: max {max(sent):,} ({100 * max(sent) / args.window:.0f} % of the "
        f"window), median {statistics.median(sent):,.0f} "
        f"({100 * statistics.median(sent) / args.window:.0f} %)"
    )
    print(
        f"without compaction the last request would hold ~{figures['uncompacted']:,.0f} tokens "
        f"({figures['uncompacted'] / args.window:.1f}x the window)"
    )
    share = 100 * figures["compaction_time"] / figures["wall"]
    print(
        f"time: session {figures['wall']:.2f} s, compaction {figures['compaction_time']:.2f} s "
        f"({share:.1f} %); median summary {1000 * figures['compaction_median']:.1f} ms vs "
        f"median model request {1000 * figures['reply_median']:.1f} ms "
        f"({figures['compaction_median'] / figures['reply_median']:.2f}x)"
    )


if __name__ == "__main__":
    main()
