"""The exported JSON Schema and the editors' generated protocol files: in step with the models,
complete, valid, and never loaded by the server."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema

from ink_ls.protocol import methods
from ink_ls.protocol.codegen.__main__ import ROOT, generated_files, stale_files
from ink_ls.protocol.codegen.schema import SCHEMA_PATH, build_schema
from ink_ls.protocol.models import (
    ContentItem,
    DiffItem,
    RawOutput,
    SessionUpdateParams,
    TextContent,
    ToolCallUpdate,
)


def test_no_generated_file_is_stale() -> None:
    """Regenerated in memory, every generated file equals the one in the repository."""
    assert stale_files() == [], "run scripts/gen-protocol and commit the result"


def test_a_hand_edit_of_a_generated_file_is_caught(tmp_path: Path) -> None:
    for rel in generated_files():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tmp_path / rel)
    assert stale_files(tmp_path) == []
    ts = tmp_path / "editors/vscode/src/protocol.generated.ts"
    ts.write_text(ts.read_text().replace("toolCallId: string;", "toolCallID: string;", 1))
    lua = tmp_path / "editors/nvim/lua/ink/protocol.lua"
    lua.write_text(lua.read_text() + "-- a local note\n")
    assert stale_files(tmp_path) == [
        "editors/vscode/src/protocol.generated.ts",
        "editors/nvim/lua/ink/protocol.lua",
    ]
    check = subprocess.run(
        [sys.executable, "-m", "ink_ls.protocol.codegen", "--check", "--root", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert check.returncode == 1
    assert "stale: editors/vscode/src/protocol.generated.ts" in check.stderr


def test_the_schema_names_every_ink_method_with_its_direction() -> None:
    schema = build_schema()
    names = {spec["method"]["const"]: spec for spec in schema["methods"].values()}
    assert set(names) == set(
        methods.INK_REQUESTS
        + methods.INK_NOTIFICATIONS
        + methods.INK_CLIENT_NOTIFICATIONS
        + (methods.DIAGNOSTICS, methods.LANGUAGE_FEATURES)
    )
    prompt = names[methods.SESSION_PROMPT]
    assert (prompt["direction"], prompt["kind"]) == ("clientToServer", "request")
    assert prompt["params"] == {"$ref": "#/$defs/SessionPromptParams"}
    assert prompt["result"] == {"$ref": "#/$defs/SessionPromptResult"}
    update = names[methods.SESSION_UPDATE]
    assert (update["direction"], update["kind"]) == ("serverToClient", "notification")
    assert "result" not in update
    assert names[methods.SESSION_CANCEL]["result"] == {"type": "null"}


def _validator(schema: dict[str, Any], definition: str) -> jsonschema.Draft202012Validator:
    root = dict(schema, **{"$ref": f"#/$defs/{definition}"})
    jsonschema.Draft202012Validator.check_schema(root)
    return jsonschema.Draft202012Validator(root)


def test_what_the_server_sends_fits_the_schema_and_null_never_does() -> None:
    schema = json.loads((ROOT / SCHEMA_PATH).read_text())
    update = SessionUpdateParams(
        session_id="s1",
        turn_id="t1",
        update=ToolCallUpdate(
            tool_call_id="c1",
            status="cancelled",
            phase="delivered",
            content=[
                ContentItem(content=TextContent(text="stopped")),
                DiffItem(path="/w/a.py", new_text="x = 1\n"),
            ],
            raw_output=RawOutput(is_error=True, text="stopped"),
        ),
    ).dump()
    validator = _validator(schema, "SessionUpdateParams")
    assert list(validator.iter_errors(update)) == []
    # optional fields are omitted, never null (`dump()` leaves None out)
    update["update"]["durationMs"] = None
    assert [e.json_path for e in validator.iter_errors(update)] == ["$.update"]


def test_the_server_never_imports_the_generator() -> None:
    probe = (
        "import sys, ink_ls.server; "
        "print(sorted(m for m in sys.modules if m.startswith('ink_ls.protocol.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    loaded = out.stdout
    assert "ink_ls.protocol.codegen" not in loaded
    assert "ink_ls.protocol.catalog" not in loaded
