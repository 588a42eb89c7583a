"""An MCP `CallToolResult` as our tool result: text and images, resources as text, capped.

Text over 500 lines or 50 KB is cut like bash output: the model sees the head and a note
naming a file (`ink-output-<uuid>.log`, in this process's log directory: its first 10 MiB,
at most 100 such files, removed at exit) that holds the full text. Images are decoded and
checked before they reach the model; one that is not a real image becomes a text note.
"""

from __future__ import annotations

import json

import mcp_types as types

from ink_ls.core.messages import ContentBlock, ImageBlock, TextBlock
from ink_ls.core.tool import ToolResult
from ink_ls.tools.images import CheckedImage, check_image
from ink_ls.tools.outputs import LOG_BYTES, save_text

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
    saved = save_text(text)
    if saved.path is None:
        where = f"The full output could not be saved: {saved.error}."
    elif saved.complete:
        where = f"Full output: {saved.path}; read it with the read tool."
    else:
        mib = LOG_BYTES // (1024 * 1024)
        where = f"Full output: {saved.path} (its first {mib} MiB); read it with the read tool."
    return "\n".join(kept) + f"\n[output cut: showing {shown} ({limit}). {where}]"


def to_tool_result(result: types.CallToolResult) -> ToolResult:
    """Texts joined and capped, images as image blocks, `isError` as a failed result."""
    texts: list[str] = []
    images: list[ImageBlock] = []
    for number, block in enumerate(result.content, start=1):
        if isinstance(block, types.ImageContent) and len(images) < MAX_IMAGES:
            checked = check_image(block.data, block.mime_type)
            if isinstance(checked, CheckedImage):
                images.append(ImageBlock(data=checked.data, mime_type=checked.mime_type))
            else:  # never sent: one bad image would fail every later model request
                texts.append(f"[image {number} of the result not shown: {checked}]")
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


def too_large(tool: str, data: object) -> str:
    """The note for a result dropped by the transport for its size (`data` from its error)."""
    info = data if isinstance(data, dict) else {}
    size = info.get("bytes")
    limit = info.get("limit")
    shown = f"{size / (1024 * 1024):.1f} MiB" if isinstance(size, int) else "too large"
    cap = f"{limit // (1024 * 1024)} MiB" if isinstance(limit, int) else "the limit"
    text = f"Error: the result of {tool} was {shown}, over the {cap} limit for one MCP message"
    path = info.get("savedTo")
    if isinstance(path, str):
        saved = info.get("savedBytes")
        part = f"its first {saved:,} bytes" if isinstance(saved, int) else "its start"
        return (
            f"{text}, so it was not read. {part[0].upper()}{part[1:]} (the raw JSON-RPC message) "
            f"are in {path}; read it with the read tool, or ask the tool for less."
        )
    why = info.get("saveError") or "no file could be written"
    return f"{text}, so it was not read nor saved ({why}). Ask the tool for less."
