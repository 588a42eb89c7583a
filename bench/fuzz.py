"""Fuzz the input parsers of the front ends through the real processes, with hypothesis.

    python bench/fuzz.py [--seconds 600] [--targets lsp,acp]

`lsp` writes to `python -m ink_ls --stdio`: framed bodies (random bytes, random JSON, JSON-RPC
shaped messages with random methods, ids and params) and raw byte junk (bad headers, lengths
that lie). `acp` writes lines to `python -m ink_ls --acp`: random bytes, random JSON, JSON-RPC
shaped messages. After every input a probe request must be answered, every fuzzed request
with an id must get its answer (result or error), the process must stay alive, and its stderr
must never show a traceback. Each target gets half the time; figures are printed at the end.
Models point at a closed port and approvals are `readonly`: nothing a fuzzed request asks
for can act. `tests/e2e/test_fuzz.py` runs a short round of the same thing.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

ANSWER_WAIT = 20.0
"""Seconds an answer may take (a header whose length lies stalls the LSP reader ~5 s)."""

LSP_METHODS = [
    "initialize",
    "initialized",
    "textDocument/didOpen",
    "textDocument/didChange",
    "textDocument/didClose",
    "textDocument/codeAction",
    "workspace/executeCommand",
    "workspace/didChangeConfiguration",
    "$/cancelRequest",
    "ink/session/prompt",
    "ink/session/cancel",
    "ink/session/list",
    "ink/session/close",
    "ink/session/compact",
    "ink/session/load",
    "ink/tools",
    "ink/mcp/status",
    "ink/diagnostics",
]
"""`shutdown` and `exit` are left out: they end the server, as they should."""
ACP_METHODS = [
    "initialize",
    "authenticate",
    "session/new",
    "session/load",
    "session/list",
    "session/prompt",
    "session/cancel",
    "session/set_mode",
    "session/set_config_option",
]

_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40)
)
json_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=25,
)


def rpc_messages(methods: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """JSON-RPC shaped objects: often right, often subtly wrong."""
    return st.fixed_dictionaries(
        {},
        optional={
            "jsonrpc": st.sampled_from(["2.0", "2.0", "2.0", "1.0", 2]),
            "id": st.integers(min_value=-5, max_value=10**6) | st.text(max_size=8) | json_values,
            "method": st.sampled_from(methods) | st.text(max_size=20) | json_values,
            "params": json_values,
            "result": json_values,
            "error": json_values,
        },
    )


SESSION = "<the session>"
"""Replaced by the id of a real session (ACP), so prompts and mode changes reach a session."""
PARAM_KEYS = [
    "sessionId",
    "cwd",
    "prompt",
    "modeId",
    "protocolVersion",
    "clientCapabilities",
    "textDocument",
    "contentChanges",
    "uri",
    "text",
    "range",
    "context",
    "command",
    "arguments",
    "settings",
    "id",
    "compact",
]
_param_values = json_values | st.just(SESSION) | st.just([{"type": "text", "text": "hi"}])


def requests(methods: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """Well-formed envelopes of real methods with random params: what reaches the handlers."""
    params = st.dictionaries(st.sampled_from(PARAM_KEYS), _param_values, max_size=5)
    return st.builds(
        lambda method, p, msg_id: (
            {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": p}
            if msg_id is not None
            else {"jsonrpc": "2.0", "method": method, "params": p}
        ),
        st.sampled_from(methods),
        params | json_values,
        st.integers(min_value=0, max_value=10**6) | st.none(),
    )


def _encode(value: Any) -> bytes:
    return json.dumps(value).encode()


def bodies(methods: list[str]) -> st.SearchStrategy[bytes]:
    """One message's bytes: random bytes, random JSON, or a JSON-RPC shaped object."""
    return st.one_of(
        st.binary(max_size=200),
        json_values.map(_encode),
        rpc_messages(methods).map(_encode),
        requests(methods).map(_encode),
        requests(methods).map(_encode),
    )


@dataclass
class Figures:
    """What a fuzz run found."""

    inputs: int = 0
    crashes: int = 0
    unanswered: int = 0
    tracebacks: int = 0
    resyncs: int = 0
    """Probes lost to raw junk that swallowed their header (a second probe was answered)."""
    errors: Counter[int] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    internal: list[str] = field(default_factory=list)
    """Inputs answered with -32603 (internal error), with the error."""

    def line(self, name: str, seconds: float) -> str:
        codes = ", ".join(f"{code}: {n}" for code, n in sorted(self.errors.items()))
        return (
            f"{name}: {self.inputs} inputs in {seconds:.0f} s, {self.crashes} crashes, "
            f"{self.unanswered} unanswered, {self.tracebacks} tracebacks, {self.resyncs} probes "
            f"lost to junk that swallowed their header; errors answered "
            f"by code: {codes or 'none'}"
        )


