"""An MCP `CallToolResult` as our tool result: text and images, resources as text, capped.

Text over 500 lines or 50 KB is cut like bash output: the model sees the head and a note
naming a file (`ink-output-<uuid>.log`, in the temp directory) that holds the full text.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import uuid

import mcp_types as types

from ink_ls.core.messages import ContentBlock, ImageBlock, TextBlock
from ink_ls.core.tool import ToolResult

MAX_LINES = 500
MAX_BYTES = 50 * 1024
MAX_IMAGES = 8


def _size(data: str) -> int:
    """Bytes of base64 `data` once decoded (approximate for padding)."""
    return len(data) * 3 // 4


def _resource_text(resource: types.TextResourceContents | types.BlobResourceContents) -> str:
    if isinstance(resource, types.TextResourceContents):
        return f"[resource {resource.uri}]\n{resource.text}"
    mime = resource.mime_type or "application/octet-stream"
    return f"[resource {resource.uri}: {mime}, {_size(resource.blob)} bytes of binary data]"


def _block_text(block: object) -> str | None:
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.ResourceLink):
        extra = " — ".join(x for x in (block.mime_type, block.description) if x)
        return f"[resource link {block.name}: {block.uri}{' (' + extra + ')' if extra else ''}]"
    if isinstance(block, types.EmbeddedResource):
        return _resource_text(block.resource)
    if isinstance(block, types.AudioContent):
        return f"[audio: {block.mime_type}, {_size(block.data)} bytes, not shown]"
    if isinstance(block, types.ImageContent):
        return None
    return f"[{getattr(block, 'type', type(block).__name__)} content, not shown]"


def _save(text: str) -> str | None:
    path = os.path.join(tempfile.gettempdir(), f"ink-output-{uuid.uuid4()}.log")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        with open(fd, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(path)
        return None
    return path


def cap_text(text: str) -> str:
    """`text`, or its head plus a note and the full text saved to a file."""
    lines = text.split("\n")
    if len(lines) <= MAX_LINES and len(text.encode()) <= MAX_BYTES:
        return text
    kept: list[str] = []
    size = 0
    for line in lines[:MAX_LINES]:
        size += len(line.encode()) + 1
        if size > MAX_BYTES:
            break
        kept.append(line)
    limit = f"{MAX_LINES} line limit" if len(kept) == MAX_LINES else "50KB limit"
    shown = f"lines 1-{len(kept)} of {len(lines)}" if kept else f"nothing of {len(lines)} lines"
    path = _save(text)
    where = (
        f"Full output: {path}; read it with the read tool."
        if path
        else "The full output could not be saved."
    )
    return "\n".join(kept) + f"\n[output cut: showing {shown} ({limit}). {where}]"


def to_tool_result(result: types.CallToolResult) -> ToolResult:
    """Texts joined and capped, images as image blocks, `isError` as a failed result."""
    texts: list[str] = []
    images: list[ImageBlock] = []
    for block in result.content:
        if isinstance(block, types.ImageContent) and len(images) < MAX_IMAGES:
            images.append(ImageBlock(data=block.data, mime_type=block.mime_type))
            continue
        text = _block_text(block)
        if text is None:
            text = "[image not shown: too many images in one result]"
        texts.append(text)
    if not result.content and result.structured_content is not None:
        texts.append(json.dumps(result.structured_content, ensure_ascii=False, indent=2))
    text = cap_text("\n".join(texts)) if texts else ("" if images else "(no output)")
    content: list[ContentBlock] = [TextBlock(text=text)] if text else []
    content += images
    return ToolResult(output=text, is_error=bool(result.is_error), content=content)
