"""Handler errors: -32602 with JSON-pointer field errors, app codes, and no traceback."""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcException

from ink_ls.handlers._errors import guarded, validate
from ink_ls.protocol.errors import InkErrorCode, session_busy
from ink_ls.protocol.models import SessionPromptParams


def test_field_errors_are_json_pointers() -> None:
    with pytest.raises(JsonRpcException) as info:
        validate(SessionPromptParams, {"prompt": "", "range": {"start": {"line": -1}}})
    assert info.value.code == -32602
    assert info.value.data == {
        "errors": [
            {"loc": "/prompt", "msg": "String should have at least 1 character"},
            {"loc": "/range/start/line", "msg": "Input should be greater than or equal to 0"},
            {"loc": "/range/start/character", "msg": "Field required"},
            {"loc": "/range/end", "msg": "Field required"},
        ]
    }
    with pytest.raises(JsonRpcException) as info:
        validate(
            SessionPromptParams,
            {
                "prompt": "x",
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            },
        )
    assert info.value.data == {
        "errors": [{"loc": "(root)", "msg": "Value error, range needs textDocument"}]
    }
    assert validate(SessionPromptParams, {"prompt": "x", "extra": 1}).prompt == "x"


async def test_guarded_maps_refusals_and_hides_bugs() -> None:
    @guarded
    async def busy() -> None:
        raise session_busy("s1")

    @guarded
    async def bug() -> None:
        raise KeyError("oops")

    with pytest.raises(JsonRpcException) as info:
        await busy()
    assert (info.value.code, info.value.message, info.value.data) == (
        InkErrorCode.SESSION_BUSY,
        "session busy: s1 is already running a turn; cancel it or wait",
        None,
    )
    with pytest.raises(JsonRpcException) as info:
        await bug()
    assert (info.value.code, info.value.message, info.value.data) == (
        -32603,
        "internal error: 'oops'",
        None,
    )
