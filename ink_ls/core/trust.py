"""One trust decision per workspace: may the repository's own files run programs here?

A workspace's `.mcp.json` names programs to start, its project settings can widen what runs
without asking; whoever wrote the repository wrote them. They take effect only once the user
trusts the workspace: asked once per workspace (showing exactly what would run), remembered
for that path and the content of those files (`trust.json` in the state dir), asked again when
they change. Approval mode `auto` does not imply trust; `readonly`, `CI` and runs without a
person to ask never trust implicitly; a flag or parameter states it explicitly. This module
decides and words the question; the front end asks it through its own prompter.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from ink_ls.core.env import state_dir
from ink_ls.core.fileio import atomic_write_text, read_workspace_file

log = logging.getLogger(__name__)

COVERED = (
    ".mcp.json",
    ".ink/settings.json",
    ".ink/settings.local.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
)
"""The workspace files a trust decision covers (relative to the root), when present."""
FILE_CAP = 1024 * 1024
"""Bytes of each covered file that are read (and hashed); more is cut (and still hashed)."""

Answer = Literal["once", "always", "no"]
State = Literal["trusted", "untrusted", "undecided"]


@dataclass(frozen=True)
class TrustQuestion:
    """What the user is asked: a one-line title and what trusting would run."""

    root: Path
    title: str
    detail: str


Ask = Callable[[TrustQuestion], Awaitable[Answer | None]]
"""Asks the user through the front end's prompter (None: dismissed, which is a no)."""
Describer = Callable[[Path, Mapping[str, bytes]], list[str]]
"""Lines of what the covered files would run (e.g. each MCP server's command line)."""


def ci_set(env: Mapping[str, str] | None = None) -> bool:
    """Whether `CI` says this is an unattended run (set, and not `0`/`false`)."""
    value = (os.environ if env is None else env).get("CI", "").strip().lower()
    return value not in ("", "0", "false", "no")


def read_covered(root: Path) -> dict[str, bytes]:
    """The covered files present in `root`: name → content. A file that is a link out of the
    workspace or not a regular file counts as present with no content (never read)."""
    found: dict[str, bytes] = {}
    for name in COVERED:
        path = root / name
        if not os.path.lexists(path):
            continue
        try:
            data, size = read_workspace_file(path, root, limit=FILE_CAP)
        except OSError as exc:
            log.warning("%s: not read for the trust question: %s", name, exc.strerror or exc)
            data, size = b"", -1
        found[name] = data if size <= FILE_CAP else data + f"[cut at {size}]".encode()
    return found


def digests(contents: Mapping[str, bytes]) -> dict[str, str]:
    """name → sha256 of each covered file's content."""
    return {name: hashlib.sha256(data).hexdigest() for name, data in sorted(contents.items())}


