"""Images for the read tool: recognise PNG/JPEG/GIF/WebP by their bytes, and make them fit.

Fitting means: EXIF orientation applied, scaled into 2000×2000, base64 at most 4.5 MB. This
module only transforms bytes; it never reads files or formats a tool result.
"""

from __future__ import annotations

import base64
import io
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # Pillow is imported on the first image, not when the tools load
    from PIL import Image

from ink_ls.tools._truncate import format_size

MAX_SIDE = 2000
MAX_BASE64 = int(4.5 * 1024 * 1024)
# Quality and scale steps tried, in order, when a re-encoded image is still too big.
_QUALITIES = (85, 70, 55, 40)
_SCALES = (1.0, 0.75, 0.5, 0.35, 0.25)


def detect_mime(head: bytes) -> str | None:
    """The image MIME type of a file starting with `head`, or `None` if it is no supported image."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(head) >= 12 and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


@dataclass(frozen=True)
class FittedImage:
    """An image ready for an image block."""

    data: str
    mime_type: str
    width: int
    height: int
    original_width: int
    original_height: int


class ImageFitError(Exception):
    """The image could not be decoded or made to fit; the message says why, for the model."""


def _b64_len(n: int) -> int:
    return 4 * ((n + 2) // 3)


def _encode(img: Image.Image, fmt: str, quality: int) -> bytes:
    buf = io.BytesIO()
    if fmt == "JPEG":
        img.convert("RGB").save(buf, "JPEG", quality=quality, optimize=True)
    else:
        img.save(buf, "PNG")
    return buf.getvalue()


def fit_image(
    data: bytes,
    mime_type: str,
    *,
    max_side: int = MAX_SIDE,
    max_base64: int = MAX_BASE64,
    lenient: bool = False,
) -> FittedImage:
    """Decode `data`, apply EXIF orientation, scale to fit `max_side` and `max_base64`.

    The original bytes are returned untouched when nothing needed changing. Raises
    `ImageFitError` when the image cannot be decoded or cannot be made small enough.
    `lenient` tolerates damage Pillow can read past (a bad checksum in an ancillary chunk, a
    truncated end) and always re-encodes, so the bytes returned are clean.
    """
    from PIL import ExifTags, Image, ImageFile, ImageOps, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            # Pillow warns (and later raises) on decompression bombs; both mean "refuse".
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            strict = ImageFile.LOAD_TRUNCATED_IMAGES
            ImageFile.LOAD_TRUNCATED_IMAGES = lenient or strict
            try:
                img: Image.Image = Image.open(io.BytesIO(data))
                img.load()
            finally:
                ImageFile.LOAD_TRUNCATED_IMAGES = strict
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ImageFitError(f"it is too large to decode safely ({exc})") from exc
    except UnidentifiedImageError as exc:  # its text holds an object's repr
        raise ImageFitError("it could not be decoded: the bytes are no readable image") from exc
    except Exception as exc:  # Pillow raises many types for corrupt input
        raise ImageFitError(f"it could not be decoded: {exc}") from exc
    orientation = img.getexif().get(ExifTags.Base.Orientation, 1)
    transposed = orientation in range(2, 9)
    if transposed:
        img = ImageOps.exif_transpose(img)
    ow, oh = img.size
    fits = ow <= max_side and oh <= max_side and _b64_len(len(data)) <= max_base64
    if fits and not transposed and not lenient:
        return FittedImage(base64.b64encode(data).decode("ascii"), mime_type, ow, oh, ow, oh)

    if img.mode not in ("RGB", "RGBA", "L", "LA"):
        img = img.convert("RGBA" if "transparency" in img.info or img.mode == "P" else "RGB")
    w, h = img.size
    base = min(1.0, max_side / w, max_side / h)
    has_alpha = img.mode in ("RGBA", "LA")
    # Photos shrink best as JPEG; keep PNG for transparency and for PNG/GIF originals.
    formats = (
        ["PNG"]
        if has_alpha
        else (["JPEG"] if mime_type in ("image/jpeg", "image/webp") else ["PNG", "JPEG"])
    )
    for scale in _SCALES:
        size = (max(1, round(w * base * scale)), max(1, round(h * base * scale)))
        scaled = img if size == img.size else img.resize(size, Image.Resampling.LANCZOS)
        for fmt in formats:
            for quality in _QUALITIES if fmt == "JPEG" else (85,):
                out = _encode(scaled, fmt, quality)
                if _b64_len(len(out)) <= max_base64:
                    mime = "image/jpeg" if fmt == "JPEG" else "image/png"
                    b64 = base64.b64encode(out).decode("ascii")
                    return FittedImage(b64, mime, size[0], size[1], ow, oh)
    raise ImageFitError(
        f"even at {size[0]}x{size[1]} it is over the {format_size(max_base64)} limit"
    )
