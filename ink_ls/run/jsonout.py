"""`ink-ls run --json`: one JSON object per line on stdout for every agent event, nothing else.

The run-end line also carries `session_id`, so a script can continue the session. Events of a
`task` call's sub-agent carry `parent_tool_call_id` (the task call's id) and namespaced
`tool_call_id`s `<task id>/<sub-agent call id>`; the key is left out of top-level events. A
sub-agent's model replies appear as `usage` events (tokens only), never as `message_end`.
"""

from __future__ import annotations

import json
import logging
from typing import Any, TextIO

from ink_ls.agent.events import AgentEvent, RunEndEvent, ToolOutputEvent
from ink_ls.core.sanitize import json_safe

log = logging.getLogger(__name__)


class JsonPrinter:
    """An `EventSink` writing JSON lines to `out` (flushed per line)."""

    def __init__(self, out: TextIO, *, session_id: str) -> None:
        self._out = out
        self._session_id = session_id

    def __call__(self, event: AgentEvent) -> None:
        if isinstance(event, ToolOutputEvent):  # the result carries the output; lines stay few
            return
        try:
            data: dict[str, Any] = event.model_dump(mode="json", by_alias=True)
        except Exception:  # a display payload that does not serialise: drop it, keep the line
            log.warning("event %s has a payload that is not JSON; sent without it", event.type)
            data = event.model_dump(mode="json", by_alias=True, exclude={"display"})
        if data.get("parent_tool_call_id", "") is None:  # top level: keep the old line shape
            del data["parent_tool_call_id"]
        if isinstance(event, RunEndEvent):
            data["session_id"] = self._session_id
        # C0 is escaped by json; C1, DEL and line separators would reach a terminal raw
        self._out.write(json_safe(json.dumps(data, ensure_ascii=False)) + "\n")
        self._out.flush()
