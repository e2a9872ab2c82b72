"""The loader: every input format to displayed RGB pages, and a clear InputError for every bad input.

Pictures are tiny synthetic files written into ``tmp_path``: four coloured quadrants whose
places show that content, orientation and page order survive decoding.
"""

from __future__ import annotations

import io
import multiprocessing
import os
import pickle
import struct
import subprocess
import sys
import warnings
import zipfile
import zlib
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np
import pymupdf
import pytest
from PIL import Image, TiffImagePlugin, features

from nsvision.calibration import load_calibration
from nsvision.errors import ExitCode, InputError, NoMapFoundError
from nsvision.pipeline import analyze_file
from nsvision.vision.load import LoadedPage, load_array, load_page, load_pages, page_count

RED = (230, 30, 30)
GREEN = (30, 180, 30)
BLUE = (30, 30, 220)
YELLOW = (240, 220, 40)
TL, TR, BL, BR = RED, GREEN, BLUE, YELLOW
"""Quadrant colours of the stored test picture: top-left, top-right, bottom-left, bottom-right."""


def quadrants(width: int = 480, height: int = 360, colours: tuple = (TL, TR, BL, BR)) -> np.ndarray:
    img = np.empty((height, width, 3), np.uint8)
    hh, hw = height // 2, width // 2
    img[:hh, :hw], img[:hh, hw:], img[hh:, :hw], img[hh:, hw:] = colours
    return img


def quadrant_colours(img: np.ndarray) -> list[tuple[int, ...]]:
    """Mean colour near the centre of each quadrant: TL, TR, BL, BR."""
    h, w = img.shape[:2]
    out = []
    for fy, fx in ((0.25, 0.25), (0.25, 0.75), (0.75, 0.25), (0.75, 0.75)):
        y, x, r = int(h * fy), int(w * fx), max(2, min(h, w) // 16)
        out.append(tuple(int(v) for v in img[y - r : y + r, x - r : x + r].reshape(-1, 3).mean(axis=0)))
    return out


def assert_quadrants(page: LoadedPage, expected: tuple, tol: int = 30) -> None:
    assert page.image.dtype == np.uint8 and page.image.ndim == 3 and page.image.shape[2] == 3
    for got, want in zip(quadrant_colours(page.image), expected, strict=True):
        assert max(abs(g - w) for g, w in zip(got, want, strict=True)) <= tol, (quadrant_colours(page.image), expected)


def exif_bytes(orientation: int) -> bytes:
    exif = Image.Exif()
    exif[0x0112] = orientation
    return exif.tobytes()


def save(img: np.ndarray | Image.Image, path: Path, fmt: str, **kw: object) -> Path:
    im = img if isinstance(img, Image.Image) else Image.fromarray(img)
    if fmt == "HEIF":
        from pillow_heif import register_heif_opener

        register_heif_opener()
    im.save(path, fmt, **kw)
    return path


def scan_pdf(path: Path, pages: list[np.ndarray], dpi: float = 150) -> Path:
    """A PDF of full-page scans, the way scanners and ``nsvision sample --format pdf`` write one."""
    ims = [Image.fromarray(p) for p in pages]
    ims[0].save(path, "PDF", save_all=True, append_images=ims[1:], resolution=dpi)
    return path


# -- formats ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "name", "tol"),
    [
        ("PNG", "a.png", 0),
        ("BMP", "a.bmp", 0),
        ("TIFF", "a.tif", 0),
        ("JPEG", "a.jpg", 30),
        ("WEBP", "a.webp", 30),
        ("HEIF", "a.heic", 30),
        pytest.param(
            "AVIF", "a.avif", 30, marks=pytest.mark.skipif(not features.check("avif"), reason="Pillow without AVIF")
        ),
    ],
)
def test_each_format_keeps_content_in_place(tmp_path: Path, fmt: str, name: str, tol: int) -> None:
    path = save(quadrants(), tmp_path / name, fmt)
    page = load_page(path)
    assert page.image.shape == (360, 480, 3)
    assert_quadrants(page, (TL, TR, BL, BR), tol)
    assert (page.source, page.page, page.page_count) == (str(path), 1, 1)
    assert (page.original_size, page.scale, page.exif_orientation) == ((480, 360), 1.0, 1)
    assert page_count(path) == 1


