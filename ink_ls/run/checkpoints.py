"""`ink-ls checkpoints`, `ink-ls rewind` and `ink-ls diff`: a session's entries, rewinding
them, and the changes as a unified diff. They work from any directory (the session records
its workspace) and never prompt when stdin is not a terminal.

Exit status: 0 done, 1 failed (reason on stderr), 2 bad usage, 3 a conflict nobody decided
(stdin is not a terminal and no --force), 130 the user cancelled at the conflict question.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from ink_ls.checkpoints.recorder import open_repo
from ink_ls.checkpoints.rewind import (
    Decision,
    Hooks,
    RewindCancelledError,
    RewindConflictError,
    RewindError,
    rewind,
)
from ink_ls.checkpoints.settings import CheckpointSettings
from ink_ls.checkpoints.shadow import ShadowError
from ink_ls.checkpoints.timeline import Entry, Restore
from ink_ls.core.sanitize import clean, clean_line
from ink_ls.protocol.checkpoints import wire_checkpoint, wire_checkpoints
from ink_ls.sessions.store import Session, SessionError, SessionStore

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_CONFLICT, EXIT_CANCELLED = 0, 1, 2, 3, 130


def _fail(message: str, code: int = EXIT_FAILED) -> int:
    sys.stderr.write(f"ink-ls: {message}\n")
    return code


def _open(session_id: str) -> tuple[Session, Path] | str:
    try:
        session = SessionStore().open(session_id)
    except SessionError as exc:
        return str(exc)
    if not session.cwd:
        return f"session {session_id} does not record its workspace"
    return session, Path(session.cwd)


def _files(entry: Entry) -> str:
    parts = []
    for f in entry.files:
        counts = f"+{f.added} −{f.removed}" if f.added is not None else "binary"
        mark = {"added": " (new)", "deleted": " (deleted)"}.get(f.status, "")
        if f.status == "modified" and f.added == 0 and f.removed == 0:
            mark = " (mode)"  # same lines: the permission bits changed
        parts.append(f"{f.path} {counts}{mark}")
    parts += [f"{path} (not restorable: {why})" for path, why in entry.not_restorable.items()]
    return ", ".join(parts) if parts else "no changes"


def entry_line(entry: Entry) -> str:
    """One line: number, time, the prompt's first line, files with +/− counts."""
    when = entry.created_at.replace("T", " ").rstrip("Z")[:16]
    first = next((ln.strip() for ln in entry.prompt.splitlines() if ln.strip()), "")
    first = clean_line(first)  # the prompt is the user's, but may carry pasted controls
    first = first if len(first) <= 60 else first[:59] + "…"
    mark = "  [rewound]" if entry.rewound else ""
    return f"{entry.number:>3}  {when}  {first}  —  {_files(entry)}{mark}"


def checkpoints_main(args: argparse.Namespace) -> int:
    """`ink-ls checkpoints SESSION [--json]`."""
    opened = _open(args.session_id)
    if isinstance(opened, str):
        return _fail(opened)
    session, _ = opened
    if args.json:
        sys.stdout.write(json.dumps(wire_checkpoints(session.timeline).dump()) + "\n")
        return EXIT_OK
    for entry in session.timeline.ordered():
        sys.stdout.write(entry_line(entry) + "\n")
    return EXIT_OK


async def _ask(conflicts: list[str]) -> Decision:
    sys.stderr.write(
        "you changed these files since the agent did: " + ", ".join(conflicts) + "\n"
        "[o]verwrite them, [k]eep your version, or [c]ancel the rewind? "
    )
    sys.stderr.flush()
    answer = (await asyncio.to_thread(sys.stdin.readline)).strip().lower()
    if answer.startswith("o"):
        return "overwrite"
    return "keep" if answer.startswith("k") else "cancel"


def rewind_main(args: argparse.Namespace) -> int:
    """`ink-ls rewind SESSION --turn N [--files | --conversation] [--force] [--json]`."""
    opened = _open(args.session_id)
    if isinstance(opened, str):
        return _fail(opened)
    session, workspace = opened
    restore: Restore = "files" if args.files else "conversation" if args.conversation else "both"
    hooks = Hooks(ask=_ask if sys.stdin.isatty() else None)
    try:
        outcome = asyncio.run(
            rewind(
                session,
                workspace,
                target=args.turn,
                restore=restore,
                state=session.state_dir,
                hooks=hooks,
                force=args.force,
            )
        )
    except RewindConflictError as exc:
        return _fail(str(exc), EXIT_CONFLICT)
    except RewindCancelledError as exc:
        return _fail(str(exc), EXIT_CANCELLED)
    except RewindError as exc:
        return _fail(str(exc))
    if not session.save():
        return _fail(f"the rewind was done but not saved: {session.save_error}")
    if args.json:
        result = {
            "checkpoint": wire_checkpoint(outcome.entry).dump(),
            "restored": outcome.restored,
            "kept": outcome.kept,
        }
        sys.stdout.write(json.dumps(result) + "\n")
        return EXIT_OK
    sys.stdout.write(entry_line(outcome.entry) + "\n")
    if outcome.kept:
        sys.stderr.write("kept your version of: " + ", ".join(outcome.kept) + "\n")
    sys.stderr.write(
        f"undo this rewind with: ink-ls rewind {session.id} --turn {outcome.entry.number}\n"
    )
    return EXIT_OK


def diff_main(args: argparse.Namespace) -> int:
    """`ink-ls diff SESSION [--turn N]`: one entry's changes, or the whole session's."""
    opened = _open(args.session_id)
    if isinstance(opened, str):
        return _fail(opened)
    session, workspace = opened
    entries = [
        e for e in session.timeline.ordered() if e.before is not None and e.after is not None
    ]
    if args.turn is not None:
        if session.timeline.get(args.turn) is None:
            return _fail(f"there is no entry {args.turn} in session {session.id}")
        entries = [e for e in entries if e.number == args.turn]
        if not entries:
            return EXIT_OK  # a turn without changes: an empty diff
    if not entries:
        return EXIT_OK
    repo = open_repo(workspace, session.state_dir, CheckpointSettings.from_env())
    first, last = entries[0], entries[-1]
    assert first.before is not None and last.after is not None
    paths = sorted({f.path for e in entries for f in e.files})
    try:
        text = repo.diff_text(first.before, last.after, paths, color=False)
    except ShadowError as exc:
        return _fail(str(exc))
    # the files' own text may carry terminal controls: cleaned, then coloured by us
    sys.stdout.write(_coloured(clean(text)) if sys.stdout.isatty() else clean(text))
    return EXIT_OK


_COLOURS = (("+++", "1"), ("---", "1"), ("@@", "36"), ("+", "32"), ("-", "31"), ("diff ", "1"))


def _coloured(diff: str) -> str:
    """A unified diff with the usual colours (the text is already cleaned of controls)."""
    lines = []
    for line in diff.split("\n"):
        code = next((c for prefix, c in _COLOURS if line.startswith(prefix)), None)
        lines.append(f"\x1b[{code}m{line}\x1b[0m" if code and line else line)
    return "\n".join(lines)
