"""The overlay a person checks a reading on: the map with what was read and, on a sheet that needs
review, close-ups of the sections named, the pencil's colour strengthened."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

from nsvision.calibration import load_calibration
from nsvision.cli import app
from nsvision.overlay import _square, closeup_captions, pencil_view, render_closeups, render_overlay
from nsvision.pipeline import SheetReport, analyze_file
from nsvision.vision.closeups import CLOSEUP_MAX, CLOSEUP_PX, closeup_square

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
CAL = load_calibration()


def _image(sample: str) -> Path:
    folder = SAMPLES / sample
    if not folder.exists():
        pytest.skip("samples not generated")
    return next(p for p in sorted(folder.iterdir()) if p.suffix in (".jpg", ".png"))


def _read(sample: str, closeups: bool = False) -> SheetReport:
    report = analyze_file(_image(sample), CAL, closeups=closeups)[0]
    assert isinstance(report, SheetReport)
    return report


@pytest.fixture(scope="module")
def flagged() -> SheetReport:
    """The committed ``style-cream`` photo, which needs review, read with close-ups from the picture."""
    return _read("style-cream", closeups=True)


@pytest.fixture(scope="module")
def sure() -> SheetReport:
    """The committed ``photo-ordinary`` photo, read with no doubt."""
    return _read("photo-ordinary")


def test_a_sheet_that_needs_review_gets_a_close_up_of_each_section_named(flagged: SheetReport) -> None:
    assert flagged.needs_review and flagged.reading is not None
    wanted = closeup_captions(flagged)
    doubtful = [r.section for r in flagged.reading.doubtful]
    assert [s for s, _ in wanted] == list(flagged.sections_to_check) == doubtful + [s for s, _ in flagged.also_check]
    assert all(text.startswith(f"? {s.name}: ") for s, text in wanted[: len(doubtful)])
    bare = render_overlay(flagged, closeups=False)
    full = render_overlay(flagged)
    strip = render_closeups(flagged, bare.shape[1])
    assert strip is not None and strip.shape[1] == bare.shape[1]
    assert np.array_equal(full, np.vstack([bare, strip]))
    # Each close-up marks its section's two stations with an orange dot in both of its views.
    dots = cv2.inRange(strip, (0, 140, 255), (0, 140, 255))
    count, _ = cv2.connectedComponents(dots)
    assert count - 1 == 4 * min(len(wanted), CLOSEUP_MAX)


def test_a_sheet_read_without_doubt_has_the_map_alone(sure: SheetReport) -> None:
    assert not sure.needs_review
    assert sure.sections_to_check == ()
    assert render_closeups(sure, 800) is None
    assert np.array_equal(render_overlay(sure), render_overlay(sure, closeups=False))


def test_the_close_ups_second_view_strengthens_the_pencils_colour(sure: SheetReport) -> None:
    """Along the sections read drawn, the strongest colour (a pixel's largest channel less its
    smallest) is well above the photograph's: a light stroke shows plainly."""
    st, reading = sure.straightened, sure.reading
    assert st is not None and reading is not None
    plain = cv2.cvtColor(st.image, cv2.COLOR_RGB2BGR).astype(int)
    view = pencil_view(st).astype(int)
    assert view.shape == plain.shape

    def colour_near(image: np.ndarray, x: int, y: int, reach: int = 6) -> int:
        window = image[y - reach : y + reach + 1, x - reach : x + reach + 1]
        return int((window.max(axis=2) - window.min(axis=2)).max())

    gains = []
    for _colour, s in sure.network.all_sections():
        if reading.sections[s].doubtful:
            continue
        a, b = np.array(st.lattice_to_px(*s.a)), np.array(st.lattice_to_px(*s.b))
        points = [(a + (b - a) * t).round().astype(int) for t in np.linspace(0.35, 0.65, 5)]
        seen = np.median([colour_near(plain, x, y) for x, y in points])
        strengthened = np.median([colour_near(view, x, y) for x, y in points])
        gains.append(strengthened / max(seen, 1.0))
    assert len(gains) >= 20
    assert np.median(gains) >= 1.3


def test_a_batch_card_shows_the_close_ups_under_its_thumbnail(flagged: SheetReport, sure: SheetReport) -> None:
    """The HTML report's card of a sheet that needs review carries the sections named, close and at a
    size a person can judge, under the map's thumbnail; a sure sheet's card has the map alone."""
    from nsvision.batch import THUMBNAIL_WIDTH_PX, _thumbnail

    def decoded(report: SheetReport) -> np.ndarray:
        data = _thumbnail(report)
        assert data is not None
        return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)

    bare = render_overlay(sure, closeups=False)
    map_height = round(bare.shape[0] * THUMBNAIL_WIDTH_PX / bare.shape[1])
    assert decoded(sure).shape == (map_height, THUMBNAIL_WIDTH_PX, 3)
    card = decoded(flagged)
    assert card.shape[1] == THUMBNAIL_WIDTH_PX
    # One section a row, each row taller than the width of one of its two views.
    assert card.shape[0] - map_height > min(len(flagged.sections_to_check), CLOSEUP_MAX) * THUMBNAIL_WIDTH_PX // 2


def test_close_ups_come_from_the_picture_at_its_own_resolution(flagged: SheetReport) -> None:
    """Each section to check is taken from the photo itself through the registration: the same square
    of the map as the straightened crop, with more of the pencil's grain (the photo has 139 px a pitch,
    the straightened map 80)."""
    st = flagged.straightened
    assert st is not None
    assert list(flagged.closeups) == list(flagged.sections_to_check[:CLOSEUP_MAX])

    def grey(bgr: np.ndarray) -> np.ndarray:
        return cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)

    detail, agreement = [], []
    for section, tile in flagged.closeups.items():
        assert tile.shape == (CLOSEUP_PX, CLOSEUP_PX, 3) and tile.dtype == np.uint8
        (cx, cy), side = closeup_square(section)
        crop = _square(
            cv2.cvtColor(st.image, cv2.COLOR_RGB2BGR),
            np.array(st.lattice_to_px(cx, cy)),
            side * st.px_per_pitch,
            CLOSEUP_PX,
        )
        own = cv2.cvtColor(tile, cv2.COLOR_RGB2BGR)
        detail.append(cv2.Laplacian(grey(own), cv2.CV_32F).var() / cv2.Laplacian(grey(crop), cv2.CV_32F).var())
        agreement.append(np.corrcoef(grey(own).ravel(), grey(crop).ravel())[0, 1])
    assert min(agreement) > 0.6  # the same place: squares moved by a twentieth of a pitch fall to 0.31-0.54
    assert np.median(detail) > 1.2


def test_score_overlay_shows_the_pictures_own_close_ups(flagged: SheetReport, tmp_path: Path) -> None:
    out = tmp_path / "overlay.png"
    res = CliRunner().invoke(app, ["score", str(_image("style-cream")), "--overlay", str(out)])
    assert res.exit_code == 3, res.output
    written = cv2.imread(str(out))
    assert written is not None and np.array_equal(written, render_overlay(flagged))