def test_a_photo_does_not_pay_for_importing_the_pdf_renderer(tmp_path: Path) -> None:
    path = save(quadrants(), tmp_path / "a.jpg", "JPEG")
    code = (
        "import sys; from nsvision.vision.load import load_page; "
        f"load_page({str(path)!r}); print('pymupdf' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr


def test_type_is_read_from_content_not_extension(tmp_path: Path) -> None:
    png_named_jpg = save(quadrants(), tmp_path / "photo.jpg", "PNG")
    page = load_page(png_named_jpg)
    assert page.format == "png"
    assert_quadrants(page, (TL, TR, BL, BR), tol=0)
    no_extension = save(quadrants(), tmp_path / "scan", "JPEG")
    assert load_page(no_extension).format == "jpeg"


def test_two_page_tiff_gives_each_page_in_order(tmp_path: Path) -> None:
    first, second = quadrants(), quadrants(colours=(BR, BL, TR, TL))
    path = tmp_path / "two.tif"
    Image.fromarray(first).save(path, "TIFF", save_all=True, append_images=[Image.fromarray(second)])
    assert page_count(path) == 2
    pages = list(load_pages(path))
    assert [(p.page, p.page_count) for p in pages] == [(1, 2), (2, 2)]
    assert_quadrants(pages[0], (TL, TR, BL, BR), tol=0)
    assert_quadrants(pages[1], (BR, BL, TR, TL), tol=0)
    assert_quadrants(load_page(path, 2), (BR, BL, TR, TL), tol=0)


def test_tiff_preview_subfile_is_not_a_page(tmp_path: Path) -> None:
    path = tmp_path / "with-preview.tif"
    with TiffImagePlugin.AppendingTiffWriter(str(path), True) as tf:
        Image.fromarray(quadrants()).save(tf, "TIFF")
        tf.newFrame()
        # NewSubfileType bit 0: a reduced-resolution copy of the page before it.
        Image.fromarray(quadrants(120, 90)).save(tf, "TIFF", tiffinfo={254: 1})
        tf.newFrame()
    assert page_count(path) == 1
    assert [p.image.shape for p in load_pages(path)] == [(360, 480, 3)]


def test_scan_pdf_pages_render_at_the_scan_resolution(tmp_path: Path) -> None:
    first, second = quadrants(1000, 1400), quadrants(1000, 1400, colours=(BR, BL, TR, TL))
    path = scan_pdf(tmp_path / "scans.pdf", [first, second])
    assert page_count(path) == 2
    pages = list(load_pages(path))
    assert [(p.page, p.page_count, p.format) for p in pages] == [(1, 2, "pdf"), (2, 2, "pdf")]
    for p in pages:
        assert p.original_size == (1000, 1400)
        assert abs(p.image.shape[1] - 1000) <= 1 and abs(p.image.shape[0] - 1400) <= 1
    assert_quadrants(pages[0], (TL, TR, BL, BR), tol=12)
    assert_quadrants(pages[1], (BR, BL, TR, TL), tol=12)


def test_vector_pdf_page_renders_with_a_long_side_near_3300_px(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)  # A4 portrait, in points
    w, h = page.rect.width, page.rect.height
    for (x0, y0), colour in zip([(0, 0), (w / 2, 0), (0, h / 2), (w / 2, h / 2)], (TL, TR, BL, BR), strict=True):
        page.draw_rect(pymupdf.Rect(x0, y0, x0 + w / 2, y0 + h / 2), color=None, fill=[c / 255 for c in colour])
    path = tmp_path / "vector.pdf"
    doc.save(path)
    loaded = load_page(path)
    assert 3000 <= max(loaded.image.shape[:2]) <= 3500
    assert loaded.image.shape[0] > loaded.image.shape[1]
    assert_quadrants(loaded, (TL, TR, BL, BR), tol=3)


def test_pdf_page_is_reduced_to_max_pixels(tmp_path: Path) -> None:
    path = scan_pdf(tmp_path / "big-scan.pdf", [quadrants(1000, 1400)])
    loaded = load_page(path, max_pixels=1_000_000)
    h, w = loaded.image.shape[:2]
    assert h * w <= 1_000_000 and w > 800
    assert loaded.original_size == (1000, 1400)
    assert loaded.scale == pytest.approx(w / 1000)
    assert_quadrants(loaded, (TL, TR, BL, BR), tol=12)


# -- orientation ------------------------------------------------------------------------------------

DISPLAYED = {
    # EXIF orientation -> where the stored quadrants land once displayed (TL, TR, BL, BR).
    3: (BR, BL, TR, TL),  # turned 180°
    6: (BL, TL, BR, TR),  # stored turned 90° counter-clockwise: display turns it clockwise
    8: (TR, BR, TL, BL),  # stored turned 90° clockwise: display turns it counter-clockwise
}


@pytest.mark.parametrize("orientation", [3, 6, 8])
def test_jpeg_exif_orientation_gives_the_displayed_picture(tmp_path: Path, orientation: int) -> None:
    path = save(quadrants(480, 360), tmp_path / "phone.jpg", "JPEG", quality=92, exif=exif_bytes(orientation))
    page = load_page(path)
    assert page.exif_orientation == orientation
    expected_size = (480, 360) if orientation == 3 else (360, 480)
    assert page.original_size == expected_size
    assert (page.image.shape[1], page.image.shape[0]) == expected_size
    assert_quadrants(page, DISPLAYED[orientation])


@pytest.mark.parametrize(("fmt", "name"), [("WEBP", "o.webp"), ("TIFF", "o.tif"), ("HEIF", "o.heic"), ("PNG", "o.png")])
def test_orientation_is_honoured_in_other_formats(tmp_path: Path, fmt: str, name: str) -> None:
    path = save(quadrants(480, 360), tmp_path / name, fmt, exif=exif_bytes(6))
    page = load_page(path)
    assert (page.image.shape[1], page.image.shape[0]) == page.original_size == (360, 480)
    assert page.exif_orientation == 6
    assert_quadrants(page, DISPLAYED[6])


def test_damaged_exif_block_loads_as_stored_and_quietly(tmp_path: Path) -> None:
    path = save(quadrants(), tmp_path / "odd-exif.jpg", "JPEG", quality=92, exif=b"Exif\x00\x00II*\x00\xff\xff\xff\x7f")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the CLI's output stays clean: no decoder warnings leak
        page = load_page(path)
    assert page.exif_orientation == 1
    assert_quadrants(page, (TL, TR, BL, BR))


# -- very large pictures ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def big_jpeg(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("big") / "63mp.jpg"
    Image.fromarray(quadrants(9000, 7000)).save(path, "JPEG", quality=50)
    return path


def test_large_jpeg_is_decoded_at_a_reduced_dct_scale(big_jpeg: Path) -> None:
    page = load_page(big_jpeg, max_pixels=4_000_000)
    assert page.image.shape == (1750, 2250, 3)
    assert page.original_size == (9000, 7000)
    assert page.scale == 0.25
    assert_quadrants(page, (TL, TR, BL, BR))
    default = load_page(big_jpeg)
    assert default.image.shape == (3500, 4500, 3) and default.scale == 0.5


def test_large_png_is_downscaled_within_max_pixels(tmp_path: Path) -> None:
    path = save(quadrants(2400, 1800), tmp_path / "big.png", "PNG", compress_level=1)
    page = load_page(path, max_pixels=1_000_000)
    h, w = page.image.shape[:2]
    assert h * w <= 1_000_000 and h * w > 990_000
    assert abs(w / h - 2400 / 1800) < 0.01
    assert page.original_size == (2400, 1800) and page.scale == pytest.approx(w / 2400)
    assert_quadrants(page, (TL, TR, BL, BR), tol=2)


def test_max_pixels_below_one_megapixel_is_refused(tmp_path: Path) -> None:
    path = save(quadrants(), tmp_path / "a.png", "PNG")
    with pytest.raises(ValueError, match="max_pixels"):
        load_page(path, max_pixels=100_000)


# -- pixel formats ----------------------------------------------------------------------------------


def _grey16(path: Path) -> Path:
    return save(Image.fromarray(np.full((360, 480), 40000, np.uint16)), path, "PNG")


def _rgb16(path: Path) -> Path:
    img = np.zeros((360, 480, 3), np.uint16)
    img[..., 0], img[..., 1], img[..., 2] = 1000, 30000, 60000  # B, G, R for cv2
    ok, data = cv2.imencode(".png", img)
    assert ok
    path.write_bytes(data.tobytes())
    return path


def _rgba(path: Path) -> Path:
    img = np.zeros((360, 480, 4), np.uint8)
    img[..., :3] = (200, 0, 0)
    img[:, 240:, 3] = 255  # right half opaque red, left half fully transparent (black underneath)
    return save(img, path, "PNG")


def _half_alpha(path: Path) -> Path:
    img = np.zeros((360, 480, 4), np.uint8)
    img[..., 3] = 128
    return save(img, path, "PNG")


def _palette(path: Path) -> Path:
    return save(Image.fromarray(quadrants()).quantize(4), path, "PNG")


def _cmyk(path: Path) -> Path:
    return save(Image.new("CMYK", (480, 360), (255, 0, 0, 0)), path, "JPEG", quality=95)


def _grey_jpeg(path: Path) -> Path:
    return save(Image.new("L", (480, 360), 90), path, "JPEG", quality=95)


def _bilevel(path: Path) -> Path:
    return save(Image.new("1", (480, 360), 1), path, "BMP")


def _float_tiff(path: Path) -> Path:
    return save(Image.fromarray(np.full((360, 480), 0.5, np.float32)), path, "TIFF")


@pytest.mark.parametrize(
    ("make", "left", "right"),
    [
        (_grey16, (156, 156, 156), (156, 156, 156)),
        (_rgb16, (234, 117, 4), (234, 117, 4)),
        (_rgba, (255, 255, 255), (200, 0, 0)),
        (_half_alpha, (127, 127, 127), (127, 127, 127)),
        (_palette, TL, TR),
        (_cmyk, (0, 255, 255), (0, 255, 255)),
        (_grey_jpeg, (90, 90, 90), (90, 90, 90)),
        (_bilevel, (255, 255, 255), (255, 255, 255)),
        (_float_tiff, (128, 128, 128), (128, 128, 128)),
    ],
)
def test_pixel_formats_become_rgb8(tmp_path: Path, make: Callable[[Path], Path], left: tuple, right: tuple) -> None:
    page = load_page(make(tmp_path / "pix"))
    assert page.image.dtype == np.uint8 and page.image.shape == (360, 480, 3)
    got = quadrant_colours(page.image)
    for g, want in ((got[0], left), (got[1], right)):
        assert max(abs(a - b) for a, b in zip(g, want, strict=True)) <= 3, (got, left, right)


# -- in-memory arrays -------------------------------------------------------------------------------


def test_load_array_accepts_grey_rgb_rgba_and_wider_types() -> None:
    rgb = quadrants()
    assert_quadrants(load_array(rgb), (TL, TR, BL, BR), tol=0)
    grey = load_array(np.full((360, 480), 77, np.uint8)).image
    assert grey.shape == (360, 480, 3) and (grey == 77).all()
    rgba = np.dstack([rgb, np.zeros((360, 480), np.uint8)])
    assert (load_array(rgba).image == 255).all()
    assert (load_array(rgb.astype(np.uint16) * 257).image == rgb).all()
    assert (load_array(rgb / 255.0).image == rgb).all()
    page = load_array(rgb, "camera")
    assert (page.source, page.page, page.page_count, page.original_size, page.scale) == ("camera", 1, 1, (480, 360), 1)


def test_load_array_keeps_its_own_read_only_copy() -> None:
    rgb = quadrants()
    page = load_array(rgb)
    rgb[:] = 0
    assert_quadrants(page, (TL, TR, BL, BR), tol=0)
    assert rgb.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        page.image[0, 0] = 0


def test_loaded_pixels_are_read_only_for_every_source(tmp_path: Path) -> None:
    png = save(quadrants(), tmp_path / "a.png", "PNG")
    pdf = scan_pdf(tmp_path / "a.pdf", [quadrants(1000, 1400)])
    for page in (load_page(png), load_page(pdf)):
        assert not page.image.flags.writeable


@pytest.mark.parametrize(
    ("array", "needle"),
    [
        (np.zeros((360, 480, 2), np.uint8), "shape"),
        (np.zeros((360,), np.uint8), "shape"),
        (np.full((360, 480, 3), 2.0), "[0, 1]"),
        (np.full((360, 480, 3), np.nan), "[0, 1]"),
        (np.full((360, 480, 3), -5, np.int32), "0–255"),
        (np.zeros((200, 480, 3), np.uint8), "too small"),
    ],
)
def test_load_array_rejects_what_is_not_a_picture(array: np.ndarray, needle: str) -> None:
    with pytest.raises(InputError) as err:
        load_array(array, "frame-7")
    assert "frame-7" in str(err.value) and needle in str(err.value)


# -- bad inputs -------------------------------------------------------------------------------------


def _jpeg_bytes() -> bytes:
    buf = io.BytesIO()
    Image.fromarray(quadrants(800, 600)).save(buf, "JPEG", quality=90)
    return buf.getvalue()


def _cut(data: bytes, fraction: float = 0.5) -> bytes:
    return data[: int(len(data) * fraction)]


def _encoded(fmt: str) -> bytes:
    buf = io.BytesIO()
    save(quadrants(800, 600), buf, fmt)  # type: ignore[arg-type]
    return buf.getvalue()


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG that claims a size and holds one empty row: a decompression bomb needs no more."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0")) + chunk(b"IEND", b"")


