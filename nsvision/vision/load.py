"""Loading: every input format to RGB pages, with clear errors.

The only module that imports pymupdf. Formats are recognised by content, not by extension.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageFile, ImageOps, UnidentifiedImageError

from nsvision.errors import InputError

try:  # HEIC/HEIF (iPhone photos); pillow-heif is a dependency, but a broken wheel must not stop JPEGs.
    import pillow_heif

    pillow_heif.register_heif_opener()
except ImportError:  # pragma: no cover
    pillow_heif = None

MIN_SHORT_SIDE = 300
"""Pictures smaller than this (px) cannot hold a readable map."""
PDF_LONG_SIDE = 3300
"""Target long side (px) of a rendered PDF page: enough for the reader, small enough to be quick."""
Image.MAX_IMAGE_PIXELS = 400_000_000  # refuse decompression bombs beyond 400 MP with a clear error
ImageFile.LOAD_TRUNCATED_IMAGES = False

_HINT_IMAGE = "pass a photo or scan as JPEG, PNG, TIFF, WebP, BMP, HEIC or PDF"


@dataclass(frozen=True)
class LoadedPage:
    """One sheet's picture, ready for the reader."""

    image: np.ndarray
    """(H, W, 3) uint8 RGB, EXIF orientation applied (what a viewer shows)."""
    source: str
    page: int
    """1-based page (PDF pages, multi-frame TIFF); 1 for single images."""
    page_count: int
    original_size: tuple[int, int]
    """(width, height) in px of the full-resolution displayed page."""
    scale: float
    """Image width / original width (< 1 when decoded at reduced size)."""
    exif_orientation: int = 1
    """The EXIF orientation tag that was applied (1 = none)."""


def _kind(path: Path) -> str:
    try:
        if path.is_dir():
            raise InputError(
                str(path), "is a folder, not a file", "pass a picture or PDF file (or use 'nsvision batch')"
            )
        with path.open("rb") as fh:
            head = fh.read(16)
    except FileNotFoundError:
        raise InputError(str(path), "no such file", "check the path") from None
    except PermissionError:
        raise InputError(str(path), "cannot be read (permission denied)", "check the file's permissions") from None
    except OSError as exc:
        raise InputError(str(path), f"cannot be read ({exc.strerror or exc})", "check the file") from None
    if not head:
        raise InputError(str(path), "the file is empty", "check the file finished copying, then try again")
    return "pdf" if head.startswith(b"%PDF") else "image"


def _to_rgb(img: Image.Image) -> np.ndarray:
    if img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info):
        rgba = img.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        img = Image.alpha_composite(white, rgba)
    if img.mode in ("I;16", "I;16B", "I;16L", "I"):
        arr = np.asarray(img, dtype=np.float64)
        arr = (arr / max(1.0, float(arr.max())) * 255.0).astype(np.uint8)
        return np.ascontiguousarray(np.stack([arr] * 3, axis=2))
    return np.ascontiguousarray(np.asarray(img.convert("RGB"), dtype=np.uint8))


def _fit(arr: np.ndarray, max_pixels: int) -> np.ndarray:
    h, w = arr.shape[:2]
    if h * w <= max_pixels:
        return arr
    import cv2

    f = (max_pixels / (h * w)) ** 0.5
    return cv2.resize(arr, (max(1, int(w * f)), max(1, int(h * f))), interpolation=cv2.INTER_AREA)


def _check_size(path: Path, arr: np.ndarray) -> None:
    if min(arr.shape[:2]) < MIN_SHORT_SIDE:
        raise InputError(
            str(path),
            f"the picture is only {arr.shape[1]} x {arr.shape[0]} px, too small to read a map",
            "use the full-resolution photo or scan at 150 dpi or more",
        )


def _image_frames(path: Path) -> int:
    try:
        with Image.open(path) as img:  # reads the header only
            return int(getattr(img, "n_frames", 1) or 1)
    except UnidentifiedImageError:
        raise InputError(str(path), "is not a picture nsvision can read", _HINT_IMAGE) from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise InputError(str(path), f"cannot be opened ({exc})", _HINT_IMAGE) from None


def _load_image(path: Path, page: int, max_pixels: int) -> LoadedPage:
    try:
        img = Image.open(path)
    except UnidentifiedImageError:
        raise InputError(str(path), "is not a picture nsvision can read", _HINT_IMAGE) from None
    except (OSError, ValueError) as exc:
        raise InputError(str(path), f"cannot be opened ({exc})", _HINT_IMAGE) from None
    frames = int(getattr(img, "n_frames", 1) or 1)
    if not 1 <= page <= frames:
        raise InputError(str(path), f"has {frames} page(s), not page {page}", "pass a page number in range")
    if frames > 1:
        img.seek(page - 1)
    orientation = 1
    try:
        orientation = int(img.getexif().get(0x0112, 1) or 1)
    except Exception:  # a damaged EXIF block is not a reason to refuse the picture
        orientation = 1
    full = img.size
    if img.format == "JPEG" and full[0] * full[1] > max_pixels:
        # Decode at 1/2, 1/4 or 1/8 scale inside the JPEG decoder: big photos never fill memory.
        f = (max_pixels / (full[0] * full[1])) ** 0.5
        img.draft("RGB", (max(1, int(full[0] * f)), max(1, int(full[1] * f))))
    try:
        img.load()
    except Image.DecompressionBombError:
        raise InputError(
            str(path), "is far too large to be a photo of a sheet", "resize it below 100 megapixels"
        ) from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise InputError(
            str(path),
            f"is damaged or truncated ({exc})",
            "check the file finished copying, or re-export the photo as JPEG or PNG",
        ) from None
    img = ImageOps.exif_transpose(img) or img
    arr = _fit(_to_rgb(img), max_pixels)
    _check_size(path, arr)
    display_full = full if orientation in (1, 2, 3, 4) else (full[1], full[0])
    scale = arr.shape[1] / display_full[0] if display_full[0] else 1.0
    return LoadedPage(arr, str(path), page, frames, display_full, scale, orientation)


