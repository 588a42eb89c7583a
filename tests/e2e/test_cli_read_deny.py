"""`Read` deny rules seen from a parent directory, in `ink-ls run` with real processes and the
real tools (rg, the file system): `Read(./secrets/**)` leaves secrets/ out of grep, find and ls
run on the workspace root (the model is told something was left out, never what), and refuses
bash commands that would walk secrets/ from above (`grep -r`, `rg`, `find .`), while a command
that does not walk the tree runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.e2e.test_cli_rules import tool_results, user_dir, write_json  # noqa: F401
from tests.e2e.test_cli_run import Run, env, fake, ink, ws  # noqa: F401 (fixtures)
from tests.fakes.model_server import FakeModelServer, text, tool

NOTE = "[Some paths were left out: the user's permission rules deny reading them.]"


async def test_a_read_deny_rule_hides_secrets_from_searches_of_the_root(
    ink: Callable[..., Any], fake: FakeModelServer, ws: Path, user_dir: Path
) -> None:
    write_json(user_dir / "settings.json", {"permissions": {"deny": ["Read(./secrets/**)"]}})
    (ws / "secrets").mkdir()
    (ws / "secrets" / "token.txt").write_text("password=hunter2\n")
    (ws / "notes.txt").write_text("password policy: long\n")
    fake.push(
        tool("grep", {"pattern": "password"}),
        tool("find", {"pattern": "*.txt"}),
        tool("ls", {}),
        tool("grep", {"pattern": "hunter2"}),
        tool("bash", {"command": "grep -r hunter2 ."}),
        tool("bash", {"command": "cd /tmp && rg hunter2 " + str(ws)}),
        tool("bash", {"command": "find . -name '*.txt' | xargs cat"}),
        tool("bash", {"command": "cat notes.txt"}),
        text("done"),
    )
    run: Run = await ink("--json", "--approval", "auto", "look for passwords")
    assert await run.finish() == 0, run.stderr
    grep, find, ls, nothing, grep_r, rg, find_sh, cat = tool_results(fake)
    assert grep == f"notes.txt:1: password policy: long\n\n{NOTE}"
    assert "password=hunter2" not in "".join([grep, find, ls, nothing, grep_r, rg, find_sh])
    assert find.splitlines()[0] == "notes.txt" and "secrets" not in find and NOTE in find
    assert NOTE in ls and "secrets" not in ls.replace(NOTE, "")
    assert nothing.startswith("No matches for hunter2") and nothing.endswith(NOTE)
    rule = 'deny rule "Read(./secrets/**)" (permissions.deny[0] in '
    for refused, command in (
        (grep_r, "grep -r hunter2 ."),
        (rg, f"rg hunter2 {ws}"),
        (find_sh, "find . -name '*.txt'"),
    ):
        assert refused.startswith(f'Tool "bash" blocked by permission rule: {rule}'), refused
        assert f"`{command}` (it reads " in refused
    assert "password policy: long" in cat
