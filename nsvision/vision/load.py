"""Read a photo, scan or PDF into displayed RGB pages: the first stage of the pipeline.

JPEG, PNG, TIFF (every page of a multi-page file), WebP, BMP, HEIC/HEIF, AVIF (when Pillow has
its decoder) and PDF (every page a sheet), told apart by their content, never by the file name.
Each page comes out as an ``(H, W, 3)`` uint8 RGB array the way a viewer shows it: EXIF
orientation applied, transparency composited onto white paper, 16-bit / grey / palette / CMYK
pixels turned into 8-bit RGB, and very large pictures reduced to at most ``max_pixels`` (JPEG is
decoded at 1/2, 1/4 or 1/8 scale straight from the file, so a 100 MP photo never sits in memory
at full size).

Anything that cannot be read — missing, a folder, unreadable, empty, truncated, damaged, not a
picture, a locked or broken PDF, too small to hold a map — raises ``InputError`` naming the file
and what to do about it. This is the only module that imports pymupdf, and only once a PDF comes:
importing it costs over a second (it pulls in its layout analyser), which a photo must not pay.
"""

from __future__ import annotations

import math
import stat
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np
from PIL import Image, ImageOps, JpegImagePlugin, features

from nsvision.errors import InputError, NsvisionError

DEFAULT_MAX_PIXELS = 16_000_000
"""Largest page handed to the reader, in pixels: a 16 MP page shows pencil strokes plainly."""
MIN_MAX_PIXELS = 1_000_000
"""Smallest ``max_pixels`` accepted: below it a sheet that is big enough on disk would be shrunk unreadable."""
MIN_SHORT_SIDE_PX = 300
"""Below this (short side, px) the 10 x 10 station lattice is too coarse to read pencil lines."""
MAX_SOURCE_PIXELS = 200_000_000
"""Largest picture decoded at all, in pixels (a 600 dpi A3 scan is 70 MP, a big phone photo 200 MP)."""
PDF_LONG_SIDE_PX = 3300
"""Long side (px) a PDF page without a full-page scan is rendered at."""
SCAN_COVERAGE = 0.5
"""A PDF page whose largest image covers this share of it is a scan, rendered at the scan's own resolution."""
LOSSLESS_TIFF = frozenset(
    {"raw", "tiff_raw_16", "tiff_lzw", "packbits", "tiff_deflate", "tiff_adobe_deflate", "lzma", "zstd"}
)
"""TIFF compressions (Pillow's names) that keep every pixel as scanned."""
LOSSLESS_PDF_FILTERS = frozenset(
    {"FlateDecode", "Fl", "LZWDecode", "LZW", "RunLengthDecode", "RL", "ASCIIHexDecode", "AHx", "ASCII85Decode", "A85"}
)
"""PDF stream filters (full and abbreviated names) that keep every pixel of a scan as scanned; an
image with none is stored uncompressed."""

# Pillow warns above MAX_IMAGE_PIXELS and refuses twice that; our decoding blocks turn the warning into an
# error too, so a decompression bomb (a tiny file claiming billions of pixels) is refused before any
# memory is allocated for it.
Image.MAX_IMAGE_PIXELS = MAX_SOURCE_PIXELS

Kind = Literal["jpeg", "png", "tiff", "webp", "bmp", "heif", "avif", "pdf"]
_LABEL: dict[Kind, str] = {
    "jpeg": "JPEG",
    "png": "PNG",
    "tiff": "TIFF",
    "webp": "WebP",
    "bmp": "BMP",
    "heif": "HEIC/HEIF",
    "avif": "AVIF",
    "pdf": "PDF",
}
_PIL_FORMAT: dict[Kind, str] = {
    "jpeg": "JPEG",
    "png": "PNG",
    "tiff": "TIFF",
    "webp": "WEBP",
    "bmp": "BMP",
    "heif": "HEIF",
    "avif": "AVIF",
}
_HEVC_BRANDS = {b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"hevm", b"hevs"}
_GENERIC_HEIF_BRANDS = {b"mif1", b"msf1"}
_AVIF_BRANDS = {b"avif", b"avis"}
_VIDEO_BRANDS = {b"isom", b"iso2", b"mp41", b"mp42", b"qt  ", b"M4V ", b"3gp4", b"3gp5", b"dash"}
_HEAD_BYTES = 1024
"""How much of a file is read to recognise it (a PDF header may sit anywhere in the first 1024 bytes)."""
_EXIF_ORIENTATION = 0x0112
_TIFF_NEW_SUBFILE_TYPE = 254
_PDF_DAMAGE_WORDS = ("truncat", "premature", "corrupt", "damaged")
"""MuPDF repairs what it can and only warns; these words in a warning mean the page is not all there."""
_SUPPORTED = "JPEG, PNG, TIFF, WebP, BMP, HEIC or PDF"


