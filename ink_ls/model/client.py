"""The model client every provider shares: one streamed reply per `stream` call.

Owns the HTTP side only — retries before the first streamed byte, cancellation that closes
the connection at once, and turning every failure into a `ModelError` with a sentence a user
can act on. What differs per API (URL, headers, body, framing, stream parsing) is a `Dialect`
(`chat`, `responses`, `anthropic`); SSE framing is `sse`. With the window set and Ollama
behind a Chat Completions URL, chat goes to Ollama's native `/api/chat` (`ollama_dialect`),
the one API that runs the model with that window. Connections come from small pools that
stay cheap under a burst (`pool`); an endpoint with a request limit queues fairly (`queue`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx

from ink_ls.core.config import ModelSettings
from ink_ls.core.messages import AssistantMessage
from ink_ls.core.signal import CancelSignal
from ink_ls.model.base import (
    ModelError,
    ModelRequest,
    Queued,
    ReplyDone,
    StreamItem,
    TextDelta,
)
from ink_ls.model.chat import ChatDialect
from ink_ls.model.dialect import Dialect
from ink_ls.model.errors import (
    ModelContextLengthError,
    ModelHTTPError,
    ModelProtocolError,
    ModelTransportError,
    excerpt,
    is_context_length_error,
    redact,
)
from ink_ls.model.pool import ShardedClient
from ink_ls.model.queue import EndpointQueues
from ink_ls.model.retry import MAX_RETRY_AFTER, backoff_delay, parse_retry_after
from ink_ls.model.window import LOOKUP_TIMEOUT, server_root
from ink_ls.model.wire import encode_body

log = logging.getLogger(__name__)

READ_REST_TIMEOUT = 2.0
"""Seconds a finished reply's connection waits for the rest of its body before it is closed."""
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


