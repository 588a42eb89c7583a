"""`split_context` undoes `prompt_with_context`: a replayed prompt shows as typed, with its
document and lines."""

from __future__ import annotations

from pathlib import Path

from ink_ls.editor.context import AskedFrom, prompt_with_context, split_context
from ink_ls.editor.documents import OpenDocuments, path_to_uri
from ink_ls.protocol.models import SessionPromptParams


def test_split_context_round_trips_every_shape(tmp_path: Path) -> None:
    app = tmp_path / "src" / "app.py"
    app.parent.mkdir()
    app.write_text("a\nb\n```\nc\n", encoding="utf-8")
    uri = {"uri": path_to_uri(app)}
    prompt = "explain\n\nContext: not the suffix"
    cases = [
        ({}, AskedFrom(prompt)),
        ({"textDocument": uri}, AskedFrom(prompt, "src/app.py")),
        (
            {
                "textDocument": uri,
                "range": {"start": {"line": 1, "character": 0}, "end": {"line": 3, "character": 1}},
            },
            AskedFrom(prompt, "src/app.py", 2, 4),
        ),
    ]
    for extra, expected in cases:
        params = SessionPromptParams.model_validate({"prompt": prompt, **extra})
        message = prompt_with_context(params, OpenDocuments(), tmp_path)
        assert split_context(message) == expected


def test_a_document_linked_out_or_a_fifo_is_named_without_its_text(tmp_path: Path) -> None:
    import os

    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "id_rsa").write_text("PRIVATE KEY\n")
    (ws / "app.py").symlink_to(tmp_path / "id_rsa")
    os.mkfifo(ws / "pipe.py")  # reading it would block the server
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}
    for name in ("app.py", "pipe.py"):
        params = SessionPromptParams.model_validate(
            {"prompt": "explain", "textDocument": {"uri": path_to_uri(ws / name)}, "range": whole}
        )
        message = prompt_with_context(params, OpenDocuments(), ws)
        assert message.endswith(" (lines 1-1)") and "PRIVATE" not in message
