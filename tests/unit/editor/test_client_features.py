"""What the glue reads from a client's capabilities, checked on the captures pytest-lsp ships."""

from __future__ import annotations

from typing import Any

from lsprotocol import converters
from pytest_lsp import client_capabilities

from ink_ls.editor.client import ClientFeatures


def caps(preset: str) -> dict[str, Any]:
    raw: dict[str, Any] = converters.get_converter().unstructure(client_capabilities(preset))
    return raw


def test_visual_studio_code() -> None:
    raw = caps("visual_studio_code")
    raw["experimental"] = {"ink": {"reviewsApplyEdit": True}}
    assert ClientFeatures.from_capabilities(raw) == ClientFeatures(
        work_done_progress=True,
        document_changes=True,
        create_files=True,
        delete_files=True,
        change_annotations=True,
        action_option_ids=True,
        reviews_apply_edit=True,
        show_document=True,
        ink_plugin=True,
    )


def test_neovim() -> None:
    assert ClientFeatures.from_capabilities(caps("neovim")) == ClientFeatures(
        work_done_progress=True,
        document_changes=False,
        create_files=True,
        delete_files=True,
        change_annotations=False,
        action_option_ids=True,
        reviews_apply_edit=False,
        show_document=True,
    )


def test_nothing_announced() -> None:
    assert ClientFeatures.from_capabilities(None) == ClientFeatures()
    assert ClientFeatures.from_capabilities({"window": "odd"}) == ClientFeatures()
