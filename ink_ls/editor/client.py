"""How the glue reaches the editor: a two-method client interface and what the client supports.

The pygls implementation lives in `ink_ls.handlers`; tests use a fake. Payloads are plain JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol


class EditorClient(Protocol):
    """Sends requests (awaiting the raw JSON result) and notifications to the editor."""

    async def request(self, method: str, params: dict[str, Any]) -> Any: ...

    def notify(self, method: str, params: dict[str, Any]) -> None: ...


def _get(obj: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(key)
    return obj


@dataclass(frozen=True)
class ClientFeatures:
    """The client capabilities the glue acts on (from `initialize`)."""

    work_done_progress: bool = False
    document_changes: bool = False
    create_files: bool = False
    delete_files: bool = False
    change_annotations: bool = False
    action_option_ids: bool = False
    reviews_apply_edit: bool = False
    diagnostics: bool = False
    """The client answers `ink/diagnostics` and sends `ink/diagnosticsChanged`."""
    language_features: bool = False
    """The client answers `ink/languageFeatures` from its own language servers."""
    ink_plugin: bool = False
    """The client announced `experimental.ink` (our plugins): it accepts the `ink` members
    of standard requests. Others may not (eglot 1.9 errors on an unknown key)."""
    show_document: bool = False

    @classmethod
    def from_capabilities(cls, caps: Mapping[str, Any] | None) -> ClientFeatures:
        """Read the camelCase `ClientCapabilities` JSON object."""
        caps = caps or {}
        ops = _get(caps, "workspace", "workspaceEdit", "resourceOperations") or []
        return cls(
            work_done_progress=_get(caps, "window", "workDoneProgress") is True,
            document_changes=_get(caps, "workspace", "workspaceEdit", "documentChanges") is True,
            create_files="create" in ops,
            delete_files="delete" in ops,
            change_annotations=isinstance(
                _get(caps, "workspace", "workspaceEdit", "changeAnnotationSupport"), Mapping
            ),
            action_option_ids=_get(
                caps, "window", "showMessage", "messageActionItem", "additionalPropertiesSupport"
            )
            is True,
            reviews_apply_edit=_get(caps, "experimental", "ink", "reviewsApplyEdit") is True,
            diagnostics=_get(caps, "experimental", "ink", "diagnostics") is True,
            language_features=_get(caps, "experimental", "ink", "languageFeatures") is True,
            ink_plugin=isinstance(_get(caps, "experimental", "ink"), Mapping),
            show_document=_get(caps, "window", "showDocument", "support") is True,
        )
