"""The user's files through the real server and the real CLI: a planted link at a temp name is
never followed, a full disk (a real 64k tmpfs) leaves the original intact and no temp file,
permission bits survive, and editing a symlink changes its target while the link stays a link.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.e2e._tmpfs import fill, small_tmpfs
from tests.e2e.conftest import Starter, tool_results
from tests.e2e.test_cli_run import Run, env, fake, ink, ws  # noqa: F401  (fixtures)
from tests.fakes.model_server import FakeModelServer, text, tool

ORIGINAL = "echo original\n"
BIG = "x" * 100_000 + "\n"


def _edit(path: str) -> dict[str, Any]:
    return {"path": path, "edits": [{"oldText": "original", "newText": "changed"}]}


def _leftovers(directory: Path, *keep: str) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name not in keep)


# ---- the server (approval auto: files not open in the editor are written by the server) ----


async def test_server_never_follows_a_link_planted_at_the_old_temp_name(
    start: Starter, model: FakeModelServer, tmp_path: Path
) -> None:
    client = await start(approval="auto")
    target = client.workspace / "app.py"
    target.write_text(ORIGINAL)
    outside = tmp_path / "outside.txt"
    outside.write_text("not yours\n")
    (client.workspace / ".app.py.ink-tmp").symlink_to(outside)
    model.push(tool("edit", _edit("app.py")), text("done"))
    assert (await client.prompt("change it"))["stopReason"] == "end_turn"
    assert outside.read_text() == "not yours\n"
    assert target.read_text() == "echo changed\n" and not target.is_symlink()
    assert _leftovers(client.workspace, "README.md", "app.py", ".app.py.ink-tmp") == []


async def test_server_keeps_modes_and_symlinks(start: Starter, model: FakeModelServer) -> None:
    client = await start(approval="auto")
    ws_root = client.workspace
    script, private = ws_root / "run.sh", ws_root / "secret.env"
    for path, mode in ((script, 0o755), (private, 0o600)):
        path.write_text(ORIGINAL)
        path.chmod(mode)
    (ws_root / "real").mkdir()
    (ws_root / "real" / "target.py").write_text(ORIGINAL)
    (ws_root / "link.py").symlink_to("real/target.py")
    model.push(
        tool("edit", _edit("run.sh")),
        tool("edit", _edit("secret.env")),
        tool("write", {"path": "link.py", "content": "echo written\n"}),
        text("done"),
    )
    assert (await client.prompt("change them"))["stopReason"] == "end_turn"
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert script.read_text() == private.read_text() == "echo changed\n"
    assert (ws_root / "link.py").is_symlink()
    assert os.readlink(ws_root / "link.py") == "real/target.py"
    assert (ws_root / "real" / "target.py").read_text() == "echo written\n"
    assert _leftovers(ws_root / "real", "target.py") == []


async def test_server_full_disk_leaves_the_original_and_tells_the_model(
    start: Starter, model: FakeModelServer
) -> None:
    client = await start(approval="auto")
    with small_tmpfs(client.workspace / "full") as full:
        (full / "data.txt").write_text(ORIGINAL)
        fill(full)
        model.push(tool("write", {"path": "full/data.txt", "content": BIG}), text("ok"))
        assert (await client.prompt("write a lot"))["stopReason"] == "end_turn"
        assert (full / "data.txt").read_text() == ORIGINAL
        assert _leftovers(full, "data.txt", "filler") == []
    (output,) = tool_results(model.wait_requests(2)[1])
    assert "Error writing full/data.txt: No space left on device" in output
    assert "data.txt was left unchanged" in output


# ---- the CLI ---------------------------------------------------------------------------------


async def test_cli_full_disk_leaves_the_original(
    ink: Callable[..., Any],
    fake: FakeModelServer,
    ws: Path,  # noqa: F811
) -> None:
    with small_tmpfs(ws / "full") as full:
        (full / "data.txt").write_text(ORIGINAL)
        fill(full)
        fake.push(tool("write", {"path": "full/data.txt", "content": BIG}), text("ok"))
        run: Run = await ink("--json", "--approval", "auto", "write a lot")
        await run.finish()
        assert (full / "data.txt").read_text() == ORIGINAL
        assert _leftovers(full, "data.txt", "filler") == []
    (end,) = [e for e in run.events if e["type"] == "tool_end"]
    assert end["is_error"] is True
    output = fake.wait_requests(2)[1]["messages"][-1]["content"]
    assert "No space left on device" in output and "left unchanged" in output


async def test_cli_keeps_modes_and_symlinks(
    ink: Callable[..., Any],
    fake: FakeModelServer,
    ws: Path,  # noqa: F811
) -> None:
    script = ws / "run.sh"
    script.write_text(ORIGINAL)
    script.chmod(0o755)
    (ws / "real").mkdir()
    (ws / "real" / "target.py").write_text(ORIGINAL)
    (ws / "link.py").symlink_to("real/target.py")
    fake.push(tool("edit", _edit("run.sh")), tool("edit", _edit("link.py")), text("done"))
    run: Run = await ink("--json", "--approval", "auto", "change them")
    assert await run.finish() == 0, run.stderr
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert script.read_text() == "echo changed\n"
    assert (ws / "link.py").is_symlink()
    assert (ws / "real" / "target.py").read_text() == "echo changed\n"
    assert _leftovers(ws, "README.md", "run.sh", "real", "link.py") == []


async def test_cli_full_output_logs_are_removed_at_exit(
    ink: Callable[..., Any],
    fake: FakeModelServer,
    env: dict[str, str],  # noqa: F811
    tmp_path: Path,
) -> None:
    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    env["TMPDIR"] = str(tmpdir)
    fake.push(tool("bash", {"command": "seq 1 3000"}), text("long"))
    run: Run = await ink("--json", "--approval", "auto", "count")
    assert await run.finish() == 0, run.stderr
    output = fake.wait_requests(2)[1]["messages"][-1]["content"]
    log = output.split("Full output: ", 1)[1].split(" ", 1)[0]
    assert Path(log).parent.parent == tmpdir  # it was written, in a per-process directory
    assert list(tmpdir.iterdir()) == []  # and removed with it when ink-ls run exited