@dataclass(frozen=True)
class LoadedPage:
    """One sheet picture, ready for registration."""

    image: np.ndarray
    """(H, W, 3) uint8 RGB as a viewer displays it (EXIF orientation applied)."""
    source: str
    """The path as given (or a label for an in-memory array)."""
    page: int
    """1-based page: PDF page or TIFF page; 1 for a single picture."""
    page_count: int
    """Number of pages (sheets) in the source."""
    original_size: tuple[int, int]
    """(width, height) in px of the page at full resolution, displayed orientation."""
    scale: float
    """``image`` width / ``original_size`` width (< 1 when decoded or rendered at reduced size)."""
    exif_orientation: int
    """The EXIF orientation tag that was applied (1 = none; PDF and arrays are always 1)."""
    format: str = "array"
    """What the source was: jpeg, png, tiff, webp, bmp, heif, avif, pdf or array."""
    colour_halved: bool = False
    """The file keeps colour at half the resolution of brightness, at the size decoded: a JPEG with
    4:2:0 or 4:2:2 chroma subsampling (what phones and messaging apps save) decoded at full size.
    A pencil stroke a few pixels wide then loses much of its colour (see ``pipeline.review_reasons``)."""
    lossless: bool = True
    """The pixels are as the scanner or camera stored them, without lossy compression: PNG, BMP,
    TIFF (unless compressed as JPEG or WebP), a PDF page whose scan is stored losslessly (Flate, LZW,
    run-length or uncompressed), an array in memory. False for JPEG, WebP, HEIC, AVIF, a PDF page
    stored as JPEG or JPEG 2000 (what most scanners save) and a PDF page with no full-page scan.
    Lossy compression fringes a pencil's strokes with colour of its own and smears specks a pixel
    or two wide into the paper (see ``vision.specks``)."""
    lossy_scan: bool = False
    """A scanner's file stored with lossy compression: a PDF page whose full-page scan is stored as
    JPEG or JPEG 2000, or a TIFF compressed as JPEG (what many scanners and copiers save; a phone
    saves JPEG or HEIC, never these). A scan saved losslessly reads light strokes better: the
    reader says so on a sheet it flags (``pipeline.review_reasons``)."""

    def __post_init__(self) -> None:
        # Every stage reads the same pixels: a read-only array makes an accidental in-place edit fail
        # loudly instead of corrupting what the next stage (or the overlay) sees.
        self.image.flags.writeable = False

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of ``image`` in px."""
        return int(self.image.shape[1]), int(self.image.shape[0])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description (without the pixels)."""
        return {
            "source": self.source,
            "page": self.page,
            "page_count": self.page_count,
            "format": self.format,
            "size_px": list(self.size),
            "original_size_px": list(self.original_size),
            "scale": round(self.scale, 6),
            "exif_orientation": self.exif_orientation,
            "colour_halved": self.colour_halved,
            "lossless": self.lossless,
            "lossy_scan": self.lossy_scan,
        }


def page_count(path: str | Path) -> int:
    """Number of sheets in a picture or PDF, read from its headers without decoding any pixels."""
    src, file, kind = _identify(path)
    if kind == "pdf":
        with _open_pdf(file, src) as doc:
            return int(doc.page_count)
    with _open_raster(file, src, kind) as im:
        return len(_raster_frames(im, src, kind))