class ModelClient:
    """Implements `ink_ls.model.base.Model` for one `Dialect` over `httpx.AsyncClient`.
    Close with `aclose()`."""

    def __init__(
        self,
        settings: ModelSettings,
        dialect: Dialect,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Sleep | None = None,
        rng: Callable[[], float] | None = None,
        queues: EndpointQueues | None = None,
    ) -> None:
        self.settings = settings
        timeout = httpx.Timeout(
            settings.request_timeout, connect=min(30.0, settings.request_timeout)
        )
        self._http = ShardedClient(timeout, url=settings.base_url, transport=transport)
        self._queue = (queues or EndpointQueues()).get(
            settings.base_url, settings.max_concurrent_requests
        )
        """The endpoint's fair queue, shared by its clients (None: no limit)."""
        self.dialect = dialect
        self._ollama: bool | None = None
        """Whether the endpoint is Ollama (asked once, only for chat with the window set)."""
        self._sleep: Sleep = sleep or asyncio.sleep
        self._rng = rng or random.random
        self._finishing: set[asyncio.Task[None]] = set()
        """Workers reading the end of a body whose reply was already delivered."""

    async def aclose(self) -> None:
        """Close the connection pool (after the ends of finished replies are read)."""
        if self._finishing:
            await asyncio.wait(set(self._finishing))
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
        whole = False
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
                whole = isinstance(item, ReplyDone)
                yield item
                if whole:
                    return
        finally:
            unsubscribe()
            if whole and not worker.done():
                # the reply is whole: the worker only reads the rest of the body, so that
                # its connection serves the next request (`_read_rest`, bounded)
                self._finishing.add(worker)
                worker.add_done_callback(self._finishing.discard)
            elif not worker.done():
                worker.cancel()
                await asyncio.wait({worker})

    async def _work(self, request: ModelRequest, queue: asyncio.Queue[_QueueItem]) -> None:
        try:
            if self._queue is None:
                await self._attempts(request, queue.put_nowait)
                return
            waited = False

            def report(ahead: int) -> None:
                nonlocal waited
                waited = True
                queue.put_nowait(Queued(ahead))

            # a cancel while waiting leaves the queue (the task is cancelled in `slot`)
            async with self._queue.slot(report):
                if waited:
                    queue.put_nowait(Queued(None))
                await self._attempts(request, queue.put_nowait)
        except asyncio.CancelledError:
            raise
        except ModelError as exc:
            queue.put_nowait(exc)
        except Exception as exc:  # a bug must reach the caller, not die in a task
            queue.put_nowait(exc)

    async def _attempts(self, request: ModelRequest, put: Callable[[_QueueItem], None]) -> None:
        dialect = self.dialect
        if dialect.name == "openai-chat" and await self._native_ollama():
            from ink_ls.model.ollama_dialect import OllamaDialect

            dialect = OllamaDialect()  # only Ollama's own API runs the model with the window
        url = dialect.url(self.settings.base_url)
        # encoded once for all attempts; the conversation's past messages come pre-encoded
        body = encode_body(dialect.body(request, self.settings))
        key = self.settings.resolved_api_key()
        headers = {**dialect.headers(key), "Content-Type": "application/json"}
        attempts = self.settings.max_retries + 1
        for attempt in range(1, attempts + 1):
            log.debug(
                "POST %s model=%s messages=%d attempt=%d",
                url,
                self.settings.model,
                len(request.messages),
                attempt,
            )
            try:
                await self._once(dialect, url, body, headers, key, put, request.on_sent)
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
                    async with self._http.lease() as http:
                        resp = await http.get(root + "/api/version", timeout=LOOKUP_TIMEOUT)
                    answer = resp.json() if resp.is_success else None
                except (httpx.HTTPError, ValueError):
                    answer = None
                self._ollama = isinstance(answer, dict) and isinstance(answer.get("version"), str)
                if self._ollama:
                    log.info("Ollama at %s: chat goes to its native /api/chat (num_ctx)", root)
        return self._ollama

    async def _once(
        self,
        dialect: Dialect,
        url: str,
        body: bytes,
        headers: dict[str, str],
        key: str | None,
        put: Callable[[_QueueItem], None],
        sent: Callable[[], None] | None = None,
    ) -> None:
        got_bytes = False
        parser = dialect.parser(key)
        try:
            async with (
                self._http.lease() as http,
                http.stream("POST", url, content=body, headers=headers) as resp,
            ):
                if resp.status_code >= 300:
                    raw = await _read_capped(resp, _ERROR_BODY_CAP)
                    raise self._status_error(resp, raw, key)
                if sent is not None:
                    sent()
                if resp.headers.get("content-type", "").startswith("application/json"):
                    raw = await _read_capped(resp, _JSON_BODY_CAP)
                    put(ReplyDone(dialect.whole_reply(raw, key)))
                    return
                decoder = dialect.decoder()
                try:
                    chunks = resp.aiter_bytes()
                    async for chunk in chunks:
                        if not chunk:
                            continue
                        got_bytes = True
                        for event in decoder.feed(chunk):
                            if _deliver(parser.feed(event), put):
                                await _read_rest(chunks)
                                return
                        # let the consumer show what this chunk brought before the next one
                        # (a read of buffered bytes does not yield to the event loop)
                        await asyncio.sleep(0)
                except httpx.TransportError:
                    if not parser.finished:
                        raise
                    # the reply's end arrived: it is whole, only the stream's close was lost
                    log.info("the model stream closed uncleanly after the reply was complete")
                for event in decoder.close():
                    if _deliver(parser.feed(event), put):
                        return
                if parser.finished:  # no end marker after the stop reason (ik_llama.cpp, …)
                    put(ReplyDone(parser.end()))
                    return
                if not got_bytes:
                    raise _Retryable(
                        ModelProtocolError(
                            f"the model endpoint at {self.settings.base_url} sent an empty reply"
                        ),
                        "empty reply",
                    )
                raise ModelProtocolError(parser.cut_off)
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
                raise ModelTransportError(f"{parser.cut_off} ({detail})") from None
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


def _deliver(items: list[StreamItem], put: Callable[[_QueueItem], None]) -> bool:
    """Hand a parser's items on; True when the reply is complete."""
    for item in items:
        put(item)
        if isinstance(item, ReplyDone):
            return True
    return False


async def _read_rest(chunks: AsyncIterator[bytes]) -> None:
    """Read what is left of a finished reply's body (`[DONE]`, the chunked end; the reply
    has already gone to the loop): a connection closed mid-body is dropped, and every request
    then paid a new one (a TLS handshake with a real endpoint). Bounded: an endpoint that
    keeps the body open after its reply gets the connection closed, as before."""
    with contextlib.suppress(httpx.HTTPError, TimeoutError):
        async with asyncio.timeout(READ_REST_TIMEOUT):
            async for _ in chunks:
                pass


async def _read_capped(resp: httpx.Response, cap: int) -> bytes:
    parts: list[bytes] = []
    size = 0
    async for chunk in resp.aiter_bytes():
        parts.append(chunk)
        size += len(chunk)
        if size >= cap:
            break
    return b"".join(parts)[:cap]


class OpenAIClient(ModelClient):
    """The Chat Completions client (OpenAI and every OpenAI-compatible server)."""

    def __init__(
        self,
        settings: ModelSettings,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Sleep | None = None,
        rng: Callable[[], float] | None = None,
        queues: EndpointQueues | None = None,
    ) -> None:
        super().__init__(
            settings, ChatDialect(), transport=transport, sleep=sleep, rng=rng, queues=queues
        )
