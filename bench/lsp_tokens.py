"""What finding a function's callers costs in tool output: grep + read vs one `lsp` call.

`.venv/bin/python bench/lsp_tokens.py` — builds a 200-file Python repository in a temp dir
(one function, `compute_total`, called from 40 files, named in comments and strings of 30
more, and a look-alike `compute_totals` in 20), then asks ink-ls's own tools the way a model
would: `grep` for the name and `read` every file it lists (the model must see each match in
its function to tell a call from a mention), against one `lsp` `references` or
`incoming_calls` call answered by jedi-language-server through the langserver pool.

The figures are the estimated tokens (`agent.tokens.estimate_text`) of the tool calls and
their outputs, i.e. what the model would have to read; not a live model's spend (no model
runs here: a real model also spends tokens on its own reasoning and may read fewer or more).
jedi-language-server's references are incomplete on this repository: jedi parses at most 30
files per search (`jedi.inference.references._PARSED_FILE_LIMIT`), so the count of locations
found is printed beside the tokens; and it has no call hierarchy (`incoming_calls`).
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ink_ls.agent.factory import AgentFactory  # noqa: E402
from ink_ls.agent.tokens import estimate_text  # noqa: E402
from ink_ls.core.config import ModelSettings  # noqa: E402
from ink_ls.core.signal import NEVER  # noqa: E402
from ink_ls.core.tool import AnyTool, ToolContext  # noqa: E402

FILES = 200
CALLERS = 40
MENTIONS = 30
LOOKALIKES = 20
TARGET = "compute_total"


def _filler(rng: random.Random, n: int) -> str:
    """`n` small functions of plausible code."""
    out = []
    for i in range(n):
        out.append(
            f"def helper_{i}(values, scale={rng.randint(1, 9)}):\n"
            f'    """Scale and filter the values (step {i})."""\n'
            f"    kept = [v * scale for v in values if v > {rng.randint(0, 50)}]\n"
            "    return sorted(kept)\n\n"
        )
    return "".join(out)


def build(root: Path) -> Path:
    """The repository; returns the file that defines the function."""
    rng = random.Random(27)
    pkg = root / "shop"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    core = pkg / "core.py"
    core.write_text(
        "from decimal import Decimal\n\n\n"
        f"def {TARGET}(items):\n"
        '    """The order total."""\n'
        "    return sum((Decimal(i.price) * i.qty for i in items), Decimal(0))\n\n\n"
        f"def {TARGET}s(orders):\n"
        f"    return [{TARGET}(o.items) for o in orders]\n"
    )
    kinds = (
        ["caller"] * CALLERS
        + ["mention"] * MENTIONS
        + ["lookalike"] * LOOKALIKES
        + ["plain"] * (FILES - 2 - CALLERS - MENTIONS - LOOKALIKES)
    )
    rng.shuffle(kinds)
    for n, kind in enumerate(kinds):
        head, body = "", ""
        if kind == "caller":
            head = f"from shop.core import {TARGET}\n\n\n"
            body = (
                f"def checkout_{n}(cart):\n"
                f"    total = {TARGET}(cart.items)\n"
                "    return total.quantize(1)\n\n\n"
            )
        elif kind == "mention":
            body = f'# see {TARGET} in shop.core for the rounding rules\nNOTE = "{TARGET}"\n\n\n'
        elif kind == "lookalike":
            head = f"from shop.core import {TARGET}s\n\n\n"
            body = f"def report_{n}(orders):\n    return {TARGET}s(orders)\n\n\n"
        split = rng.randint(2, 8)
        text = head + _filler(rng, split) + body + _filler(rng, rng.randint(4, 12))
        (pkg / f"mod_{n:03d}.py").write_text(text)
    return core


async def _call(tool: AnyTool, args: dict[str, Any], root: Path) -> tuple[int, str, float]:
    """(tokens of the call and its output, the output, seconds)."""
    started = time.perf_counter()
    result = await tool.execute(tool.validate_arguments(args), NEVER, ToolContext("b", root))
    seconds = time.perf_counter() - started
    tokens = estimate_text(json.dumps(args)) + estimate_text(result.output)
    return tokens, result.output, seconds


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        core = build(root)
        factory = AgentFactory()
        settings = ModelSettings()
        tools = factory.tools(root, settings)
        grep, read = tools.get("grep"), tools.get("read")
        [lsp] = factory.lsp_tools(root, {}, settings)
        assert grep is not None and read is not None
        try:
            # limit 1000: what the grep tool's own hint says to do when 100 lines are not all
            grep_tokens, listing, _ = await _call(grep, {"pattern": TARGET, "limit": 1000}, root)
            files = sorted({ln.split(":", 1)[0] for ln in listing.splitlines() if ".py:" in ln})
            read_tokens = 0
            for name in files:
                tokens, _, _ = await _call(read, {"path": name}, root)
                read_tokens += tokens
            precise_tokens, calls_only, _ = await _call(
                grep, {"pattern": rf"\b{TARGET}\(", "limit": 1000}, root
            )
            called = sorted({ln.split(":", 1)[0] for ln in calls_only.splitlines() if ".py:" in ln})
            for name in called:
                tokens, _, _ = await _call(read, {"path": name}, root)
                precise_tokens += tokens
            at = {"path": str(core.relative_to(root)), "line": 4, "symbol": TARGET}
            ref_tokens, refs, first = await _call(lsp, {"operation": "references", **at}, root)
            _, _, warm = await _call(lsp, {"operation": "references", **at}, root)
            inc_tokens, calls, _ = await _call(lsp, {"operation": "incoming_calls", **at}, root)
        finally:
            await factory.close_language_servers()
    found = sum(1 for ln in refs.splitlines() if ": " in ln)
    expected = 2 + 2 * CALLERS  # the definition, its use in core.py, an import and a call each
    callers = len({ln.split(":", 1)[0] for ln in refs.splitlines() if "mod_" in ln})
    print(f"repository: {FILES} files, {CALLERS} calling {TARGET}(), {MENTIONS} mentioning it,")
    print(f"  {LOOKALIKES} calling {TARGET}s(); tokens = estimate_text of calls and outputs")
    print(f"grep {TARGET!r}: {grep_tokens:,} tokens, lists {len(files)} files")
    print(f"  + read each listed file: {read_tokens:,} tokens")
    print(f"  grep + read: {grep_tokens + read_tokens:,} tokens")
    print(f"grep '\\b{TARGET}\\(' + read the {len(called)} files: {precise_tokens:,} tokens")
    print(f"lsp references: {ref_tokens:,} tokens, {found} of {expected} locations, {callers} of")
    print(f"  {CALLERS} calling files ({first:.2f} s with the server's start, {warm:.2f} s warm)")
    print(f"lsp incoming_calls: {inc_tokens:,} tokens: {calls.splitlines()[0][:90]}")
    print(f"ratio grep+read / lsp references: {(grep_tokens + read_tokens) / ref_tokens:.1f}x")
    print("(tool-output token cost only, not a live model's spend)")
    if "--show" in sys.argv:
        print(refs, calls, sep="\n\n")


if __name__ == "__main__":
    asyncio.run(main())