def load_page(path: str | Path, page: int = 1, *, max_pixels: int = DEFAULT_MAX_PIXELS) -> LoadedPage:
    """Decode one page (1-based) of a picture or PDF, reduced to at most ``max_pixels``."""
    _check_max_pixels(max_pixels)
    src, file, kind = _identify(path)
    if kind == "pdf":
        with _open_pdf(file, src) as doc:
            _check_page(src, page, int(doc.page_count))
            return _render_pdf_page(doc, page, src, max_pixels)
    with _open_raster(file, src, kind) as im:
        frames = _raster_frames(im, src, kind)
        _check_page(src, page, len(frames))
        return _decode_frame(im, frames, page, src, kind, max_pixels)


def load_pages(path: str | Path, *, max_pixels: int = DEFAULT_MAX_PIXELS) -> Iterator[LoadedPage]:
    """Every page of a picture or PDF, decoded one at a time in page order.

    Problems with the file as a whole (missing, empty, not a picture) are raised by this call;
    a page that cannot be decoded raises when the iteration reaches it, which ends the iteration.
    To go on past a damaged page, ask ``page_count`` and ``load_page`` for each page instead.
    """
    _check_max_pixels(max_pixels)
    src, file, kind = _identify(path)
    return _iter_pages(file, src, kind, max_pixels)


def load_array(image: np.ndarray, source: str = "<array>") -> LoadedPage:
    """Check an in-memory picture and return it as a page of its own, on a read-only copy of the pixels.

    Accepts (H, W) grey, (H, W, 1), (H, W, 3) RGB or (H, W, 4) RGBA, as uint8, uint16, bool or
    float in [0, 1]; RGBA is composited onto white. No resizing.
    """
    arr = np.asarray(image)
    if arr.ndim == 3 and arr.shape[2] == 1:
        arr = arr[..., 0]
    if arr.ndim not in (2, 3) or (arr.ndim == 3 and arr.shape[2] not in (3, 4)):
        raise InputError(
            source,
            f"is not a picture array (shape {arr.shape})",
            "pass an (H, W, 3) RGB, (H, W, 4) RGBA or (H, W) grey array",
        )
    rgb = _array_to_rgb8(arr, source)
    h, w = rgb.shape[:2]
    _check_min_side(source, (w, h))
    if np.may_share_memory(rgb, arr):
        rgb = rgb.copy()
    return LoadedPage(
        image=np.ascontiguousarray(rgb),
        source=source,
        page=1,
        page_count=1,
        original_size=(w, h),
        scale=1.0,
        exif_orientation=1,
    )


# -- recognising the file ------------------------------------------------------------------------


def _identify(path: str | Path) -> tuple[str, Path, Kind]:
    """Check the path names a readable, non-empty file of a kind we decode; read only its first bytes."""
    src = str(path)
    file = Path(path)
    try:
        info = file.stat()
    except FileNotFoundError:
        raise InputError(src, "no such file", "check the path and the file name") from None
    except PermissionError:
        raise InputError(src, "cannot be reached (permission denied)", "check the permissions of its folders") from None
    except OSError as exc:
        raise InputError(src, f"cannot be read ({exc.strerror or exc})", "check the path") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(src, "is a folder, not a file", "give the path of one picture or PDF file in it")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(src, "is not a regular file", f"give the path of a {_SUPPORTED} file")
    if info.st_size == 0:
        raise InputError(
            src, "is empty (0 bytes)", "check the file finished copying or downloading, or export it again"
        )
    try:
        with file.open("rb") as fh:
            head = fh.read(_HEAD_BYTES)
    except PermissionError:
        raise InputError(
            src, "cannot be read (permission denied)", "check the file's permissions (it must be readable by you)"
        ) from None
    except OSError as exc:
        raise InputError(src, f"cannot be read ({exc.strerror or exc})", "copy the file to a local disk") from None
    kind = _sniff(head)
    if kind is None:
        raise _not_a_picture(src, head)
    return src, file, kind