def _open_pdf(path: Path):  # type: ignore[no-untyped-def]
    import pymupdf

    try:
        doc = pymupdf.open(path)
    except Exception as exc:  # pymupdf raises its own types for damaged files
        raise InputError(str(path), f"is not a readable PDF ({exc})", "re-export or re-scan the PDF") from None
    if doc.needs_pass:
        raise InputError(str(path), "is a password-protected PDF", "save an unprotected copy and try again")
    if doc.page_count < 1:
        raise InputError(str(path), "is a PDF with no pages", "check the scan")
    return doc


def _load_pdf_page(path: Path, page: int, max_pixels: int) -> LoadedPage:
    doc = _open_pdf(path)
    with doc:
        if not 1 <= page <= doc.page_count:
            raise InputError(str(path), f"has {doc.page_count} page(s), not page {page}", "pass a page number in range")
        pg = doc[page - 1]
        rect = pg.rect
        zoom = PDF_LONG_SIDE / max(rect.width, rect.height, 1.0)
        zoom = min(zoom, (max_pixels / max(1.0, rect.width * rect.height)) ** 0.5)
        try:
            pix = pg.get_pixmap(matrix=pymupdf_matrix(zoom), alpha=False)
            arr = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)
        except Exception as exc:
            raise InputError(str(path), f"page {page} cannot be rendered ({exc})", "re-export the PDF") from None
        rgb = np.ascontiguousarray(arr[..., :3] if arr.shape[2] >= 3 else np.repeat(arr[..., :1], 3, axis=2))
        _check_size(path, rgb)
        return LoadedPage(rgb, str(path), page, doc.page_count, (rgb.shape[1], rgb.shape[0]), 1.0, 1)


def pymupdf_matrix(zoom: float):  # type: ignore[no-untyped-def]
    import pymupdf

    return pymupdf.Matrix(zoom, zoom)


def page_count(path: str | Path) -> int:
    """Number of sheets in a file, without decoding them (1 for an ordinary picture)."""
    path = Path(path)
    if _kind(path) == "pdf":
        doc = _open_pdf(path)
        with doc:
            return int(doc.page_count)
    return _image_frames(path)


def load_page(path: str | Path, page: int = 1, *, max_pixels: int = 16_000_000) -> LoadedPage:
    """Load one page of a picture or PDF as RGB; raise ``InputError`` naming the file on any problem."""
    path = Path(path)
    if _kind(path) == "pdf":
        return _load_pdf_page(path, page, max_pixels)
    return _load_image(path, page, max_pixels)


def load_pages(path: str | Path, *, max_pixels: int = 16_000_000) -> Iterator[LoadedPage]:
    """Every page of a file, lazily, in page order."""
    n = page_count(path)
    for page in range(1, n + 1):
        yield load_page(path, page, max_pixels=max_pixels)


def load_array(image: np.ndarray, source: str = "<array>") -> LoadedPage:
    """Validate an in-memory picture (gray, RGB or RGBA uint8) and wrap it as a page."""
    arr = np.asarray(image)
    if arr.dtype != np.uint8:
        if np.issubdtype(arr.dtype, np.floating) and arr.size and float(np.nanmax(arr)) <= 1.0:
            arr = (np.clip(arr, 0, 1) * 255).astype(np.uint8)
        else:
            arr = np.clip(arr, 0, 255).astype(np.uint8)
    if arr.ndim == 2:
        arr = np.stack([arr] * 3, axis=2)
    elif arr.ndim == 3 and arr.shape[2] == 4:
        a = arr[..., 3:4].astype(np.float32) / 255.0
        arr = (arr[..., :3].astype(np.float32) * a + 255.0 * (1 - a)).astype(np.uint8)
    elif not (arr.ndim == 3 and arr.shape[2] == 3):
        raise InputError(source, f"expected an RGB picture, got an array of shape {arr.shape}", _HINT_IMAGE)
    _check_size(Path(source), arr)
    arr = np.ascontiguousarray(arr)
    return LoadedPage(arr, source, 1, 1, (arr.shape[1], arr.shape[0]), 1.0, 1)


def load_bytes(data: bytes, source: str = "<bytes>") -> LoadedPage:
    """Decode a picture held in memory (first page)."""
    try:
        img = Image.open(io.BytesIO(data))
        img.load()
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise InputError(source, f"is not a readable picture ({exc})", _HINT_IMAGE) from None
    img = ImageOps.exif_transpose(img) or img
    return load_array(_to_rgb(img), source)
