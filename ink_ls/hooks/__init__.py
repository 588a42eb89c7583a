"""Hooks in Claude Code's settings format: commands the user's settings run at points of a turn
(before and after a tool call, on a prompt, at the end of a turn, at session start, before a
compaction). The agent calls `Hooks`; nothing here knows a front end or a wire protocol.
"""