def _zero_page_pdf() -> bytes:
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"]
    out, offsets = b"%PDF-1.4\n", []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (i, body)
    xref = len(out)
    out += b"xref\n0 3\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    return out + b"trailer\n<< /Size 3 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref


def _pdf_with_cut_image(pages: int, damaged_page: int) -> bytes:
    """A well-formed PDF whose ``damaged_page`` shows a JPEG that stops half-way."""
    doc = pymupdf.open()
    for i in range(pages):
        buf = io.BytesIO()
        # A different picture on each page, or the PDF would share one image between them.
        Image.fromarray(quadrants(800, 600, colours=(TL, TR, BL, (i, i, i)))).save(buf, "JPEG", quality=90)
        jpeg = buf.getvalue()
        page = doc.new_page(width=400, height=300)
        page.insert_image(page.rect, stream=jpeg)
        if i + 1 == damaged_page:
            doc.update_stream(page.get_images()[0][0], _cut(jpeg), compress=False)
    return doc.tobytes()


def _encrypted_pdf(tmp: Path) -> bytes:
    doc = pymupdf.open(scan_pdf(tmp / "plain.pdf", [quadrants(1000, 1400)]))
    return doc.tobytes(encryption=pymupdf.mupdf.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="owner")


def _zip_bytes() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("sheet.jpg", _jpeg_bytes())
    return buf.getvalue()


