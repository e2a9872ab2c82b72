"""Specks of pencil at the picture's own resolution: measured on clean pictures, telling a stroke too
light to mark at the reader's resolution from a blank section."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pymupdf
import pytest

from nsvision.calibration import load_calibration
from nsvision.game.board import LINE_COLOURS, Section, parse_section_name
from nsvision.pipeline import SheetReport, analyze_file, analyze_sheet, measure_sheet
from nsvision.render.sample import Sample, make_sample, write_sample
from nsvision.vision.specks import speck_shares

CAL = load_calibration()


def _drawn(sample: Sample) -> dict[Section, str]:
    return {
        parse_section_name("-".join(pair)): colour
        for colour, pairs in sample.expected["network"]["lines"].items()
        for pair in pairs
    }


def _grained(image: np.ndarray, sigma: float) -> np.ndarray:
    """``image`` with a paper's grain: noise of ``sigma`` levels on every channel of every pixel."""
    grain = np.random.default_rng(0).normal(0.0, sigma, image.shape)
    return np.clip(image + grain, 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def scan() -> Sample:
    return make_sample(CAL, 52015, mode="scan", style="print", strength=0.517)


@pytest.mark.parametrize(("style", "seed"), [("print", 52015), ("cream", 152015)])
def test_a_scans_strokes_leave_specks_of_their_pencil_and_blank_paper_none(style: str, seed: int) -> None:
    scan = make_sample(CAL, seed, mode="scan", style=style, strength=0.517)
    measured, _ = measure_sheet(scan.pages[0].image, CAL)
    shares = speck_shares(scan.pages[0].image, measured.registration, CAL.map)
    drawn = _drawn(scan)
    reached = {p for s in drawn for p in (s.a, s.b)}
    for k, colour in enumerate(LINE_COLOURS):
        own = [shares[s][k] for s, c in drawn.items() if c == colour and s in shares]
        assert np.median(own) >= 0.5, colour
    # Away from every line and every drawn crossing, no speck of any pencil's hue: the print's grey
    # guides (the marks where they cross too), navy rings and spikes, yellow borders and the Thames
    # band leave none.
    crossed = {t for s in drawn for t in CAL.map.crossing_partners[s]}
    far = [s for s in shares if s not in drawn and s not in crossed and not {s.a, s.b} & reached]
    assert len(far) >= 10
    for k, colour in enumerate(LINE_COLOURS):
        assert max(shares[s][k] for s in far) < 0.05, colour


def test_specks_are_measured_on_a_scan_not_on_a_photo(scan: Sample, tmp_path: Path) -> None:
    report = analyze_sheet(scan.pages[0].image, CAL)
    # All but the few sections the Thames band takes up (too little of them lies clear of it).
    measured = [r for r in report.reading.sections.values() if r.evidence.specks]
    assert len(measured) >= 140
    assert all(len(r.evidence.specks) == len(LINE_COLOURS) for r in measured)
    assert any("specks" in s["evidence"] for s in report.to_dict()["sections"])
    # A picture noisier than any scan (a dim photo's grain) is not measured, even kept whole: the
    # grain makes specks of every hue. (The fresh prints' scans, their paper grained, reach 0.054 on
    # the reader's measure of noise; this photo with grain added, 0.069.)
    photo = make_sample(CAL, 52015, mode="photo", style="print", strength=0.517)
    report = analyze_sheet(_grained(photo.pages[0].image, 30.0), CAL)
    assert not any(r.evidence.specks for r in report.reading.sections.values())
    # A photo as quiet as a scan (soft light, little noise) is measured kept whole, but not from the
    # phone's JPEG, which halves its colour: specks a pixel or two wide lose theirs.
    quiet = make_sample(CAL, 121001, mode="photo", style="cream", strength=0.111)
    assert any(r.evidence.specks for r in analyze_sheet(quiet.pages[0].image, CAL).reading.sections.values())
    jpeg = next(p for p in write_sample(quiet, tmp_path, fmt="jpg") if p.suffix != ".json")
    [from_jpeg] = analyze_file(jpeg, CAL)
    assert isinstance(from_jpeg, SheetReport) and from_jpeg.reading is not None
    assert not any(r.evidence.specks for r in from_jpeg.reading.sections.values())
    # Nor from the scan saved as a PDF with its page a JPEG (as most scanners store them), where the
    # compression fringes strokes with colour; from the scan saved as PNG, or as a PDF whose page is
    # stored losslessly (Flate), they are.
    png = next(p for p in write_sample(scan, tmp_path / "png", fmt="png") if p.suffix != ".json")
    jpeg_pdf = next(p for p in write_sample(scan, tmp_path / "pdf", fmt="pdf") if p.suffix != ".json")
    doc = pymupdf.open()
    height, width = scan.pages[0].image.shape[:2]
    doc.new_page(width=width * 72 / 300, height=height * 72 / 300).insert_image(
        pymupdf.Rect(0, 0, width * 72 / 300, height * 72 / 300), filename=str(png)
    )
    flate_pdf = tmp_path / "flate.pdf"
    doc.save(flate_pdf, deflate=True)
    for path, measured in ((jpeg_pdf, False), (png, True), (flate_pdf, True)):
        [read] = analyze_file(path, CAL)
        assert isinstance(read, SheetReport) and read.reading is not None
        assert any(r.evidence.specks for r in read.reading.sections.values()) is measured, path.name
        if measured:
            # The stroke only specks show (see the next test) is named in doubt from either file.
            assert "0,0-1,1" in read.doubtful_sections, path.name


def test_a_stroke_that_leaves_only_specks_on_a_scan_is_named_in_doubt(scan: Sample) -> None:
    # Purple 0,0-1,1, the purple line's last section, drawn so lightly that at the reader's
    # resolution it is paper: read as not drawn, sure of it, it was a wrong score without a flag.
    assert _drawn(scan)[parse_section_name("0,0-1,1")] == "purple"
    report = analyze_sheet(scan.pages[0].image, CAL)
    # Its specks are plain on a third of it, of purple alone. Now named, and read as the purple line
    # going on in the best reading: the total is right, and a person still confirms it. (Since the
    # fifty-second session its faint marks, on 40 % of it with ink on 19 %, name it first; the rule
    # the specks feed is checked on its own in test_rebuild.py.)
    section = report.reading.sections[parse_section_name("0,0-1,1")]
    shares = dict(zip(LINE_COLOURS, section.evidence.specks, strict=True))
    assert shares.pop("purple") >= 0.3
    assert max(shares.values()) == 0.0
    assert "0,0-1,1" in report.doubtful_sections
    assert report.needs_review
    assert "purple" in section.reason
    assert section.colour == "purple"
    assert report.total == scan.expected["total"]


def test_specks_washed_into_the_paper_leave_nothing_in_doubt(scan: Sample) -> None:
    # The same scan blurred over a few pixels (as a JPEG's halved colour or a soft scanner would):
    # the specks are gone, and nothing else is put in doubt for want of them.
    soft = cv2.GaussianBlur(scan.pages[0].image, (0, 0), 2.0)
    report = analyze_sheet(soft, CAL)
    assert not any("specks" in r.reason for r in report.reading.sections.values())


def test_on_a_grainy_scan_specks_are_measured_and_the_grains_own_put_nothing_in_doubt(scan: Sample) -> None:
    # Paper with a grain (as the fresh prints' scans have): noisier than our scans, under a photo's.
    # Specks are measured; the grain leaves specks of every pencil's hue on every section, which the
    # rebuild weighs against the sheet's own blank sections: no section is put in doubt for them.
    # (The light purple 0,0-1,1 named in doubt above is lost under this grain, its faint marks and
    # specks no more than the grain's: a known weakness, docs/accuracy-history.md.)
    report = analyze_sheet(_grained(scan.pages[0].image, 6.0), CAL)
    measured = [r for r in report.reading.sections.values() if r.evidence.specks]
    assert len(measured) >= 140
    blank = [r for s, r in report.reading.sections.items() if s not in _drawn(scan) and r.evidence.specks]
    assert np.median([max(r.evidence.specks) for r in blank]) > 0.05
    assert not any("specks" in r.reason for r in report.reading.sections.values())


def test_where_a_drawn_section_crosses_its_stroke_is_not_counted_on_the_section_it_crosses(scan: Sample) -> None:
    measured, _ = measure_sheet(scan.pages[0].image, CAL)
    drawn = _drawn(scan)
    crossed = {s: [t for t in CAL.map.crossing_partners[s] if t in drawn] for s in CAL.map.sections}
    shares = speck_shares(scan.pages[0].image, measured.registration, CAL.map, drawn_partners=crossed)
    blank = [s for s, ts in crossed.items() if ts and s not in drawn and s in shares]
    assert len(blank) >= 5
    for s in blank:
        for t in crossed[s]:
            assert shares[s][LINE_COLOURS.index(drawn[t])] < 0.05, (s.name, t.name)  # type: ignore[arg-type]


def test_sections_beyond_the_edge_of_a_scan_cut_off_are_not_measured(scan: Sample) -> None:
    # The scan cut off on the left, through the lattice's first column: what lies beyond the edge
    # is not counted as specks (the picture's edge pixels stood in for it).
    image = scan.pages[0].image
    cut = np.ascontiguousarray(image[:, int(image.shape[1] * 0.12) :])
    report = analyze_sheet(cut, CAL)
    assert report.registration is not None and report.reading is not None
    gone = [s for s in CAL.map.sections if s.a[0] == 0 and s.b[0] == 0]
    assert gone and all(report.registration.lattice_to_px(np.array([s.a]))[0][0] < 0 for s in gone)
    assert not any(report.reading.sections[s].evidence.specks for s in gone)
    assert not any("specks" in r.reason for r in report.reading.sections.values())