def fingerprint(contents: Mapping[str, bytes]) -> str:
    """One hash of every covered file's name and content."""
    text = json.dumps(digests(contents), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


class TrustStore:
    """The remembered decisions: `{root: {fingerprint, files, trustedAt}}` in `trust.json`."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else state_dir() / "trust.json"

    def _load(self) -> dict[str, dict[str, object]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning(
                "%s cannot be read (%s): no workspace is remembered as trusted", self.path, exc
            )
            return {}
        workspaces = data.get("workspaces") if isinstance(data, dict) else None
        return workspaces if isinstance(workspaces, dict) else {}

    def trusted(self, root: Path, print_: str) -> bool:
        """Whether `root` was trusted with its covered files exactly as they are now."""
        entry = self._load().get(str(root))
        return isinstance(entry, dict) and entry.get("fingerprint") == print_

    def remember(self, root: Path, contents: Mapping[str, bytes]) -> None:
        """Trust `root` with these contents from now on (a failed write is only logged)."""
        workspaces = self._load()
        workspaces[str(root)] = {
            "fingerprint": fingerprint(contents),
            "files": digests(contents),
            "trustedAt": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        text = json.dumps({"version": 1, "workspaces": workspaces}, indent=1, sort_keys=True)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(self.path, text + "\n")
            os.chmod(self.path, 0o600)
        except OSError as exc:
            log.warning("cannot remember the trusted workspace in %s: %s", self.path, exc)


def question(root: Path, contents: Mapping[str, bytes], lines: Sequence[str]) -> TrustQuestion:
    """The question for `root`: what would run, the files it covers, what each answer does."""
    what = [f"  {line}" for line in lines] or ["  (settings only: nothing starts by itself)"]
    detail = "\n".join(
        [
            "This workspace's own files can start programs and change what runs without "
            "asking. Trusting it runs:",
            *what,
            f"Files: {', '.join(sorted(contents))}",
            "Yes: trust it this time. Always: remember it until these files change. "
            "No: leave them off.",
        ]
    )
    return TrustQuestion(root, f"Trust the workspace {root}?", detail)


@dataclass
class WorkspaceTrust:
    """The trust decision of one workspace for one run, connection or ACP session.

    `explicit` is what the user stated (`--trust-workspace`, `trustWorkspace`): True trusts,
    False never trusts; None decides by the remembered decision, else by asking when
    `interactive` (a person can answer) and neither `readonly` nor `CI` forbid asking.
    """

    root: Path
    explicit: bool | None = None
    interactive: bool = True
    describers: Sequence[Describer] = ()
    store: TrustStore = field(default_factory=TrustStore)
    env: Mapping[str, str] | None = None
    state: State = "undecided"
    reason: str = "waiting for the user to trust the workspace"
    """Why the workspace's files are not in effect (status shows it)."""
    files: dict[str, str] = field(default_factory=dict)
    """name → sha256 of the covered files as trusted (empty unless trusted)."""
    _decided_for: str | None = None

    def __post_init__(self) -> None:
        self.root = Path(os.path.realpath(self.root))

    def covers(self, name: str, digest: str) -> bool:
        """Whether the workspace file `name` with content hash `digest` may take effect."""
        return self.state == "trusted" and self.files.get(name) == digest

    def check(self) -> State:
        """Decide without asking (explicit, remembered, or forbidden to ask)."""
        return self._decide(None, mode="ask", asking=False)

    async def resolve(self, ask: Ask | None, *, mode: str) -> State:
        """Decide, asking through `ask` once when allowed and nothing else decides.
        `mode` is the approval mode (`readonly` never asks)."""
        state = self._decide(ask, mode=mode, asking=True)
        if state != "undecided" or ask is None:
            return state
        contents = read_covered(self.root)
        lines = [line for describe in self.describers for line in describe(self.root, contents)]
        if not lines:
            return state  # nothing of these files would take effect: nothing to ask yet
        try:
            answer = await ask(question(self.root, contents, lines))
        except Exception as exc:  # a prompt that failed is a no, never a crash of the turn
            log.warning("asking to trust the workspace failed: %s", exc)
            answer = None
        self._decided_for = fingerprint(contents)
        if answer in ("once", "always"):
            if answer == "always":
                self.store.remember(self.root, contents)
            return self._set("trusted", "", contents)
        return self._set("untrusted", "the user did not trust the workspace", {})

    def _decide(self, ask: Ask | None, *, mode: str, asking: bool) -> State:
        contents = read_covered(self.root)
        print_ = fingerprint(contents)
        if not contents:
            return self._set("trusted", "", contents)
        if self.explicit is not None:  # re-read each time: the editor's setting may change
            if self.explicit:
                return self._set("trusted", "", contents)
            return self._set("untrusted", "the workspace is not trusted", {})
        if self.store.trusted(self.root, print_):
            return self._set("trusted", "", contents)
        if self._decided_for == print_:
            return self.state  # the user answered for these very files: asked once
        why = self._no_asking(mode)  # not remembered: a later turn may run in another mode
        if why is not None:
            return self._set("untrusted", why, {})
        if asking and ask is not None:
            return "undecided"  # the caller asks
        return self._set("undecided", "waiting for the user to trust the workspace", {})

    def _no_asking(self, mode: str) -> str | None:
        tail = "(trust it with --trust-workspace or the trustWorkspace setting)"
        if mode == "readonly":
            return f"the workspace is not trusted and approval mode readonly asks nothing {tail}"
        if ci_set(self.env):
            return f"the workspace is not trusted and CI is set, so no one is asked {tail}"
        if not self.interactive:
            return f"the workspace is not trusted and no one can be asked {tail}"
        return None

    def _set(self, state: State, reason: str, contents: Mapping[str, bytes]) -> State:
        self.state, self.reason = state, reason
        self.files = digests(contents) if state == "trusted" else {}
        return state
