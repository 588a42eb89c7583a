"""edit and write when the user edited the proposal before accepting it: the result says so."""

from __future__ import annotations

from pathlib import Path

from ink_ls.core.signal import NEVER, CancelSignal
from ink_ls.core.tool import DiffDisplay, ToolContext
from ink_ls.tools.edit import EditParams, EditTool
from ink_ls.tools.write import WriteParams, WriteTool

USERS = "x = 20  # mine\n"


class UserEdits:
    """A writer whose user accepted their own version instead of the proposal."""

    async def write_text(
        self,
        path: Path,
        new_text: str,
        *,
        old_text: str | None,
        tool_name: str,
        tool_call_id: str,
        signal: CancelSignal,
    ) -> str | None:
        path.write_text(USERS, encoding="utf-8")
        return USERS


def _context(cwd: Path) -> ToolContext:
    ctx = ToolContext("call-1", cwd)
    ctx.writer = UserEdits()
    return ctx


async def test_edit_result_tells_the_model_with_the_difference(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = 1\n", encoding="utf-8")
    args = EditParams.model_validate(
        {"path": "app.py", "edits": [{"oldText": "x = 1", "newText": "x = 2"}]}
    )
    result = await EditTool().execute(args, NEVER, _context(tmp_path))
    assert not result.is_error
    assert result.output == (
        "Edited app.py: 1 edit applied.\n"
        "The user modified your proposed change before accepting it: app.py holds their "
        "version, not yours. Difference from your proposal to what was written:\n"
        "```diff\n--- app.py (your proposal)\n+++ app.py (written)\n@@ -1 +1 @@\n"
        "-x = 2\n+x = 20  # mine\n```\nRead the file again before changing it further."
    )
    assert isinstance(result.display, DiffDisplay)
    assert result.display.new_text == USERS


async def test_write_counts_what_landed(tmp_path: Path) -> None:
    args = WriteParams.model_validate({"path": "app.py", "content": "x = 2\ny = 3\n"})
    result = await WriteTool().execute(args, NEVER, _context(tmp_path))
    first = str(result.output).splitlines()[0]
    assert first == f"Created app.py (1 lines, {len(USERS)} bytes)"
    assert "-x = 2\n-y = 3\n+x = 20  # mine\n" in str(result.output)
