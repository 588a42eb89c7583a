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