class Target:
    """One front-end process: bytes in, messages out (a reader thread), stderr to a file."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path, *, framed: bool) -> None:
        self.framed = framed
        self.stderr_path = Path(tempfile.mkstemp(prefix="ink-fuzz-", suffix=".log")[1])
        self._stderr = open(self.stderr_path, "wb")  # closed by `close`
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
            cwd=cwd,
        )
        self.inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.answers: dict[Any, dict[str, Any]] = {}
        self.received: list[dict[str, Any]] = []
        self._stderr_seen = 0
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        self._probe = 0
        self.session = ""
        """A real session's id, where the front end has one to offer."""

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        try:
            while True:
                message = _read_frame(out) if self.framed else _read_line(out)
                if message is None:
                    break
                self.inbox.put(message)
        finally:
            self.inbox.put(None)

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def message(self, body: bytes) -> bytes:
        if self.framed:
            return b"Content-Length: %d\r\n\r\n" % len(body) + body
        return body.replace(b"\n", b" ") + b"\n"

    def wait_answer(self, msg_id: Any, timeout: float = ANSWER_WAIT) -> dict[str, Any] | None:
        """The answer with `msg_id` (answers to other ids are kept for later)."""
        deadline = time.monotonic() + timeout
        while msg_id not in self.answers:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                message = self.inbox.get(timeout=left)
            except queue.Empty:
                return None
            if message is None:
                return None
            if "method" not in message:
                self.answers[message.get("id")] = message
                self.received.append(message)
        return self.answers.pop(msg_id)

    def probe(self, method: str, params: dict[str, Any]) -> bool:
        self._probe += 1
        msg_id = f"probe-{self._probe}"
        body = {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}
        self.send(self.message(_encode(body)))
        return self.wait_answer(msg_id) is not None

    def alive(self) -> bool:
        return self.proc.poll() is None

    def new_stderr(self) -> str:
        """What the process wrote on stderr since the last call."""
        self._stderr.flush()
        with open(self.stderr_path, "rb") as fh:
            fh.seek(self._stderr_seen)
            data = fh.read()
        self._stderr_seen += len(data)
        return data.decode(errors="replace")

    def close(self) -> None:
        if self.proc.stdin is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._thread.join(15)  # it ends at the end of the output
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._stderr.close()
        self.stderr_path.unlink(missing_ok=True)


def _read_frame(out: IO[bytes]) -> dict[str, Any] | None:
    length = None
    while True:
        line = out.readline()
        if not line:
            return None
        if line == b"\r\n":
            break
        name, _, value = line.decode("latin-1").partition(":")
        if name.lower() == "content-length":
            length = int(value)
    assert length is not None
    message: dict[str, Any] = json.loads(out.read(length))
    return message


def _read_line(out: IO[bytes]) -> dict[str, Any] | None:
    line = out.readline()
    if not line:
        return None
    message: dict[str, Any] = json.loads(line)
    return message


def _unique_id(body: bytes, n: int) -> tuple[bytes, str | None]:
    """`body` with a valid request id replaced by a unique one (to wait for its answer)."""
    try:
        value = json.loads(body)
    except ValueError:
        return body, None
    if not isinstance(value, dict) or "id" not in value:
        return body, None
    old = value["id"]
    valid = isinstance(old, str) or (isinstance(old, int) and not isinstance(old, bool))
    if not (valid and isinstance(value.get("method"), str) and value.get("jsonrpc") == "2.0"):
        return body, None
    value["id"] = f"fuzz-{n}"
    if isinstance(value.get("params"), dict):
        value["params"].pop("mcpServers", None)  # never start a fuzzed command
        value["params"].pop("mcp_servers", None)
    return _encode(value), value["id"]


@dataclass
class Spec:
    """How to start and probe one front end."""

    name: str
    argv: list[str]
    framed: bool
    methods: list[str]
    start: Callable[[Target, Path], None]
    probe: tuple[str, dict[str, Any]]


def _lsp_start(target: Target, ws: Path) -> None:
    init = {
        "processId": None,
        "rootUri": ws.as_uri(),
        "capabilities": {},
        "initializationOptions": {"ink": {"approval": "readonly"}},
    }
    assert target.probe("initialize", init), "the server did not initialize"
    target.send(target.message(_encode({"jsonrpc": "2.0", "method": "initialized", "params": {}})))


