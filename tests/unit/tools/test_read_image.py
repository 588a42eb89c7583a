"""read on real image files made with Pillow: detection by bytes, EXIF rotation, fitting."""

from __future__ import annotations

import base64
import io
import os
from pathlib import Path

import pytest
from PIL import Image

from ink_ls.core.messages import ImageBlock, TextBlock
from ink_ls.core.signal import NEVER
from ink_ls.core.tool import ToolContext, ToolResult
from ink_ls.tools._image import ImageFitError, detect_mime, fit_image
from ink_ls.tools.read import ReadParams, ReadTool


async def read(cwd: Path, path: str) -> ToolResult:
    return await ReadTool().execute(ReadParams(path=path), NEVER, ToolContext("c", cwd))


def encode(img: Image.Image, fmt: str, **kw: object) -> bytes:
    buf = io.BytesIO()
    img.save(buf, fmt, **kw)
    return buf.getvalue()


def image_of(result: ToolResult) -> tuple[str, Image.Image]:
    assert result.content is not None and len(result.content) == 2
    note, block = result.content
    assert isinstance(note, TextBlock) and isinstance(block, ImageBlock)
    assert note.text == result.output
    return block.mime_type, Image.open(io.BytesIO(base64.b64decode(block.data)))


@pytest.mark.parametrize(
    ("fmt", "mime"),
    [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("GIF", "image/gif"), ("WEBP", "image/webp")],
)
async def test_small_image_by_bytes_not_extension(tmp_path: Path, fmt: str, mime: str) -> None:
    data = encode(Image.new("RGB", (30, 20), (10, 200, 30)), fmt)
    (tmp_path / "picture.dat").write_bytes(data)  # no image extension on purpose
    r = await read(tmp_path, "picture.dat")
    assert (r.output, r.is_error) == (f"Read image file [{mime}]", False)
    got_mime, img = image_of(r)
    assert got_mime == mime and img.size == (30, 20)
    assert r.content is not None and isinstance(r.content[1], ImageBlock)
    assert base64.b64decode(r.content[1].data) == data  # nothing to change: bytes untouched


async def test_png_extension_with_text_is_read_as_text(tmp_path: Path) -> None:
    (tmp_path / "fake.png").write_text("not an image\n")
    r = await read(tmp_path, "fake.png")
    assert (r.output, r.content) == ("not an image", None)


async def test_exif_orientation_applied(tmp_path: Path) -> None:
    img = Image.new("RGB", (300, 100), (0, 0, 255))
    img.paste((255, 0, 0), (0, 0, 150, 100))  # left half red, right half blue
    exif = Image.Exif()
    exif[0x0112] = 6  # stored rotated: display needs a 90° clockwise turn
    (tmp_path / "photo.jpg").write_bytes(encode(img, "JPEG", exif=exif, quality=95))
    r = await read(tmp_path, "photo.jpg")
    mime, shown = image_of(r)
    assert mime == "image/jpeg"
    assert shown.size == (100, 300)
    top = shown.convert("RGB").getpixel((50, 20))
    bottom = shown.convert("RGB").getpixel((50, 280))
    assert isinstance(top, tuple) and isinstance(bottom, tuple)
    assert top[0] > 200 and top[2] < 60  # the red left half is now on top
    assert bottom[2] > 200 and bottom[0] < 60


async def test_large_image_scaled_into_2000(tmp_path: Path) -> None:
    img = Image.new("RGB", (4000, 3000), (200, 100, 50))
    (tmp_path / "big.png").write_bytes(encode(img, "PNG"))
    r = await read(tmp_path, "big.png")
    assert r.output == "Read image file [image/png] (original 4000x3000, shown at 2000x1500)"
    mime, shown = image_of(r)
    assert (mime, shown.size) == ("image/png", (2000, 1500))


async def test_noisy_image_over_the_byte_budget_is_recoded_to_fit(tmp_path: Path) -> None:
    noise = Image.frombytes("RGB", (2000, 2000), os.urandom(2000 * 2000 * 3))
    data = encode(noise, "PNG")
    assert len(data) > 4.5 * 1024 * 1024
    (tmp_path / "noise.png").write_bytes(data)
    r = await read(tmp_path, "noise.png")
    assert r.content is not None
    block = r.content[1]
    assert isinstance(block, ImageBlock)
    assert len(block.data) <= int(4.5 * 1024 * 1024)
    _, shown = image_of(r)
    assert max(shown.size) <= 2000


async def test_image_that_cannot_be_processed_gives_only_a_note(tmp_path: Path) -> None:
    bomb = Image.new("1", (20_000, 10_000))  # 200 M pixels: Pillow refuses to decode it
    (tmp_path / "huge.png").write_bytes(encode(bomb, "PNG"))
    r = await read(tmp_path, "huge.png")
    assert r.content is None and not r.is_error
    assert r.output.startswith(
        "Read image file [image/png], but the image is not attached: it is too large to "
        "decode safely (Image size (200000000 pixels) exceeds limit"
    )


async def test_corrupt_image_gives_only_a_note(tmp_path: Path) -> None:
    (tmp_path / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"garbage" * 10)
    r = await read(tmp_path, "broken.png")
    assert r.content is None and not r.is_error
    assert r.output.startswith(
        "Read image file [image/png], but the image is not attached: it could not be decoded:"
    )


def test_fit_gives_up_when_no_step_fits() -> None:
    noise = Image.frombytes("RGB", (400, 400), os.urandom(400 * 400 * 3))
    with pytest.raises(ImageFitError) as info:
        fit_image(encode(noise, "PNG"), "image/png", max_base64=1000)
    assert str(info.value) == "even at 100x100 it is over the 1000B limit"


def test_detect_mime() -> None:
    assert detect_mime(b"RIFF\x00\x00\x00\x00WEBPVP8 ") == "image/webp"
    assert detect_mime(b"RIFF\x00\x00\x00\x00WAVEfmt ") is None
    assert detect_mime(b"GIF87a...") == "image/gif"
    assert detect_mime(b"\xff\xd8\xff\xe0") == "image/jpeg"
    assert detect_mime(b"hello") is None
