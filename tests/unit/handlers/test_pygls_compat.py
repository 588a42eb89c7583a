"""pygls is used through its public API: its private members appear only in the one wrapper
module that says why."""

from __future__ import annotations

import re
from pathlib import Path

from pygls.lsp.server import LanguageServer
from pygls.protocol import JsonRPCProtocol, LanguageServerProtocol
from pygls.server import JsonRPCServer

PACKAGE = Path(__file__).resolve().parents[3] / "ink_ls"
WRAPPER = PACKAGE / "handlers" / "pygls_compat.py"


def _private_members() -> set[str]:
    names: set[str] = set()
    for cls in (JsonRPCProtocol, LanguageServerProtocol, JsonRPCServer, LanguageServer):
        names |= {n for n in vars(cls) if n.startswith("_") and not n.startswith("__")}
    protocol_attrs = ("_server", "_converter", "_shutdown", "_request_futures", "_result_types")
    server_attrs = ("_stop_event", "_thread_pool", "_max_workers", "_text_document_sync_kind")
    return names | set(protocol_attrs) | set(server_attrs)


def test_no_private_pygls_member_outside_the_wrapper() -> None:
    members = _private_members()
    assert {"_send_data", "_send_response", "_handle_cancel_notification"} <= members
    pattern = re.compile(r"\.(" + "|".join(sorted(members)) + r")\b")
    used = {
        f"{path.relative_to(PACKAGE)}:{n}: {m.group(0)}"
        for path in PACKAGE.rglob("*.py")
        if path != WRAPPER
        for n, line in enumerate(path.read_text().splitlines(), 1)
        for m in pattern.finditer(line)
    }
    assert used == set()
    wrapped = set(pattern.findall(WRAPPER.read_text()))
    assert wrapped == {"_send_data", "_send_response"}