def _acp_start(target: Target, ws: Path) -> None:
    assert target.probe("initialize", {"protocolVersion": 1}), "the agent did not initialize"
    body = {"jsonrpc": "2.0", "id": "new", "method": "session/new"}
    target.send(target.message(_encode({**body, "params": {"cwd": str(ws), "mcpServers": []}})))
    answer = target.wait_answer("new")
    assert answer is not None and "result" in answer, answer
    target.session = answer["result"]["sessionId"]


SPECS = {
    "lsp": Spec(
        "lsp",
        ["-m", "ink_ls", "--stdio", "--log-level", "warning"],
        True,
        LSP_METHODS,
        _lsp_start,
        ("ink/tools", {}),
    ),
    "acp": Spec(
        "acp",
        ["-m", "ink_ls", "--acp"],
        False,
        ACP_METHODS,
        _acp_start,
        ("initialize", {"protocolVersion": 1}),
    ),
}


def fuzz(name: str, seconds: float, root: Path) -> Figures:
    """Fuzz one front end for `seconds`; the figures."""
    spec = SPECS[name]
    ws = root / "ws"
    ws.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "PYTHONPATH")}
    env.update(
        INK_STATE_DIR=str(root / "state"),
        XDG_CONFIG_HOME=str(root / "config"),
        INK_BASE_URL="http://127.0.0.1:9/v1",
        INK_MODEL="fuzz",
        TMPDIR=str(root),
    )
    figures = Figures()
    holder: list[Target] = []

    def fresh() -> Target:
        target = Target([sys.executable, *spec.argv], env, ws, framed=spec.framed)
        spec.start(target, ws)
        return target

    holder.append(fresh())
    deadline = time.monotonic() + seconds
    raw_junk = st.binary(max_size=120).map(lambda b: (b, True))
    inputs = bodies(spec.methods).map(lambda b: (b, False))
    strategy = (inputs | raw_junk) if spec.framed else inputs

    @settings(
        max_examples=50,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.generate],  # failures are counted and reported, not shrunk
    )
    @given(strategy)
    def one(case: tuple[bytes, bool]) -> None:
        if time.monotonic() >= deadline:
            return
        body, raw = case
        target = holder[0]
        figures.inputs += 1
        fuzz_id = None
        if raw:
            target.send(body)
        else:
            body = body.replace(_encode(SESSION)[1:-1], target.session.encode())
            body, fuzz_id = _unique_id(body, figures.inputs)
            target.send(target.message(body))
        ok = target.probe(*spec.probe)
        if not ok and raw and target.alive():  # the junk ate the probe's header: resync
            figures.resyncs += 1
            ok = target.probe(*spec.probe)
        if ok and fuzz_id is not None and target.wait_answer(fuzz_id) is None:
            ok = False
        for answer in target.received:
            error = answer.get("error")
            if isinstance(error, dict) and isinstance(error.get("code"), int):
                figures.errors[error["code"]] += 1
                if error["code"] == -32603:  # a server bug, not the client's: keep the input
                    figures.internal.append(f"{body[:300]!r} → {str(error)[:200]}")
        target.received.clear()
        if not target.alive():
            figures.crashes += 1
            figures.problems.append(f"exited {target.proc.returncode} after {body[:200]!r}")
        elif not ok:
            figures.unanswered += 1
            figures.problems.append(f"no answer after {body[:200]!r} (raw={raw})")
        if "Traceback" in target.new_stderr():
            figures.tracebacks += 1
            figures.problems.append(f"traceback on stderr after {body[:200]!r}")
        if not ok or not target.alive() or figures.tracebacks:
            target.close()
            holder[0] = fresh()

    try:
        while time.monotonic() < deadline:
            one()
    finally:
        holder[0].close()
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="total time (default 600)")
    parser.add_argument("--targets", default="lsp,acp", help="comma-separated: lsp, acp")
    args = parser.parse_args()
    names = [n for n in args.targets.split(",") if n]
    failed = False
    with tempfile.TemporaryDirectory(prefix="ink-fuzz-") as tmp:
        for name in names:
            began = time.monotonic()
            figures = fuzz(name, args.seconds / len(names), Path(tmp) / name)
            print(figures.line(name, time.monotonic() - began), flush=True)
            for problem in figures.problems[:10]:
                print(f"  {problem}")
            for internal in figures.internal[:10]:
                print(f"  internal error: {internal}")
            failed = failed or bool(figures.crashes or figures.unanswered or figures.tracebacks)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
