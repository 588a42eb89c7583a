"""Maps failures inside `ink/*` handlers to JSON-RPC errors: -32602 with field errors,
app codes from `InkErrorCode`, and -32603 with a message only (never a traceback)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from pygls.exceptions import JsonRpcException

from ink_ls.protocol.errors import INTERNAL_ERROR, INVALID_PARAMS, InkRequestError

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

log = logging.getLogger(__name__)

M = TypeVar("M", bound="BaseModel")


def field_errors(exc: ValidationError) -> list[dict[str, str]]:
    """`[{loc: "/prompt", msg: "Field required"}, …]` with JSON-pointer locations."""
    out = []
    for err in exc.errors(include_input=False, include_url=False):
        loc = "".join(f"/{part}" for part in err["loc"]) or "(root)"
        out.append({"loc": loc, "msg": str(err["msg"])})
    return out


def validate(model: type[M], params: Any) -> M:
    """Validate raw params (a dict; null counts as `{}`) or raise -32602 with field errors."""
    from pydantic import ValidationError  # not on the `initialize` path

    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise JsonRpcException(
            "invalid params: params must be an object",
            INVALID_PARAMS,
            {"errors": [{"loc": "(root)", "msg": "Input should be an object"}]},
        )
    try:
        return model.model_validate(params)
    except ValidationError as exc:
        errors = field_errors(exc)
        summary = "; ".join(f"{e['loc']}: {e['msg']}" for e in errors[:5])
        raise JsonRpcException(
            f"invalid params: {summary}", INVALID_PARAMS, {"errors": errors}
        ) from None


R = TypeVar("R")


def guarded(fn: Callable[..., Awaitable[R]]) -> Callable[..., Awaitable[R]]:
    """Wrap an async handler so only clean JSON-RPC errors leave it."""

    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> R:
        try:
            return await fn(*args, **kwargs)
        except JsonRpcException:
            raise
        except InkRequestError as exc:
            raise JsonRpcException(exc.message, exc.code, exc.data) from None
        except Exception as exc:
            log.exception("handler %s failed", fn.__name__)
            raise JsonRpcException(f"internal error: {exc}", INTERNAL_ERROR) from None

    return wrapper
