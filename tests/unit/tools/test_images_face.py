"""`tools.images.check_image`: only real images pass, re-encoded when they were damaged."""

from __future__ import annotations

import base64
import io
import struct
import zlib

from PIL import Image

from ink_ls.tools.images import CheckedImage, check_image


def _png(size: tuple[int, int] = (3, 2)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (200, 10, 10)).save(out, "PNG")
    return out.getvalue()


def _with_bad_ancillary_crc(png: bytes) -> bytes:
    """`png` with a tEXt chunk whose checksum is wrong (as some servers ship their icons)."""
    data = b"Comment\x00hello"
    chunk = struct.pack(">I", len(data)) + b"tEXt" + data
    chunk += struct.pack(">I", (zlib.crc32(b"tEXt" + data) + 1) & 0xFFFFFFFF)
    return png[:33] + chunk + png[33:]


def test_a_real_image_passes_unchanged() -> None:
    data = base64.b64encode(_png()).decode()
    assert check_image(data, "image/png") == CheckedImage(data, "image/png")


def test_the_claimed_type_is_not_trusted() -> None:
    checked = check_image(base64.b64encode(_png()).decode(), "image/jpeg")
    assert isinstance(checked, CheckedImage) and checked.mime_type == "image/png"


def test_what_is_not_an_image_is_refused_with_a_reason() -> None:
    assert check_image("not*base64!", "image/png") == "its data is not valid base64"
    text = base64.b64encode(b"hello world, no image").decode()
    assert check_image(text, "image/png") == (
        "its bytes are not a PNG, JPEG, GIF or WebP image (claimed 'image/png')"
    )
    junk = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40).decode()
    refused = check_image(junk, "image/png")
    assert isinstance(refused, str) and refused.startswith("it could not be decoded")


def test_damage_pillow_reads_past_is_sent_re_encoded() -> None:
    damaged = _with_bad_ancillary_crc(_png())
    checked = check_image(base64.b64encode(damaged).decode(), "image/png")
    assert isinstance(checked, CheckedImage)
    clean = base64.b64decode(checked.data)
    assert clean != damaged and Image.open(io.BytesIO(clean)).size == (3, 2)
