"""What the editor gives the @-mentions of a prompt (`agent.mentions`): `@selection` is the
prompt's `textDocument` + `range`, `@problems` the editor's diagnostics (`ink/diagnostics`, for
clients that announce `experimental.ink.diagnostics`; otherwise it stays as typed).
"""

from __future__ import annotations

import logging
from pathlib import Path

from ink_ls.agent.mentions import MentionSources, Source
from ink_ls.editor.context import selection_block
from ink_ls.editor.diagnostics import EditorDiagnostics, describe, is_problem
from ink_ls.editor.documents import OpenDocuments, uri_to_path
from ink_ls.protocol.models import SessionPromptParams

log = logging.getLogger(__name__)

MAX_PROBLEMS = 200
"""Problems attached by `@problems`; the rest are counted."""


def _shown(path: Path, cwd: Path) -> str:
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return str(path)


def problems_source(diagnostics: EditorDiagnostics, cwd: Path) -> Source:
    """`@problems`: every error and warning the editor holds, one line each, by file."""

    async def problems() -> str | None:
        try:
            items = await diagnostics.fetch(None)
        except Exception as exc:  # the client failed to answer: the mention stays as typed
            log.info("no diagnostics for @problems: %s", exc)
            return None
        lines: list[str] = []
        for item in sorted(items.values(), key=lambda i: i.uri):
            path = uri_to_path(item.uri)
            shown = _shown(path, cwd) if path is not None else item.uri
            ordered = sorted(
                item.diagnostics, key=lambda d: (d.range.start.line, d.range.start.character)
            )
            lines += [describe(d, shown) for d in ordered if is_problem(d)]
        more = f"\n… and {len(lines) - MAX_PROBLEMS} more" if len(lines) > MAX_PROBLEMS else ""
        body = "\n".join(lines[:MAX_PROBLEMS]) + more if lines else "(no errors or warnings)"
        return f"<problems>\n{body}\n</problems>"

    return problems


def editor_mentions(
    params: SessionPromptParams,
    documents: OpenDocuments,
    cwd: Path,
    diagnostics: EditorDiagnostics | None,
) -> MentionSources:
    """The editor's `@selection` (when the prompt has a range) and `@problems` (when the
    client serves diagnostics)."""

    async def selection() -> str | None:
        return selection_block(params, documents, cwd) or None

    return MentionSources(
        selection=selection if params.range is not None else None,
        problems=problems_source(diagnostics, cwd) if diagnostics is not None else None,
    )
