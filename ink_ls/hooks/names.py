"""Claude Code's tool names and input keys, to and from ours, for hook payloads.

An existing hook script tests `tool_name == "Bash"` and reads `tool_input.command` or
`tool_input.file_path`; it must work unchanged. Paths are given absolute, as Claude Code does.
Tools without a counterpart (MCP tools, `diagnostics`) keep their own name and input.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

_NAMES = {
    "bash": "Bash",
    "read": "Read",
    "write": "Write",
    "grep": "Grep",
    "find": "Glob",
    "ls": "LS",
    "task": "Task",
    "todo_write": "TodoWrite",
}
_OURS = {claude: ours for ours, claude in _NAMES.items()} | {"Edit": "edit", "MultiEdit": "edit"}
_PATH_TOOLS = frozenset({"read", "write", "edit", "grep", "find", "ls"})


def _absolute(path: object, cwd: Path) -> object:
    if not isinstance(path, str) or not path:
        return path
    return os.path.normpath(os.path.join(cwd, path))


def claude_name(tool: str, args: dict[str, Any]) -> str:
    """Our tool name as Claude Code calls it (`edit` with several edits is `MultiEdit`)."""
    if tool == "edit":
        edits = args.get("edits")
        return "MultiEdit" if isinstance(edits, list) and len(edits) > 1 else "Edit"
    return _NAMES.get(tool, tool)


def claude_input(tool: str, args: dict[str, Any], cwd: Path) -> dict[str, Any]:
    """Our validated arguments (by field name) in Claude Code's keys."""
    out = dict(args)
    if tool in _PATH_TOOLS and "path" in out:
        key = "path" if tool in ("grep", "find") else "file_path"
        out[key] = _absolute(out.pop("path"), cwd)
    if tool == "bash" and isinstance(out.get("timeout"), int | float):
        out["timeout"] = int(out["timeout"] * 1000)  # Claude Code's Bash timeout is in ms
    if tool == "edit":
        edits = [
            {"old_string": e.get("old_text"), "new_string": e.get("new_text")}
            for e in out.pop("edits", [])
            if isinstance(e, dict)
        ]
        if len(edits) == 1:
            out.update(edits[0], replace_all=False)
        else:
            out["edits"] = edits
    return {k: v for k, v in out.items() if v is not None}


def our_input(tool: str, claude: dict[str, Any]) -> dict[str, Any]:
    """A hook's `updatedInput` (Claude Code's keys) back in our argument names."""
    out = dict(claude)
    if "file_path" in out:
        out["path"] = out.pop("file_path")
    if tool == "bash" and isinstance(out.get("timeout"), int | float):
        out["timeout"] = out["timeout"] / 1000
    if tool == "edit":
        out.pop("replace_all", None)
        if "old_string" in out or "new_string" in out:
            out["edits"] = [
                {"old_text": out.pop("old_string", ""), "new_text": out.pop("new_string", "")}
            ]
        elif isinstance(out.get("edits"), list):
            out["edits"] = [
                {"old_text": e.get("old_string"), "new_text": e.get("new_string")}
                for e in out["edits"]
                if isinstance(e, dict)
            ]
    return out


def our_name(claude: str) -> str:
    """Our tool name for a Claude Code one (unknown names are returned as they are)."""
    return _OURS.get(claude, claude)