BAD_FILES: dict[str, tuple[Callable[[Path], bytes], str]] = {
    # name -> (file content, words the message must contain)
    "empty.jpg": (lambda _: b"", "empty"),
    "notes.jpg": (lambda _: b"Station list: 3,2 5,7\n" * 40, "text file"),
    "archive.png": (lambda _: _zip_bytes(), "ZIP"),
    "noise.png": (lambda _: np.random.default_rng(7).integers(0, 256, 5000, dtype=np.uint8).tobytes(), "not a picture"),
    "anim.gif": (lambda _: _encoded("GIF"), "GIF"),
    "half.jpg": (lambda _: _cut(_jpeg_bytes()), "truncated"),
    "half.png": (lambda _: _cut(_encoded("PNG")), "truncated"),
    "half.bmp": (lambda _: _cut(_encoded("BMP")), "truncated"),
    "half.webp": (lambda _: _cut(_encoded("WEBP")), "WebP"),
    "half.heic": (lambda _: _cut(_encoded("HEIF")), "HEIC"),
    "header.jpg": (lambda _: _jpeg_bytes()[:300], "JPEG"),
    "tiny.png": (lambda _: _encoded_small(), "too small"),
    "bomb.png": (lambda _: _png_header_only(30_000, 30_000), "too large"),
    "225mp.png": (lambda _: _png_header_only(15_000, 15_000), "too large"),
    "junk.pdf": (lambda _: b"%PDF-1.7\n1 0 obj garbage that is not a PDF\n", "damaged PDF"),
    "garbage.pdf": (lambda _: b"%PDF-1.4\n garbage garbage\n", "damaged PDF"),
    "cut.pdf": (
        lambda tmp: _cut(scan_pdf(tmp / "whole.pdf", [quadrants(1000, 1400)] * 2).read_bytes(), 0.6),
        "truncated",
    ),
    "locked.pdf": (_encrypted_pdf, "password"),
    "nopages.pdf": (lambda _: _zero_page_pdf(), "no pages"),
    "cut-image.pdf": (lambda _: _pdf_with_cut_image(1, 1), "damaged"),
}


