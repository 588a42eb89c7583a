"""The public face of image checking for other packages (MCP results): base64 image data from
outside becomes an image the model API accepts, or a sentence saying why it is left out.

The bytes must decode (Pillow) as PNG, JPEG, GIF or WebP, whatever MIME type was claimed;
they are then fitted like the read tool's images (2000×2000, base64 at most 4.5 MB). Bytes with
damage Pillow reads past are sent re-encoded, never as they came.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from ink_ls.tools._image import MAX_BASE64, ImageFitError, detect_mime, fit_image

__all__ = ["CheckedImage", "check_image"]

MAX_INPUT = 8 * MAX_BASE64
"""Base64 characters looked at, at most (a bigger image is refused before it is decoded)."""


@dataclass(frozen=True)
class CheckedImage:
    """An image ready for an image block."""

    data: str
    mime_type: str


def check_image(data: str, claimed_mime: str) -> CheckedImage | str:
    """The image in base64 `data`, verified and fitted; or why it cannot be sent (a phrase such
    as "its data is not valid base64")."""
    if len(data) > MAX_INPUT:
        return f"it is too large ({len(data)} base64 characters)"
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return "its data is not valid base64"
    mime = detect_mime(raw[:16])
    if mime is None:
        return f"its bytes are not a PNG, JPEG, GIF or WebP image (claimed {claimed_mime!r})"
    try:
        fitted = fit_image(raw, mime)
    except ImageFitError:
        try:  # damage Pillow can read past (a bad ancillary checksum): sent re-encoded, clean
            fitted = fit_image(raw, mime, lenient=True)
        except ImageFitError as exc:
            return str(exc)
    return CheckedImage(fitted.data, fitted.mime_type)
