"""The OpenAI-compatible Chat Completions client: one streamed reply per `stream` call.

Owns the HTTP side only — retries before the first streamed byte, cancellation that closes
the connection at once, and turning every failure into a `ModelError` with a sentence a user
can act on. Request shapes live in `convert`, chunk assembly in `assemble`, SSE in `sse`.
With the window set and Ollama behind the URL, chat goes to Ollama's native `/api/chat`
(`ollama`), the one API that runs the model with that window.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx

from ink_ls.core.config import ModelSettings
from ink_ls.core.messages import AssistantMessage
from ink_ls.core.signal import CancelSignal
from ink_ls.model.assemble import StreamAssembler
from ink_ls.model.base import (
    ModelError,
    ModelRequest,
    ReplyDone,
    StreamItem,
    TextDelta,
    ThinkingDelta,
    ToolCallReady,
)
from ink_ls.model.convert import request_body
from ink_ls.model.errors import (
    ModelContextLengthError,
    ModelHTTPError,
    ModelProtocolError,
    ModelTransportError,
    excerpt,
    is_context_length_error,
    redact,
    stream_error,
)
from ink_ls.model.ollama import DIALECT as OLLAMA
from ink_ls.model.ollama import LineTranslator, chat_body
from ink_ls.model.retry import MAX_RETRY_AFTER, backoff_delay, parse_retry_after
from ink_ls.model.sse import SSEDecoder, SSEEvent
from ink_ls.model.window import LOOKUP_TIMEOUT, server_root

log = logging.getLogger(__name__)

_CUT_OFF = (
    "the reply was cut off: the model endpoint closed the stream before the reply was "
    "complete (no finish_reason); the partial reply was discarded"
)
_ERROR_BODY_CAP = 64 * 1024
_JSON_BODY_CAP = 16 * 1024 * 1024

Sleep = Callable[[float], Awaitable[None]]


class _Retryable(Exception):
    """A failure before the first streamed byte that another attempt may fix."""

    def __init__(self, error: ModelError, short: str, retry_after: float | None = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.short = short
        """A few words for the retry log line."""
        self.retry_after = retry_after


class _Cancelled:
    pass


_CANCELLED = _Cancelled()
_QueueItem = StreamItem | BaseException | _Cancelled


class OpenAIClient:
    """Implements `ink_ls.model.base.Model` over `httpx.AsyncClient`. Close with `aclose()`."""

    def __init__(
        self,
        settings: ModelSettings,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Sleep | None = None,
        rng: Callable[[], float] | None = None,
    ) -> None:
        self.settings = settings
        timeout = httpx.Timeout(
            settings.request_timeout, connect=min(30.0, settings.request_timeout)
        )
        self._http = httpx.AsyncClient(transport=transport, timeout=timeout)
        self._url = settings.base_url + "/chat/completions"
        self._ollama: bool | None = None
        """Whether the endpoint is Ollama (asked once, only when the window is set)."""
        self._sleep: Sleep = sleep or asyncio.sleep
        self._rng = rng or random.random

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def stream(
        self, request: ModelRequest, signal: CancelSignal
    ) -> AsyncIterator[StreamItem]:
        """Stream one reply: `TextDelta`s and `ToolCallReady`s, then one `ReplyDone`.

        On cancel the HTTP stream is closed at once and the last item is a `ReplyDone` whose
        message has `stop_reason="aborted"` and the text received so far (no tool calls).
        Raises `ModelError` on failure.
        """
        if signal.cancelled:
            yield ReplyDone(AssistantMessage(stop_reason="aborted"))
            return
        queue: asyncio.Queue[_QueueItem] = asyncio.Queue()
        worker = asyncio.create_task(self._work(request, queue))

        def on_cancel() -> None:
            worker.cancel()  # closes the connection: the task leaves `async with stream`
            queue.put_nowait(_CANCELLED)

        unsubscribe = signal.subscribe(on_cancel)
        text: list[str] = []
        try:
            while True:
                item = await queue.get()
                if signal.cancelled or isinstance(item, _Cancelled):
                    await asyncio.wait({worker})
                    yield ReplyDone(AssistantMessage(text="".join(text), stop_reason="aborted"))
                    return
                if isinstance(item, BaseException):
                    raise item
                if isinstance(item, TextDelta):
                    text.append(item.text)
                yield item
                if isinstance(item, ReplyDone):
                    return
        finally:
            unsubscribe()
            if not worker.done():
                worker.cancel()
                await asyncio.wait({worker})

    async def _work(self, request: ModelRequest, queue: asyncio.Queue[_QueueItem]) -> None:
        try:
            await self._attempts(request, queue.put_nowait)
        except asyncio.CancelledError:
            raise
        except ModelError as exc:
            queue.put_nowait(exc)
        except Exception as exc:  # a bug must reach the caller, not die in a task
            queue.put_nowait(exc)

    async def _attempts(self, request: ModelRequest, put: Callable[[_QueueItem], None]) -> None:
        key = self.settings.resolved_api_key()
        native = await self._native_ollama()
        if native:  # only Ollama's own API runs the model with the window the user set
            url, body = (
                server_root(self.settings.base_url) + "/api/chat",
                chat_body(request, self.settings),
            )
        else:
            url, body = self._url, request_body(request, self.settings)
        headers = {"Accept": "text/event-stream"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        attempts = self.settings.max_retries + 1
        for attempt in range(1, attempts + 1):
            log.debug(
                "POST %s model=%s messages=%d attempt=%d",
                url,
                self.settings.model,
                len(body["messages"]),
                attempt,
            )
            try:
                await self._once(url, body, headers, key, put, native=native)
                return
            except _Retryable as retry:
                if attempt == attempts:
                    raise _after_attempts(retry.error, attempts) from None
                if retry.retry_after is not None and retry.retry_after > MAX_RETRY_AFTER:
                    raise _with_note(
                        retry.error,
                        (
                            f" (the endpoint asked to retry after {retry.retry_after:.0f} s, "
                            "longer than ink-ls waits)"
                        ),
                    ) from None
                delay = self._backoff(attempt, retry.retry_after)
                log.warning(
                    "model request to %s failed (%s); retrying in %.1f s (retry %d of %d)",
                    self.settings.base_url,
                    retry.short,
                    delay,
                    attempt,
                    attempts - 1,
                )
                await self._sleep(delay)

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        return backoff_delay(attempt, retry_after, self._rng())

    async def _native_ollama(self) -> bool:
        """True when the window is set and the endpoint is Ollama (`GET /api/version`)."""
        if self._ollama is None:
            self._ollama = False
            if self.settings.context_window is not None:
                root = server_root(self.settings.base_url)
                try:
                    resp = await self._http.get(root + "/api/version", timeout=LOOKUP_TIMEOUT)
                    answer = resp.json() if resp.is_success else None
                except (httpx.HTTPError, ValueError):
                    answer = None
                self._ollama = isinstance(answer, dict) and isinstance(answer.get("version"), str)
                if self._ollama:
                    log.info("Ollama at %s: chat goes to its native /api/chat (num_ctx)", root)
        return self._ollama

    async def _once(
        self,
        url: str,
        body: dict[str, object],
        headers: dict[str, str],
        key: str | None,
        put: Callable[[_QueueItem], None],
        *,
        native: bool = False,
    ) -> None:
        got_bytes = False
        try:
            async with self._http.stream("POST", url, json=body, headers=headers) as resp:
                if resp.status_code >= 300:
                    raw = await _read_capped(resp, _ERROR_BODY_CAP)
                    raise self._status_error(resp, raw, key)
                if resp.headers.get("content-type", "").startswith("application/json"):
                    raw = await _read_capped(resp, _JSON_BODY_CAP)
                    put(ReplyDone(_whole_reply(raw, key)))
                    return
                if native:
                    seen = [False]
                    try:
                        await _read_ollama(resp, key, put, seen)
                    finally:
                        got_bytes = seen[0]
                    return
                decoder = SSEDecoder()
                assembler = StreamAssembler(secret=key)
                try:
                    async for chunk in resp.aiter_bytes():
                        if not chunk:
                            continue
                        got_bytes = True
                        for event in decoder.feed(chunk):
                            if _handle(event, assembler, put, key):
                                return
                except httpx.TransportError:
                    if not assembler.finished:
                        raise
                    # the finish chunk arrived: the reply is whole, only its end was lost
                    log.info("the model stream closed uncleanly after its finish_reason")
                for event in decoder.close():
                    if _handle(event, assembler, put, key):
                        return
                if assembler.finished:  # no [DONE] after the finish chunk (ik_llama.cpp, …)
                    put(ReplyDone(assembler.finish()))
                    return
                if not got_bytes:
                    raise _Retryable(
                        ModelProtocolError(
                            f"the model endpoint at {self.settings.base_url} sent an empty reply"
                        ),
                        "empty reply",
                    )
                raise ModelProtocolError(_CUT_OFF)
        except httpx.TimeoutException as exc:
            error = ModelTransportError(
                f"the model endpoint at {self.settings.base_url} did not answer within "
                f"{self.settings.request_timeout:g} s ({type(exc).__name__}); raise the request "
                "timeout (INK_REQUEST_TIMEOUT) if the model is slow"
            )
            if got_bytes:
                raise error from None
            raise _Retryable(error, "timed out") from None
        except httpx.TransportError as exc:
            detail = redact(str(exc) or type(exc).__name__, key)
            if got_bytes:
                raise ModelTransportError(f"{_CUT_OFF} ({detail})") from None
            raise _Retryable(
                ModelTransportError(
                    f"cannot reach the model endpoint at {self.settings.base_url} ({detail}); "
                    "start a server there (e.g. `ollama serve`) or set INK_BASE_URL "
                    "(or --base-url) to your OpenAI-compatible endpoint"
                ),
                detail,
            ) from None

    def _status_error(self, resp: httpx.Response, raw: bytes, key: str | None) -> Exception:
        status = resp.status_code
        text = raw.decode("utf-8", "replace")
        short = excerpt(text, key)
        where = f"the model endpoint at {self.settings.base_url}"
        if is_context_length_error(status, text):
            return ModelContextLengthError(
                status,
                short,
                f"the conversation no longer fits the model's context window "
                f"(HTTP {status}: {short}); start a new session",
            )
        if status == 408 or status == 429 or status >= 500:
            error = ModelHTTPError(status, short, f"{where} answered HTTP {status}: {short}")
            return _Retryable(error, f"HTTP {status}", parse_retry_after(resp.headers))
        hint = ""
        if 300 <= status < 400:
            hint = (
                f"; it redirects to {resp.headers.get('location', '(no location)')}: "
                "set the base URL to the final address"
            )
        elif status in (401, 403):
            hint = "; check the API key (INK_API_KEY, or the variable named by --api-key-env)"
        elif status == 404:
            hint = (
                f"; check the base URL (it usually ends in /v1) and the model name "
                f'"{self.settings.model}"'
            )
        return ModelHTTPError(status, short, f"{where} answered HTTP {status}: {short}{hint}")


def _after_attempts(error: ModelError, attempts: int) -> ModelError:
    """The last error, saying how often it was tried."""
    return _with_note(error, f" (gave up after {attempts} attempts)" if attempts > 1 else "")


def _with_note(error: ModelError, note: str) -> ModelError:
    """The same kind of error with `note` appended to its message."""
    if isinstance(error, ModelHTTPError):
        return type(error)(error.status, error.body_excerpt, f"{error}{note}")
    return type(error)(f"{error}{note}")


def _handle(
    event: SSEEvent, assembler: StreamAssembler, put: Callable[[_QueueItem], None], key: str | None
) -> bool:
    """Process one SSE event; True when the reply is complete."""
    data = event.data
    if event.event == "error":  # `event: error` or llama.cpp's `error:` line
        raise stream_error(data, key, started=bool(assembler.text))
    if data.strip() == "[DONE]":
        put(ReplyDone(assembler.finish()))
        return True
    try:
        chunk = json.loads(data)
    except ValueError:
        raise ModelProtocolError(
            f"the model endpoint sent a stream item that is not JSON: {excerpt(data, key, 120)}"
        ) from None
    _feed(chunk, assembler, put)
    return False


def _feed(chunk: object, assembler: StreamAssembler, put: Callable[[_QueueItem], None]) -> None:
    """One decoded chunk into the assembler; what it completed goes to the consumer."""
    added = assembler.feed(chunk)
    thought = assembler.take_thinking()
    if thought:
        put(ThinkingDelta(thought))
    if added:
        put(TextDelta(added))
    for index, call in assembler.take_ready():
        put(ToolCallReady(index, call))


async def _read_ollama(
    resp: httpx.Response, key: str | None, put: Callable[[_QueueItem], None], seen: list[bool]
) -> None:
    """Ollama's native stream: one JSON object per line, the last with `done: true`.
    `seen[0]` turns True with the first line (no retry after it)."""
    assembler = StreamAssembler(secret=key, dialect=OLLAMA)
    lines = LineTranslator()
    async for line in resp.aiter_lines():
        if not line.strip():
            continue
        seen[0] = True
        try:
            item = json.loads(line)
        except ValueError:
            raise ModelProtocolError(
                f"Ollama sent a stream line that is not JSON: {excerpt(line, key, 120)}"
            ) from None
        _feed(lines.chunk(item), assembler, put)
        if assembler.finished:
            put(ReplyDone(assembler.finish()))
            return
    if not seen[0]:
        raise _Retryable(ModelProtocolError("Ollama sent an empty reply"), "empty reply")
    raise ModelTransportError(_CUT_OFF)


def _whole_reply(raw: bytes, key: str | None) -> AssistantMessage:
    """A non-streamed JSON completion (servers that ignore `stream: true`)."""
    try:
        data = json.loads(raw)
        choice = data["choices"][0]
        delta = choice["message"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise ModelProtocolError(
            f"the model endpoint sent a reply that is not a chat completion: {excerpt(raw, key)}"
        ) from None
    assembler = StreamAssembler(secret=key)
    assembler.feed(
        {
            "choices": [{"delta": delta, "finish_reason": choice.get("finish_reason")}],
            "usage": data.get("usage"),
        }
    )
    return assembler.finish()


async def _read_capped(resp: httpx.Response, cap: int) -> bytes:
    parts: list[bytes] = []
    size = 0
    async for chunk in resp.aiter_bytes():
        parts.append(chunk)
        size += len(chunk)
        if size >= cap:
            break
    return b"".join(parts)[:cap]