def _sniff(head: bytes) -> Kind | None:
    """The kind of file its first bytes announce (magic numbers), or None."""
    if head.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if head[:4] in (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+"):
        return "tiff"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    if head[:2] == b"BM" and len(head) >= 26:
        return "bmp"
    if head[4:8] == b"ftyp":
        brands = _ftyp_brands(head)
        # AVIF files carry the generic HEIF brands too, but go to Pillow's own AVIF decoder (when built
        # with one): the libheif shipped with pillow-heif decodes HEVC only.
        if brands & _AVIF_BRANDS and not brands & _HEVC_BRANDS:
            return "avif" if features.check("avif") else None
        if brands & (_HEVC_BRANDS | _GENERIC_HEIF_BRANDS):
            return "heif"
    if b"%PDF-" in head:
        return "pdf"
    return None


def _ftyp_brands(head: bytes) -> set[bytes]:
    """Major and compatible brands of an ISO-BMFF ``ftyp`` box (HEIF, AVIF, MP4, MOV)."""
    size = int.from_bytes(head[:4], "big")
    box = head[8 : min(size, len(head))]
    return {box[:4]} | {box[i : i + 4] for i in range(8, len(box) - 3, 4)}


def _not_a_picture(src: str, head: bytes) -> InputError:
    """Say what the file seems to be instead, where that is easy to tell."""
    hint = f"give a photo or scan as {_SUPPORTED}; re-export the picture as JPEG or PNG"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return InputError(src, "is a GIF, whose 256 colours cannot hold pencil shades", "re-export it as JPEG or PNG")
    if head[4:8] == b"ftyp":
        brands = _ftyp_brands(head)
        if brands & _AVIF_BRANDS:
            return InputError(src, "is an AVIF picture, which nsvision cannot decode", "re-export it as JPEG or PNG")
        if brands & _VIDEO_BRANDS:
            return InputError(src, "is a video, not a photo", "take a photo, or export one frame as JPEG")
    if head.startswith(b"PK\x03\x04"):
        return InputError(
            src, "is a ZIP archive (or an Office document), not a picture", "unzip it and give the picture inside"
        )
    if _looks_like_text(head):
        return InputError(src, "is a text file, not a picture or PDF", hint)
    return InputError(src, "is not a picture or PDF that nsvision can read", hint)


def _looks_like_text(head: bytes) -> bool:
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        # The read may have cut a multi-byte character in two at the end.
        try:
            text = head[:-3].decode("utf-8")
        except UnicodeDecodeError:
            return False
    return all(ch.isprintable() or ch in "\t\r\n\f" for ch in text)


def _check_max_pixels(max_pixels: int) -> None:
    if max_pixels < MIN_MAX_PIXELS:
        raise ValueError(f"max_pixels must be at least {MIN_MAX_PIXELS}, got {max_pixels}")


def _check_page(src: str, page: int, count: int) -> None:
    if not 1 <= page <= count:
        pages = "1 page" if count == 1 else f"{count} pages"
        choose = "use page 1" if count == 1 else f"choose a page from 1 to {count}"
        raise InputError(src, f"has no page {page} (it has {pages})", choose)


def _check_min_side(src: str, size: tuple[int, int], what: str = "") -> None:
    if min(size) < MIN_SHORT_SIDE_PX:
        raise InputError(
            src,
            f"{what}is too small to read a map from ({size[0]} x {size[1]} px; "
            f"at least {MIN_SHORT_SIDE_PX} px on the short side are needed)",
            "photograph the sheet so that it fills the picture, or scan it at 150 dpi or more",
        )


def _check_reduced_side(src: str, size: tuple[int, int], max_pixels: int) -> None:
    # Only a strip far longer than any sheet (over 11:1 at the smallest max_pixels) gets here.
    if min(size) < MIN_SHORT_SIDE_PX:
        raise InputError(
            src,
            f"is too long and narrow to hold a map once reduced to {max_pixels} pixels ({size[0]} x {size[1]} px)",
            "crop the picture to the sheet",
        )


@contextmanager
def _decoding(src: str, kind: Kind) -> Iterator[None]:
    """Turn what a decoder raises on a bad file into an ``InputError``; keep its warnings quiet."""
    label = _LABEL[kind]
    with warnings.catch_warnings():
        # Decoders warn about odd but readable files (corrupt EXIF, unknown tags): not the user's concern.
        warnings.simplefilter("ignore")
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            yield
        except NsvisionError:
            raise
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise InputError(
                src,
                f"is too large to decode safely (more than {MAX_SOURCE_PIXELS // 1_000_000} megapixels)",
                "downscale it, or scan at a lower resolution (300 dpi is plenty)",
            ) from None
        except MemoryError:
            raise InputError(
                src, "is too large to decode in the memory available", "downscale it and try again"
            ) from None
        except Exception as exc:
            # Decoders fed a damaged file raise all sorts (OSError, SyntaxError, ValueError, struct.error,
            # RuntimeError from libheif or MuPDF...): each is the file's fault, none a bug of ours.
            raise _damaged(src, label, exc) from None


def _damaged(src: str, label: str, exc: Exception) -> InputError:
    text = str(exc).split("\n")[0].strip()
    lowered = text.lower()
    if isinstance(exc, EOFError) or any(w in lowered for w in ("truncated", "end of file", "unexpected end")):
        return InputError(
            src,
            f"is truncated: the {label} data ends before the picture does",
            "check the file finished copying or downloading, or export it again",
        )
    if isinstance(exc, Image.UnidentifiedImageError):
        detail = "its header is incomplete or corrupt"
    else:
        detail = f"its data is incomplete or corrupt: {text or type(exc).__name__}"
    return InputError(
        src,
        f"is a damaged {label} file ({detail})",
        "check the file finished copying, or re-export the picture as JPEG or PNG",
    )


# -- pictures (Pillow) ---------------------------------------------------------------------------


@cache
def _register_heif() -> None:
    from pillow_heif import register_heif_opener

    register_heif_opener()


@contextmanager
def _open_raster(file: Path, src: str, kind: Kind) -> Iterator[Image.Image]:
    """The picture opened lazily (header only); the file stays open while the caller decodes pages."""
    if kind == "heif":
        _register_heif()
    try:
        fh = file.open("rb")
    except OSError as exc:
        raise InputError(src, f"cannot be read ({exc.strerror or exc})", "check the file's permissions") from None
    with fh:
        with _decoding(src, kind):
            im = Image.open(fh, formats=[_PIL_FORMAT[kind]])
        with im:
            yield im


def _raster_frames(im: Image.Image, src: str, kind: Kind) -> list[int]:
    """Frame indices that are pages: every TIFF page except reduced-resolution previews; frame 0 elsewhere."""
    if kind != "tiff":
        return [0]
    with _decoding(src, kind):
        n = int(getattr(im, "n_frames", 1))
        pages = []
        for i in range(n):
            im.seek(i)
            tags = getattr(im, "tag_v2", {})
            if not int(tags.get(_TIFF_NEW_SUBFILE_TYPE, 0)) & 1:
                pages.append(i)
        im.seek(0)
    return pages or list(range(n))


def _orientation(im: Image.Image, kind: Kind) -> int:
    """The EXIF orientation (1–8) the file asks for, read before decoding; 1 when there is none.

    pillow-heif turns HEIF pictures upright itself and keeps the original tag aside.
    """
    try:
        if kind == "heif":
            value = im.info.get("original_orientation", 1)
        elif kind == "tiff":
            value = getattr(im, "tag_v2", {}).get(_EXIF_ORIENTATION, 1)
        else:
            value = im.getexif().get(_EXIF_ORIENTATION, 1)
    except Exception:
        # A damaged EXIF block is no reason to refuse the picture: show it as stored.
        return 1
    return value if isinstance(value, int) and 1 <= value <= 8 else 1


def _pending_orientation(im: Image.Image, kind: Kind) -> int:
    """The orientation still to apply after decoding: Pillow turns TIFF pages and pillow-heif HEIF upright."""
    if kind == "heif":
        return 1
    return _orientation(im, kind)


def _jpeg_draft_factor(size: tuple[int, int], max_pixels: int) -> int:
    """Smallest JPEG DCT reduction (1, 2, 4, 8) that brings the picture within ``max_pixels``."""
    w, h = size
    for d in (1, 2, 4, 8):
        if math.ceil(w / d) * math.ceil(h / d) <= max_pixels:
            return d
    return 8


def _fit(size: tuple[int, int], max_pixels: int) -> tuple[int, int]:
    """The largest size with the same aspect ratio within ``max_pixels`` (``size`` itself when it fits)."""
    w, h = size
    if w * h <= max_pixels:
        return size
    f = math.sqrt(max_pixels / (w * h))
    return max(1, math.floor(w * f)), max(1, math.floor(h * f))


_REDUCIBLE_MODES = ("L", "LA", "RGB", "RGBA", "RGBX", "CMYK", "I", "F")
"""Modes ``Image.reduce`` handles (not palette or 16-bit ones, which go to NumPy at full size)."""


def _decode_frame(im: Image.Image, frames: list[int], page: int, src: str, kind: Kind, max_pixels: int) -> LoadedPage:
    """Decode one page at the smallest size that still holds ``max_pixels``; displayed orientation."""
    what = f"page {page} " if len(frames) > 1 else ""
    with _decoding(src, kind):
        if im.tell() != frames[page - 1]:
            im.seek(frames[page - 1])
        orientation = _orientation(im, kind)
        stored = im.size
        _check_min_side(src, stored, what)
        halved = False
        if kind == "jpeg":
            d = _jpeg_draft_factor(stored, max_pixels)
            # Decoded at 1/2 or less of its size, the subsampled colour is back at full resolution.
            halved = d == 1 and JpegImagePlugin.get_sampling(im) in (1, 2)
            if d > 1:
                # Pillow picks the largest DCT scale that keeps at least the requested size: exactly 1/d.
                im.draft("RGB", (stored[0] // d, stored[1] // d))
        im.load()
        lossless = kind in ("png", "bmp") or (kind == "tiff" and im.info.get("compression") in LOSSLESS_TIFF)
        pending = _pending_orientation(im, kind)
        # exif_transpose copies even when there is nothing to do: skip it for upright pictures.
        shown = ImageOps.exif_transpose(im) if pending != 1 else im
        target = _fit(shown.size, max_pixels)
        k = min(shown.size[0] // target[0], shown.size[1] // target[1])
        if k >= 2 and shown.mode in _REDUCIBLE_MODES:
            # Box-average the integer part of the reduction inside Pillow, so a full-size copy of a
            # huge picture is never made in NumPy as well; cv2 does the remaining fraction.
            shown = shown.reduce(k)
        flat = _pil_to_array(shown)
    original = (stored[1], stored[0]) if pending in (5, 6, 7, 8) else stored
    rgb = _array_to_rgb8(flat, src)
    if (rgb.shape[1], rgb.shape[0]) != target:
        rgb = cv2.resize(rgb, target, interpolation=cv2.INTER_AREA)
    _check_reduced_side(src, target, max_pixels)
    return LoadedPage(
        image=np.ascontiguousarray(rgb),
        source=src,
        page=page,
        page_count=len(frames),
        original_size=original,
        scale=target[0] / original[0],
        exif_orientation=orientation,
        format=kind,
        colour_halved=halved and target == original,
        lossless=lossless,
        lossy_scan=kind == "tiff" and not lossless,
    )


def _pil_to_array(im: Image.Image) -> np.ndarray:
    """Pixels as NumPy in a layout ``_array_to_rgb8`` takes: grey, RGB or RGBA; uint8, uint16 or float."""
    mode = im.mode
    # A transparent colour in a 16-bit picture is ignored: Pillow cannot convert those to RGBA.
    has_alpha = mode in ("LA", "La", "PA", "RGBa", "RGBA") or ("transparency" in im.info and not mode.startswith("I"))
    if has_alpha and mode != "RGBA":
        im = im.convert("RGBA")
    elif mode.startswith("I;16") or mode in ("L", "RGB", "RGBA"):
        pass
    elif mode == "I":
        # 32-bit integer pixels come from 16-bit PNG/TIFF files: their range is 0–65535.
        return np.clip(np.asarray(im), 0, 65535).astype(np.uint16)
    elif mode == "F":
        arr = np.nan_to_num(np.asarray(im, dtype=np.float32))
        # Float TIFFs hold either 0–1 or 0–255 values; nothing in the file says which.
        return np.clip(arr if arr.max(initial=0.0) <= 1.0 else arr / 255.0, 0.0, 1.0)
    elif mode == "1":
        im = im.convert("L")
    else:  # P, CMYK, YCbCr, LAB, HSV, RGBX...
        im = im.convert("RGB")
    arr = np.asarray(im)
    if mode.startswith("I;16") and arr.dtype != np.uint16:
        arr = arr.astype(np.uint16)
    return arr


def _array_to_rgb8(arr: np.ndarray, src: str) -> np.ndarray:
    """Grey / RGB / RGBA in uint8, uint16, bool, other integers in 0–255 or float in [0, 1] -> RGB uint8."""
    if arr.dtype == np.uint8:
        out = arr
    elif arr.dtype == np.uint16:
        # 65535 / 257 = 255: the exact 16 -> 8 bit mapping.
        out = ((arr.astype(np.uint32) + 128) // 257).astype(np.uint8)
    elif arr.dtype == np.bool_:
        out = arr.astype(np.uint8) * np.uint8(255)
    elif np.issubdtype(arr.dtype, np.integer):
        if arr.size and (int(arr.min()) < 0 or int(arr.max()) > 255):
            raise InputError(
                src, f"has {arr.dtype} values outside 0–255", "pass uint8 (0–255), uint16 or float (0–1) pixels"
            )
        out = arr.astype(np.uint8)
    elif np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)) or (arr.size and (float(arr.min()) < 0.0 or float(arr.max()) > 1.0)):
            raise InputError(
                src, "has float values outside [0, 1]", "pass float pixels in [0, 1], or uint8 (0–255) pixels"
            )
        out = np.rint(arr * 255.0).astype(np.uint8)
    else:
        raise InputError(src, f"has pixels of type {arr.dtype}", "pass uint8 (0–255), uint16 or float (0–1) pixels")
    if out.ndim == 2:
        return cv2.cvtColor(out, cv2.COLOR_GRAY2RGB)
    if out.shape[2] == 4:
        return _on_white(out)
    return out


def _on_white(rgba: np.ndarray) -> np.ndarray:
    """Composite RGBA onto white paper: a transparent background is blank paper, not black."""
    alpha = rgba[..., 3:4].astype(np.uint16)
    rgb = rgba[..., :3].astype(np.uint16)
    return ((rgb * alpha + 255 * (255 - alpha) + 127) // 255).astype(np.uint8)


def _iter_pages(file: Path, src: str, kind: Kind, max_pixels: int) -> Iterator[LoadedPage]:
    if kind == "pdf":
        with _open_pdf(file, src) as doc:
            for page in range(1, int(doc.page_count) + 1):
                yield _render_pdf_page(doc, page, src, max_pixels)
        return
    with _open_raster(file, src, kind) as im:
        frames = _raster_frames(im, src, kind)
        for page in range(1, len(frames) + 1):
            yield _decode_frame(im, frames, page, src, kind, max_pixels)


# -- PDF (pymupdf) -------------------------------------------------------------------------------


@contextmanager
def _open_pdf(file: Path, src: str) -> Iterator[Any]:
    """The PDF open for rendering; refuses locked, empty and cut-off documents."""
    import pymupdf

    with _decoding(src, "pdf"):
        try:
            doc = pymupdf.open(str(file), filetype="pdf")
        except (RuntimeError, ValueError):
            # pymupdf.FileDataError and friends; their text only repeats the file name.
            raise InputError(
                src,
                "is a damaged PDF that cannot be opened",
                "check the file finished copying, or export the PDF again",
            ) from None
    with doc:
        if doc.needs_pass:
            raise InputError(
                src, "is a password-protected PDF", "save or print an unprotected copy of it and try again"
            )
        if doc.page_count == 0:
            if doc.is_repaired:
                raise InputError(
                    src,
                    "is a damaged PDF: not one page could be recovered from it",
                    "check the file finished copying, or export the PDF again",
                )
            raise InputError(src, "is a PDF with no pages", "export or scan the sheets again")
        # MuPDF silently rebuilds a PDF that lost its end and shows blank pages; a repaired file
        # without its end-of-file marker is a cut-off copy, not a PDF with blank sheets.
        if doc.is_repaired and not _has_pdf_end(file):
            raise InputError(
                src,
                "is truncated: the PDF ends before its last page does",
                "check the file finished copying or downloading, or export it again",
            )
        yield doc


def _has_pdf_end(file: Path) -> bool:
    size = file.stat().st_size
    with file.open("rb") as fh:
        fh.seek(max(0, size - _HEAD_BYTES))
        return b"%%EOF" in fh.read()


def _pdf_scan(pg: Any) -> tuple[float, bool, bool]:
    """Render scale (px per point) for a page: a full-page scan at its own resolution, else a fixed
    long side; whether that scan is stored losslessly (False for a page with none); and whether the
    page holds such a scan at all."""
    rect = pg.rect
    page_area = rect.width * rect.height
    best_area, zoom, scan = 0.0, PDF_LONG_SIDE_PX / max(rect.width, rect.height), (0, 0)
    for info in pg.get_image_info():
        a, b, c, d = info["transform"][:4]
        shown_area = math.hypot(a, b) * math.hypot(c, d)
        pixels = info["width"] * info["height"]
        if shown_area >= SCAN_COVERAGE * page_area and shown_area > best_area and pixels > 0:
            best_area, zoom, scan = shown_area, math.sqrt(pixels / shown_area), (info["width"], info["height"])
    # The scan's stored form, from the page's images of its size (asking get_image_info for xrefs
    # would hash every image: 0.6 s on a 300 dpi A4 page). An inline image is in no such list.
    xrefs = [im[0] for im in pg.get_images(full=True) if (im[2], im[3]) == scan]
    lossless = bool(xrefs) and all(_lossless_filters(pg.parent.xref_get_key(x, "Filter")) for x in xrefs)
    return zoom, lossless, bool(xrefs)


def _lossless_filters(key: tuple[str, str]) -> bool:
    """Whether a PDF image's ``/Filter`` entry (``xref_get_key``'s type and value) keeps every pixel."""
    kind, value = key
    if kind == "null":
        return True
    names = value.strip("[]").replace("/", " ").split()
    return kind in ("name", "array") and all(n in LOSSLESS_PDF_FILTERS for n in names)


def _render_pdf_page(doc: Any, page: int, src: str, max_pixels: int) -> LoadedPage:
    import pymupdf

    what = f"page {page} " if doc.page_count > 1 else ""
    with _decoding(src, "pdf"):
        pg = doc[page - 1]
        rect = pg.rect
        if rect.width < 1 or rect.height < 1:
            raise InputError(src, f"{what or 'the page '}has no area", "export the PDF again")
        native, lossless, scanned = _pdf_scan(pg)
    original = (max(1, round(rect.width * native)), max(1, round(rect.height * native)))
    _check_min_side(src, original, what)
    zoom = min(native, math.sqrt(max_pixels / (rect.width * rect.height)))
    with _decoding(src, "pdf"):
        # MuPDF rounds the page outwards to whole pixels: shave the zoom until that fits too.
        while (r := (rect * pymupdf.Matrix(zoom, zoom)).irect).width * r.height > max_pixels:
            zoom *= 0.999
        pymupdf.TOOLS.reset_mupdf_warnings()
        pix = pg.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), colorspace=pymupdf.csRGB, alpha=False)
        notes = pymupdf.TOOLS.mupdf_warnings().splitlines()
        w, h, stride, samples = pix.width, pix.height, pix.stride, pix.samples
    damage = [n.strip() for n in notes if any(word in n.lower() for word in _PDF_DAMAGE_WORDS)]
    if damage:
        raise InputError(
            src,
            f"page {page} is damaged ({damage[0]})",
            "check the file finished copying, or export the PDF again",
        )
    rgb = np.frombuffer(samples, np.uint8).reshape(h, stride)[:, : w * 3].reshape(h, w, 3).copy()
    _check_reduced_side(src, (w, h), max_pixels)
    return LoadedPage(
        image=rgb,
        source=src,
        page=page,
        page_count=int(doc.page_count),
        original_size=original,
        scale=w / original[0],
        exif_orientation=1,
        format="pdf",
        lossless=lossless,
        lossy_scan=scanned and not lossless,
    )
