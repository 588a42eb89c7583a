"""The `/rewind` built-in of every front end: `/rewind` lists the session's entries,
`/rewind N [files|conversation] [force]` restores the files on disk and the conversation to
just before entry N, as `ink-ls rewind` does. Conflicts are named and refused unless `force`."""

from __future__ import annotations

from pathlib import Path

from ink_ls.checkpoints.rewind import RewindError, rewind
from ink_ls.checkpoints.timeline import Entry, Restore
from ink_ls.sessions.store import Session

USAGE = "usage: /rewind [N [files|conversation] [force]]"


def is_rewind(text: str) -> bool:
    """Whether a prompt is the `/rewind` command."""
    words = text.strip().split()
    return bool(words) and words[0] == "/rewind"


def _line(entry: Entry) -> str:
    files = ", ".join(
        f"{f.path} +{f.added} −{f.removed}" if f.added is not None else f"{f.path} (binary)"
        for f in entry.files
    )
    first = next((ln.strip() for ln in entry.prompt.splitlines() if ln.strip()), "")
    mark = " [rewound]" if entry.rewound else ""
    return f"{entry.number}. {first} — {files or 'no changes'}{mark}"


async def run_rewind(session: Session, text: str) -> str:
    """Do the command; returns what the user reads (an error is a sentence too)."""
    words = text.strip().split()[1:]
    if not words:
        entries = session.timeline.ordered()
        if not entries:
            return "This session has no turns yet."
        return "\n".join(_line(e) for e in entries) + "\n\nRewind with /rewind N."
    try:
        turn = int(words[0])
    except ValueError:
        return USAGE
    options = set(words[1:])
    if not options <= {"files", "conversation", "force"} or {"files", "conversation"} <= options:
        return USAGE
    restore: Restore = (
        "files" if "files" in options else "conversation" if "conversation" in options else "both"
    )
    if not session.cwd:
        return "This session does not record its workspace; it cannot be rewound."
    try:
        outcome = await rewind(
            session,
            Path(session.cwd),
            target=turn,
            restore=restore,
            state=session.state_dir,
            force="force" in options,
        )
    except RewindError as exc:
        return f"Rewind failed: {exc}"
    text = f"Rewound to before {turn} ({restore}): entry {_line(outcome.entry)}"
    if outcome.kept:
        text += "\nKept your version of: " + ", ".join(outcome.kept)
    return text + f"\nUndo it with /rewind {outcome.entry.number}."
