"""Handing a computed change to the context's writer (edit, write): the one place that calls
`FileWriter.write_text` and shapes the diff the editor gets. No reading or matching here.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ink_ls.core.fileio import escape_message, inside, meant_inside, resolve_target
from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import DiffDisplay, ToolContext, ToolResult
from ink_ls.tools.diffs import numbered_diff


@dataclass(frozen=True)
class Landed:
    """What a change wrote: the proposal, or the user's edited version of it."""

    text: str
    note: str = ""
    """Empty, or the sentences telling the model the user modified its change (with the
    difference), to end its result with."""


def _proposal_diff(shown: str, proposed: str, landed: str) -> str:
    """A unified diff from the model's proposal to the user's version of one file."""
    import difflib  # only when a user edited a proposal

    diff = difflib.unified_diff(
        proposed.splitlines(keepends=True),
        landed.splitlines(keepends=True),
        fromfile=f"{shown} (your proposal)",
        tofile=f"{shown} (written)",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in diff)


def user_modified_note(shown: str, proposed: str, landed: str) -> str:
    """Tells the model the user edited its proposal before accepting, with a unified diff
    from the proposal to what the file now holds."""
    return (
        f"\nThe user modified your proposed change before accepting it: {shown} holds their "
        "version, not yours. Difference from your proposal to what was written:\n"
        f"```diff\n{_proposal_diff(shown, proposed, landed)}```\n"
        "Read the file again before changing it further."
    )


def user_modified_files_note(edited: Sequence[tuple[str, str, str]], total: int) -> str:
    """The same for a change of several files (a rename) whose `edited` ones (shown path,
    proposal, what was written) the user changed before accepting: a diff per file."""
    if not edited:
        return ""
    names = ", ".join(shown for shown, _, _ in edited)
    held = "holds" if len(edited) == 1 else "hold"
    diffs = "".join(f"```diff\n{_proposal_diff(*item)}```\n" for item in edited)
    return (
        f"\nThe user modified your proposed change before accepting it, in {len(edited)} of "
        f"{total} files: {names} {held} their version, not yours (the other files are as you "
        f"proposed). Difference from your proposal to what was written, per file:\n{diffs}"
        "Read those files again before changing them further."
    )


async def write_change(
    context: ToolContext,
    path: Path,
    new_text: str,
    *,
    old_text: str | None,
    shown: str,
    tool_name: str,
    signal: CancelSignal,
) -> ToolResult | Landed:
    """Write `new_text` through the writer; an error result if the disk refused, else what
    landed (the user may have edited the proposal while approving it).

    A refusal by the user (`ChangeRejectedError`) and a cancel propagate: the pipeline and the
    calling tool report those.
    """
    signal.raise_if_cancelled()
    target = resolve_target(path)
    if meant_inside(path, context.cwd) and not inside(target, Path(os.path.realpath(context.cwd))):
        # every writer, an editor's too (it would follow the link): the disk writers check
        # again at the rename, which no link swapped in later can redirect
        return ToolResult(f"Error writing {shown}: {escape_message(path, target)}", is_error=True)
    try:
        landed = await context.writer.write_text(
            path,
            new_text,
            old_text=old_text,
            tool_name=tool_name,
            tool_call_id=context.tool_call_id,
            signal=signal,
        )
    except OSError as exc:
        return ToolResult(f"Error writing {shown}: {exc.strerror or exc}", is_error=True)
    if landed is None or landed == new_text:
        return Landed(new_text)
    return Landed(landed, user_modified_note(shown, new_text, landed))


def diff_display(path: Path, old_text: str, new_text: str) -> DiffDisplay:
    """What the editor gets for a change: both texts and a line-numbered diff."""
    diff = numbered_diff(
        old_text.removeprefix("\ufeff"), new_text.removeprefix("\ufeff"), path=str(path)
    )
    return DiffDisplay(path, old_text, new_text, diff)
