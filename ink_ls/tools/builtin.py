"""The built-in tool list: the one place that says which tools a run has, in model order."""

from __future__ import annotations

from collections.abc import Iterable

from ink_ls.core.tool import AnyTool
from ink_ls.tools.bash import BashTool
from ink_ls.tools.edit import EditTool
from ink_ls.tools.find import FindTool
from ink_ls.tools.grep import GrepTool
from ink_ls.tools.ls import LsTool
from ink_ls.tools.read import ReadTool
from ink_ls.tools.task import TaskTool
from ink_ls.tools.todo import TodoWriteTool
from ink_ls.tools.write import WriteTool


def builtin_tools(*, secret_env: Iterable[str] = ()) -> list[AnyTool]:
    """read, bash, edit, write, grep, find, ls, task, todo_write.

    The workspace root reaches every call through `ToolContext.cwd`. `secret_env` names
    environment variables (e.g. the configured API key's) that commands must not inherit.
    """
    return [
        ReadTool(),
        BashTool(secret_env=secret_env),
        EditTool(),
        WriteTool(),
        GrepTool(),
        FindTool(),
        LsTool(),
        TaskTool(),
        TodoWriteTool(),
    ]
