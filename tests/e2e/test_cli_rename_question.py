"""`ink-ls run --approval ask` on a real terminal (a pty) with the `lsp` tool's rename, ink-ls
starting jedi-language-server itself: the one question of the rename shows every file's diff
before it is asked, and one answer writes all three files."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from tests.e2e._pty import WAIT, ink_run_on_pty
from tests.e2e.test_cli_lsp import MAIN, OTHER, UTIL, _project
from tests.e2e.test_cli_terminal import fake  # noqa: F401  (fixture)
from tests.fakes.model_server import FakeModelServer, text, tool

RENAME = {"operation": "rename", "path": "pkg/util.py", "line": 1, "symbol": "greet"}


async def test_the_rename_question_shows_every_files_diff(
    fake: FakeModelServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    _project(ws)
    fake.push(tool("lsp", {**RENAME, "new_name": "salute"}), text("Renamed."))
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    env.update(
        INK_STATE_DIR=str(tmp_path / "state"),
        INK_BASE_URL=fake.base_url,
        INK_MODEL="fake-model",
        TERM="xterm-256color",
        COLUMNS="200",
    )
    # jedi-language-server is found beside ink-ls's own interpreter
    async with ink_run_on_pty("--cwd", str(ws), "rename greet", env=env) as (proc, term):
        await term.wait_for("Change 3 files (pkg/main.py, pkg/other.py, pkg/util.py)?  [y]es")
        shown = term.text
        term.type("y\n")
        assert await asyncio.wait_for(proc.wait(), WAIT) == 0, term.text
    question = shown[: shown.rindex("Change 3 files")]
    # every file's diff, in the order of the title, before the one question
    heads = [question.index(f"--- pkg/{name}") for name in ("main.py", "other.py", "util.py")]
    assert heads == sorted(heads), question
    assert "-1 def greet(name: str) -> str:" in question
    assert "+1 def salute(name: str) -> str:" in question
    assert '+5     return salute("world")' in question  # main.py
    assert '+3 print(salute("x"))' in question  # other.py, the third file
    assert shown.count("[y]es") == 1  # one decision for the rename
    assert (ws / "pkg" / "util.py").read_text() == UTIL.replace("greet", "salute")
    assert (ws / "pkg" / "main.py").read_text() == MAIN.replace("greet", "salute")
    assert (ws / "pkg" / "other.py").read_text() == OTHER.replace("greet", "salute")