def _encoded_small() -> bytes:
    buf = io.BytesIO()
    Image.fromarray(quadrants(280, 200)).save(buf, "PNG")
    return buf.getvalue()


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_file_is_an_input_error_naming_it(tmp_path: Path, name: str) -> None:
    content, needle = BAD_FILES[name]
    path = tmp_path / name
    path.write_bytes(content(tmp_path))
    with pytest.raises(InputError) as err:
        list(load_pages(path))
    message = str(err.value)
    assert str(path) in message and needle in message, message
    assert err.value.exit_code == ExitCode.BAD_INPUT
    assert err.value.hint, "every message says what to do"


def test_missing_file_and_folder(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jpg"
    with pytest.raises(InputError, match="no such file") as err:
        load_page(missing)
    assert str(missing) in str(err.value)
    with pytest.raises(InputError, match="folder") as err:
        page_count(tmp_path)
    assert str(tmp_path) in str(err.value)


def test_whole_file_problems_are_raised_by_the_load_pages_call_itself(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load_pages(tmp_path / "nope.pdf")


def test_unreadable_file_says_permission_denied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = save(quadrants(), tmp_path / "locked.png", "PNG")
    if os.geteuid() != 0:
        path.chmod(0)
    else:  # root reads anything: make the open fail the way it does for other users

        def denied(self: Path, *args: object, **kwargs: object) -> None:
            raise PermissionError(13, "Permission denied", str(self))

        monkeypatch.setattr(Path, "open", denied)
    with pytest.raises(InputError, match="permission denied") as err:
        load_page(path)
    assert str(path) in str(err.value)


def test_page_out_of_range(tmp_path: Path) -> None:
    pdf = scan_pdf(tmp_path / "two.pdf", [quadrants(1000, 1400)] * 2)
    tif = tmp_path / "two.tif"
    Image.fromarray(quadrants()).save(tif, "TIFF", save_all=True, append_images=[Image.fromarray(quadrants())])
    for path in (pdf, tif):
        for page in (0, 3):
            with pytest.raises(InputError, match=f"no page {page} .it has 2 pages") as err:
                load_page(path, page)
            assert str(path) in str(err.value)
    single = save(quadrants(), tmp_path / "one.png", "PNG")
    with pytest.raises(InputError, match="no page 2"):
        load_page(single, 2)


def test_pages_are_loaded_lazily_so_a_damaged_page_fails_alone(tmp_path: Path) -> None:
    path = tmp_path / "second-cut.pdf"
    path.write_bytes(_pdf_with_cut_image(pages=2, damaged_page=2))
    pages = load_pages(path)
    first = next(pages)
    assert first.page == 1 and first.page_count == 2
    with pytest.raises(InputError, match="page 2 is damaged"):
        next(pages)


def test_an_error_raised_in_a_worker_process_arrives_as_it_was(tmp_path: Path) -> None:
    # Library users read sheets in process pools: the error that reaches them must name the file
    # once and keep its exit code, whatever the error's own arguments were.
    bad = tmp_path / "notes.jpg"
    bad.write_text("not a picture")
    with pytest.raises(InputError) as direct:
        analyze_file(bad, load_calibration())
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
    with pool, pytest.raises(InputError) as remote:
        pool.submit(analyze_file, bad, load_calibration()).result()
    assert remote.value.message == direct.value.message
    assert remote.value.exit_code == direct.value.exit_code
    assert remote.value.path == direct.value.path
    no_map = pickle.loads(pickle.dumps(NoMapFoundError("x.png", "no lattice of station symbols")))
    assert str(no_map).count("no Map of London found in x.png") == 1


@pytest.mark.parametrize(("subsampling", "halved"), [(2, True), (1, True), (0, False)])
def test_a_jpeg_that_keeps_colour_at_half_resolution_says_so(tmp_path: Path, subsampling: int, halved: bool) -> None:
    # 4:2:0 (what phones and messaging apps save) and 4:2:2 keep colour at half the resolution of
    # brightness: a thin pencil stroke loses its colour (the reader then says how to take a better picture).
    path = save(quadrants(), tmp_path / "q.jpg", "JPEG", quality=90, subsampling=subsampling)
    assert load_page(path).colour_halved is halved
    assert load_page(path).to_dict()["colour_halved"] is halved


def _lossless_pdf(path: Path, deflate: bool) -> Path:
    """A scanner's PDF whose page is stored as PNG pixels: Flate-compressed, or not compressed."""
    _, png = cv2.imencode(".png", cv2.cvtColor(quadrants(), cv2.COLOR_RGB2BGR))
    doc = pymupdf.open()
    page = doc.new_page(width=480 * 72 / 150, height=360 * 72 / 150)
    page.insert_image(page.rect, stream=png.tobytes())
    doc.save(path, deflate=deflate)
    return path


@pytest.mark.parametrize(
    ("make", "lossless", "lossy_scan"),
    [
        (lambda p: save(quadrants(), p / "q.png", "PNG"), True, False),
        (lambda p: save(quadrants(), p / "q.bmp", "BMP"), True, False),
        (lambda p: save(quadrants(), p / "q.tif", "TIFF"), True, False),
        (lambda p: save(quadrants(), p / "q.tif", "TIFF", compression="tiff_lzw"), True, False),
        (lambda p: save(quadrants(), p / "q.tif", "TIFF", compression="tiff_adobe_deflate"), True, False),
        (lambda p: save(quadrants(), p / "q.tif", "TIFF", compression="jpeg"), False, True),
        (lambda p: save(quadrants(), p / "q.jpg", "JPEG", quality=95), False, False),
        (lambda p: save(quadrants(), p / "q.jpg", "JPEG", quality=95, subsampling=0), False, False),
        (lambda p: save(quadrants(), p / "q.webp", "WEBP"), False, False),
        (lambda p: save(quadrants(), p / "q.heic", "HEIF"), False, False),
        (lambda p: scan_pdf(p / "jpeg-pages.pdf", [quadrants()]), False, True),
        (lambda p: _lossless_pdf(p / "flate-pages.pdf", deflate=True), True, False),
        (lambda p: _lossless_pdf(p / "raw-pages.pdf", deflate=False), True, False),
    ],
    ids=[
        *("png", "bmp", "tiff", "tiff-lzw", "tiff-deflate", "tiff-jpeg", "jpeg", "jpeg-444", "webp", "heic"),
        *("pdf-jpeg", "pdf-flate", "pdf-raw"),
    ],
)
def test_whether_the_pixels_were_stored_losslessly_and_whether_a_scanner_stored_them_lossily(
    tmp_path: Path, make: Callable[[Path], Path], lossless: bool, lossy_scan: bool
) -> None:
    # Specks of pencil a pixel wide are measured only where no lossy compression smeared them.
    page = load_page(make(tmp_path))
    assert page.lossless is lossless
    assert page.to_dict()["lossless"] is lossless
    assert_quadrants(page, (TL, TR, BL, BR), tol=30)
    # Only scanners and copiers write a PDF of JPEG pages or a JPEG-compressed TIFF: a sheet flagged
    # from one is told how to save the scan (a phone's JPEG or HEIC is told nothing of the kind).
    assert page.lossy_scan is lossy_scan
    assert page.to_dict()["lossy_scan"] is lossy_scan


def test_a_pdf_page_without_a_scan_is_not_lossless_and_an_array_in_memory_is(tmp_path: Path) -> None:
    # A page drawn by a program is rendered at a size of our choosing, not as anything was scanned.
    doc = pymupdf.open()
    doc.new_page(width=595, height=842).draw_rect(pymupdf.Rect(10, 10, 300, 400), color=None, fill=(1, 0, 0))
    doc.save(tmp_path / "drawn.pdf")
    assert not load_page(tmp_path / "drawn.pdf").lossless
    assert not load_page(tmp_path / "drawn.pdf").lossy_scan  # nor is it a scan stored lossily
    assert load_array(quadrants()).lossless


def test_colour_is_whole_in_a_lossless_picture_and_in_a_jpeg_decoded_at_half_size(tmp_path: Path) -> None:
    assert not load_page(save(quadrants(), tmp_path / "q.png", "PNG")).colour_halved
    big = save(quadrants(2400, 1800), tmp_path / "big.jpg", "JPEG", quality=90, subsampling=2)
    assert load_page(big).colour_halved
    reduced = load_page(big, max_pixels=1_000_000)
    assert reduced.scale <= 0.5 and not reduced.colour_halved
