"""Named builders for the standard LSP payloads the server sends, made of lsprotocol's types.

The editor glue describes what it wants (an edit of one document, a question with actions, a
progress step); the shapes, field names and enum values come from lsprotocol, serialised to the
camelCase JSON the wire carries. Nothing else in ink_ls writes an LSP payload by hand.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Literal, TypeVar

from lsprotocol import types as lsp
from lsprotocol.converters import get_converter

WorkspaceEdit = lsp.WorkspaceEdit

T = TypeVar("T")


@cache
def _converter() -> Any:
    return get_converter()


def to_json(obj: object) -> dict[str, Any]:
    """An lsprotocol object as wire JSON (camelCase keys, optional members left out)."""
    data: dict[str, Any] = _converter().unstructure(obj)
    return data


def from_json(data: Any, cls: type[T]) -> T:
    """Wire JSON as an lsprotocol object of type `cls`."""
    obj: T = _converter().structure(data, cls)
    return obj


def range_(start: tuple[int, int], end: tuple[int, int]) -> lsp.Range:
    return lsp.Range(
        start=lsp.Position(line=start[0], character=start[1]),
        end=lsp.Position(line=end[0], character=end[1]),
    )


def whole_document_edit(
    uri: str,
    *,
    end: tuple[int, int],
    new_text: str,
    version: int | None,
    create: bool,
    document_changes: bool,
    annotation: tuple[str, str, bool] | None,
) -> lsp.WorkspaceEdit:
    """A `WorkspaceEdit` replacing a whole document (ending at `end`) by `new_text`.

    `create` puts a `CreateFile` first (a new file); `document_changes` chooses
    `documentChanges` (versioned) over plain `changes`; `annotation` is `(id, label,
    needs_confirmation)` for clients with change-annotation support.
    """
    text_range = range_((0, 0), end)
    text_edit: lsp.TextEdit | lsp.AnnotatedTextEdit
    annotations: dict[str, lsp.ChangeAnnotation] | None = None
    if annotation is not None:
        annotation_id, label, confirm = annotation
        text_edit = lsp.AnnotatedTextEdit(
            range=text_range, new_text=new_text, annotation_id=annotation_id
        )
        annotations = {annotation_id: lsp.ChangeAnnotation(label=label, needs_confirmation=confirm)}
    else:
        text_edit = lsp.TextEdit(range=text_range, new_text=new_text)
    if not document_changes:
        # lsprotocol types `changes` as plain TextEdits, though LSP 3.16 allows annotated ones
        changes_by_uri: dict[str, Any] = {uri: [text_edit]}
        return lsp.WorkspaceEdit(changes=changes_by_uri, change_annotations=annotations)
    changes: list[lsp.TextDocumentEdit | lsp.CreateFile] = []
    if create:
        changes.append(
            lsp.CreateFile(uri=uri, options=lsp.CreateFileOptions(ignore_if_exists=True))
        )
    changes.append(
        lsp.TextDocumentEdit(
            text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
            edits=[text_edit],
        )
    )
    return lsp.WorkspaceEdit(document_changes=changes, change_annotations=annotations)


def merge_edits(edits: list[lsp.WorkspaceEdit]) -> lsp.WorkspaceEdit:
    """One `WorkspaceEdit` doing what `edits` (each of other files) do, in order."""
    document_changes: list[Any] = []
    changes: dict[str, Any] = {}
    annotations: dict[str, lsp.ChangeAnnotation] = {}
    for edit in edits:
        document_changes += edit.document_changes or []
        changes.update(edit.changes or {})
        annotations.update(edit.change_annotations or {})
    return lsp.WorkspaceEdit(
        document_changes=document_changes or None,
        changes=changes or None,
        change_annotations=annotations or None,
    )


def delete_file_edit(uri: str) -> lsp.WorkspaceEdit:
    """A `WorkspaceEdit` deleting one file (`DeleteFile`; no error when it is gone)."""
    op = lsp.DeleteFile(uri=uri, options=lsp.DeleteFileOptions(ignore_if_not_exists=True))
    return lsp.WorkspaceEdit(document_changes=[op])


def apply_edit_params(label: str, edit: lsp.WorkspaceEdit) -> dict[str, Any]:
    """`workspace/applyEdit` params (the edit built by `whole_document_edit`)."""
    return to_json(lsp.ApplyWorkspaceEditParams(edit=edit, label=label))


def show_message_request(
    message: str, actions: list[tuple[str, str | None]], *, warning: bool = True
) -> dict[str, Any]:
    """`window/showMessageRequest` params; each action is `(title, optionId or None)` — the
    option id is an extra member, sent only to clients that accept additional properties."""
    params = to_json(
        lsp.ShowMessageRequestParams(
            type=lsp.MessageType.Warning if warning else lsp.MessageType.Info,
            message=message,
            actions=[lsp.MessageActionItem(title=title) for title, _ in actions],
        )
    )
    for item, (_, option) in zip(params["actions"], actions, strict=True):
        if option is not None:
            item["optionId"] = option
    return params


def progress_begin(title: str, message: str, *, cancellable: bool = True) -> dict[str, Any]:
    return to_json(lsp.WorkDoneProgressBegin(title=title, message=message, cancellable=cancellable))


def progress_report(message: str) -> dict[str, Any]:
    return to_json(lsp.WorkDoneProgressReport(message=message))


def progress_end(message: str) -> dict[str, Any]:
    return to_json(lsp.WorkDoneProgressEnd(message=message))


def progress_params(token: str | int, value: dict[str, Any]) -> dict[str, Any]:
    """`$/progress` params for a work-done progress value."""
    return to_json(lsp.ProgressParams(token=token, value=value))


def create_progress_params(token: str | int) -> dict[str, Any]:
    return to_json(lsp.WorkDoneProgressCreateParams(token=token))


def show_message_params(message: str, *, warning: bool = True) -> dict[str, Any]:
    """`window/showMessage` params (a Warning unless told otherwise)."""
    kind = lsp.MessageType.Warning if warning else lsp.MessageType.Info
    return to_json(lsp.ShowMessageParams(type=kind, message=message))


MessageKind = Literal["error", "warning", "info"]
_MESSAGE_TYPES = {
    "error": lsp.MessageType.Error,
    "warning": lsp.MessageType.Warning,
    "info": lsp.MessageType.Info,
}


def user_message_params(message: str, kind: MessageKind) -> dict[str, Any]:
    """`window/showMessage` params of any type (the answers to `ink.ask`)."""
    return to_json(lsp.ShowMessageParams(type=_MESSAGE_TYPES[kind], message=message))


def show_document_params(uri: str) -> dict[str, Any]:
    """`window/showDocument` params: open `uri` in the editor and focus it."""
    return to_json(lsp.ShowDocumentParams(uri=uri, take_focus=True))


def log_message_params(message: str, *, error: bool = False) -> dict[str, Any]:
    kind = lsp.MessageType.Error if error else lsp.MessageType.Warning
    return to_json(lsp.LogMessageParams(type=kind, message=message))
