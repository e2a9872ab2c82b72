"""The library entry points: one place where the stages are composed.

load → register → straighten → measure → rebuild → check rules → score → ``SheetReport``.

``analyze_sheet`` reads one picture already in memory (``measure_sheet``, then ``decide`` on its
measurements, which needs no picture); ``analyze_file`` reads every sheet of a
file (one per PDF page); ``score_network_file`` does the game part alone for a network JSON.
They raise ``NsvisionError`` subclasses for bad input; a multi-page file records a page that
fails as a ``SheetFailure`` and goes on with the next.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from nsvision.calibration import Calibration, load_calibration
from nsvision.errors import ExitCode, InputError, NsvisionError
from nsvision.game.board import (
    LINE_COLOURS,
    Colour,
    GameMap,
    Point,
    Section,
    parse_section_name,
    parse_station_name,
    station_name,
)
from nsvision.game.network import GameOptions, Network, load_network
from nsvision.game.rules import Violation, check_network
from nsvision.game.scoring import ScoreCard, score_network
from nsvision.vision.calibrate import load_blank
from nsvision.vision.circles import StationCircle, doubled_stations, find_circles
from nsvision.vision.closeups import CLOSEUP_MAX, section_closeups
from nsvision.vision.detect import SegmentEvidence, measure_sections
from nsvision.vision.load import LoadedPage, load_array, load_page, page_count
from nsvision.vision.marks import MarksReading, compare_marks, marks_contradict, read_marks, track_contradicts
from nsvision.vision.other_sheets import direction, find_other_map
from nsvision.vision.rebuild import Reading, read_to_tourist_track, rebuild, settle_by_hand, tourist_second_looks
from nsvision.vision.register import Registration, register
from nsvision.vision.specks import speck_shares
from nsvision.vision.straighten import MARGIN, Straightened, blank_density, in_colour, straighten


@dataclass(frozen=True)
class SectionFix:
    """What a person who looked at the sheet says one section is: after a review, the sections in
    doubt are settled this way and the sheet scored without them in doubt."""

    section: Section
    colour: Colour | None
    """The pencil drawn on it, or None: not drawn."""
    page: int | None = None
    """The page of a PDF it concerns; None: every page (a single picture)."""
    also: Colour | None = None
    """A second pencil drawn along it as well (the section is drawn twice, a rule broken)."""


@dataclass(frozen=True)
class CircleFix:
    """What a person who looked at the sheet says about one line's double-station pencil power: the
    station circled in its pencil, or None: no station is. Given for a page, it settles the circles
    there (see ``analyze_sheet``)."""

    colour: Colour
    station: Point | None
    page: int | None = None
    """The page of a PDF it concerns; None: every page (a single picture)."""


Fix = SectionFix | CircleFix
"""What a person says after a review: a section's pencil, or a line's circled station."""

FIX_FORM = (
    "expected [PAGE:]x,y-x,y=COLOUR for a section (e.g. 2,3-2,4=green, 2,3-2,4=green+pink if drawn in "
    "both, or 2:4,5-4,6=none) "
    "or [PAGE:]COLOUR=x,y for the station circled in a line's pencil (e.g. green=5,3 or green=none)"
)


def parse_fix(text: str, game_map: GameMap) -> Fix:
    """``[PAGE:]x,y-x,y=COLOUR`` (COLOUR one of purple, blue, pink, green or none; two colours joined
    by ``+`` for a section drawn in both): a section; or
    ``[PAGE:]COLOUR=x,y`` (or ``=none``): the station circled in that line's pencil.

    Raises ``ValueError`` saying what is wrong and what is expected.
    """
    where, sep, value = text.strip().rpartition("=")
    page_text, _, name = where.rpartition(":")
    name = name.strip().lower()
    if not sep or (name.count("-") != 1 and name not in LINE_COLOURS):
        raise ValueError(f"{text!r}: {FIX_FORM}")
    page: int | None = None
    if page_text:
        if not page_text.isdigit() or int(page_text) < 1:
            raise ValueError(f"{text!r}: the page must be a number from 1 ({FIX_FORM})")
        page = int(page_text)
    value = value.strip().lower()
    if name in LINE_COLOURS:
        if value == "none":
            return CircleFix(name, None, page)  # type: ignore[arg-type]
        try:
            station = parse_station_name(value)
        except ValueError as exc:
            raise ValueError(f"{text!r}: {exc} ({FIX_FORM})") from None
        if station not in game_map.by_point:
            raise ValueError(f"{text!r}: there is no station at {station_name(station)}")
        return CircleFix(name, station, page)  # type: ignore[arg-type]
    try:
        section = parse_section_name(name)
    except ValueError as exc:
        raise ValueError(f"{text!r}: {exc} ({FIX_FORM})") from None
    if section not in game_map.section_set:
        raise ValueError(f"{text!r}: {section.name} is not a section of the map (a section joins two stations)")
    colours = [c.strip() for c in value.split("+")]
    if value == "none":
        return SectionFix(section, None, page)
    if len(colours) > 2 or any(c not in LINE_COLOURS for c in colours) or len(set(colours)) < len(colours):
        raise ValueError(
            f"{text!r}: the colour must be one of {', '.join(LINE_COLOURS)} or none, or two different colours "
            "joined by + for a section drawn in both"
        )
    return SectionFix(section, colours[0], page, colours[1] if len(colours) == 2 else None)  # type: ignore[arg-type]


def fix_text(fix: Fix) -> str:
    """What ``parse_fix`` reads back as ``fix``, without its page: ``x,y-x,y=COLOUR`` (``COLOUR+COLOUR``
    when drawn in both, ``none`` when not drawn) or ``COLOUR=x,y`` (``COLOUR=none``)."""
    if isinstance(fix, CircleFix):
        option = circle_fix_option(fix.colour, station_name(fix.station) if fix.station else None)
    else:
        option = fix_option(fix.section.name, fix.colour, also=fix.also)
    return option.removeprefix("--fix ")


def conflicting_fixes(fixes: Sequence[Fix]) -> str | None:
    """Why ``fixes`` contradict each other, or None: a section given two colours, or a line two
    circled stations, on one page (the same fix given twice is no contradiction)."""
    seen: dict[tuple[int | None, str], object] = {}
    for f in fixes:
        key: tuple[int | None, str]
        said: object
        if isinstance(f, CircleFix):
            key, said, twice = (f.page, f.colour), f.station, "two circled stations"
        else:
            key, said, twice = (f.page, f.section.name), (f.colour, f.also), "two colours"
        if key in seen and seen[key] != said:
            return f"{key[1]} is given {twice}: say once what it is"
        seen[key] = said
    return None


def _fix_text(what: str, said: str | None, page: int) -> str:
    return f"--fix {f'{page}:' if page > 1 else ''}{what}={said or 'none'}"


def fix_option(section: str, colour: str | None, page: int = 1, also: str | None = None) -> str:
    """The ``--fix`` option that says ``section`` (``"x,y-x,y"``) is drawn in ``colour`` (None: not
    drawn; and in ``also`` too, when drawn twice) on ``page``: what ``parse_fix`` reads back."""
    return _fix_text(section, f"{colour}+{also}" if colour and also else colour, page)


def circle_fix_option(colour: str, station: str | None, page: int = 1) -> str:
    """The ``--fix`` option that says the ``colour`` line circled ``station`` (``"x,y"``; None:
    none) on ``page``: what ``parse_fix`` reads back as a ``CircleFix``."""
    return _fix_text(colour, station, page)


@dataclass(frozen=True)
class SheetReport:
    """Everything read and computed for one sheet."""

    source: str
    page: int
    network: Network
    score: ScoreCard
    violations: tuple[Violation, ...]
    needs_review: bool
    depends_on: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Score field -> doubtful sections that would change it if read the other way."""
    review_reasons: tuple[str, ...] = ()
    """Why the sheet needs review, in plain English (empty when it does not)."""
    reading: Reading | None = None
    registration: Registration | None = None
    marks: MarksReading | None = None
    """What the player marked in the score zone (crossed tourist circles, ticked "+10" boxes)."""
    mark_differences: tuple[str, ...] = ()
    """Where those marks disagree with what the lines earn, in plain English."""
    circles_in_doubt: bool = False
    """Some review reason is about pencil circles round stations (see ``CircleFix``)."""
    straightened: Straightened | None = field(default=None, repr=False, compare=False)
    seconds: float = 0.0
    measurements: Measurements | None = field(default=None, repr=False, compare=False)
    """What the reading was decided from (see ``decide``)."""
    closeups: dict[Section, np.ndarray] = field(default_factory=dict, repr=False, compare=False)
    """RGB close-ups of the sections to check taken from the picture itself, at its own resolution
    (``vision.closeups``), when ``analyze_sheet`` was asked for them; the overlay shows them."""

    @property
    def total(self) -> int:
        return self.score.total

    @property
    def status(self) -> str:
        if self.needs_review:
            return "needs_review"
        return "rules_broken" if self.violations else "ok"

    @property
    def exit_code(self) -> ExitCode:
        if self.needs_review:
            return ExitCode.NEEDS_REVIEW
        return ExitCode.RULES_BROKEN if self.violations else ExitCode.OK

    @property
    def also_check(self) -> tuple[tuple[Section, str], ...]:
        """On a sheet that needs review: sections read as not drawn, without doubt, that the person
        reviewing should look at too (a light stroke is not always in doubt), with why."""
        if not self.needs_review or self.reading is None:
            return ()
        return tuple(sorted(self.reading.second_look.items()))

    @property
    def sections_to_check(self) -> tuple[Section, ...]:
        """The sections a person is asked to look at: those in doubt, then ``also_check``'s."""
        doubtful = tuple(r.section for r in self.reading.doubtful) if self.reading else ()
        return doubtful + tuple(s for s, _why in self.also_check)

    @property
    def doubtful_sections(self) -> tuple[str, ...]:
        return tuple(r.section.name for r in self.reading.doubtful) if self.reading else ()

    def to_dict(self) -> dict[str, Any]:
        """The JSON report (a stable contract: see 'JSON output' in the README)."""
        card = self.score.to_dict()
        lines = {
            line.colour: {
                **line.to_dict(),
                "section_count": line.sections,
                "sections": [s.to_list() for s in self.network.sections(line.colour)],
            }
            for line in self.score.lines
        }
        out: dict[str, Any] = {
            "source": self.source,
            "page": self.page,
            "status": self.status,
            "total": self.score.total,
            "needs_review": self.needs_review,
            "review_reasons": list(self.review_reasons),
            "circles_in_doubt": self.circles_in_doubt,
            "doubtful_sections": list(self.doubtful_sections),
            "depends_on": {k: list(v) for k, v in self.depends_on.items()},
            "lines": lines,
            "score": card,
            "violations": [v.to_dict() for v in self.violations],
            "network": self.network.to_dict(),
        }
        if self.reading is not None:
            out["sections"] = [
                r.to_dict()
                for r in sorted(self.reading.sections.values(), key=lambda r: r.section)
                if r.colour is not None or r.doubtful or r.set_by_hand
            ]
            out["set_by_hand"] = [r.section.name for r in self.reading.set_by_hand]
            out["also_check"] = [{"section": s.name, "reason": why} for s, why in self.also_check]
        if self.registration is not None:
            out["registration"] = self.registration.to_dict()
        if self.marks is not None:
            out["marks"] = self.marks.to_dict()
            out["mark_differences"] = list(self.mark_differences)
        out["seconds"] = round(self.seconds, 3)
        return out


@dataclass(frozen=True)
class SheetFailure:
    """A sheet (page) that could not be read; the batch goes on."""

    source: str
    page: int
    error: NsvisionError

    @property
    def exit_code(self) -> ExitCode:
        return self.error.exit_code

    @property
    def status(self) -> str:
        return "no_map" if self.error.exit_code == ExitCode.NO_MAP else "failed"

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "page": self.page,
            "status": self.status,
            "error": self.error.message,
            "exit_code": int(self.error.exit_code),
        }


SheetResult = SheetReport | SheetFailure


def overall_exit_code(results: list[SheetResult]) -> ExitCode:
    """The exit code of a run over several sheets: the most serious outcome wins."""
    order = [ExitCode.INTERNAL, ExitCode.BAD_INPUT, ExitCode.NO_MAP, ExitCode.NEEDS_REVIEW, ExitCode.RULES_BROKEN]
    codes = {r.exit_code for r in results}
    return next((c for c in order if c in codes), ExitCode.OK)


def _score(network: Network, calibration: Calibration) -> tuple[ScoreCard, tuple[Violation, ...]]:
    return score_network(network, calibration.map), check_network(network, calibration.map)


def _depends_on(reading: Reading, card: ScoreCard, calibration: Calibration) -> dict[str, tuple[str, ...]]:
    """Which score fields change if a doubtful section is read the other way."""
    out: dict[str, list[str]] = {}
    base = _fields(card)
    for r in reading.doubtful:
        lines = {c: list(reading.network.sections(c)) for c in LINE_COLOURS}
        if r.also is not None:  # the other way: drawn in one pencil only
            lines[r.also] = [s for s in lines[r.also] if s != r.section]
        elif r.colour is not None:
            lines[r.colour] = [s for s in lines[r.colour] if s != r.section]
        else:
            lines[r.nearest].append(r.section)
        flipped = _fields(score_network(Network.build(lines, reading.network.options), calibration.map))
        for key, value in flipped.items():
            if value != base[key]:
                out.setdefault(key, []).append(r.section.name)
    return {k: tuple(v) for k, v in out.items()}


def _fields(card: ScoreCard) -> dict[str, int]:
    f = {f"{line.colour}_line": line.score for line in card.lines}
    f["tourist_points"] = card.tourist_points
    f["interchange_points"] = card.interchanges.points
    f["objectives"] = sum(o.points for o in card.objectives)
    f["total"] = card.total
    return f


MIN_FOUND_FRACTION = 0.75
"""Below this share of station symbols seen, the map may be partly hidden or mis-registered."""
MAX_RESIDUAL = 0.08
"""Median symbol residual (lattice units) above which the lattice model does not fit the picture well."""
SMALL_MAP_PITCH = 110.0
"""Station spacing (px) below which a picture whose file keeps colour at half resolution (a JPEG's
chroma subsampling) blurs pencil colours: a sheet in doubt is then told how to take a better picture.
On the accuracy set's photos (all such JPEGs), 20 of the 29 under it are flagged and 18 fully right,
against 47 flagged and 130 right of the 151 above it; the same 29 saved losslessly: 15 and 22
(``bench/colour_detail.py``)."""


def review_reasons(
    reading: Reading,
    registration: Registration,
    another_map: str | None = None,
    circles: Sequence[str] = (),
    colour_halved: bool = False,
    contradicted: Sequence[str] = (),
    *,
    lossy_scan: bool = False,
) -> tuple[str, ...]:
    """Why a person should check this sheet (empty when the reading is sure); ``another_map`` says
    where a second map lies in the picture (``left``, ``right``, ``above``, ``below``), if one does;
    ``circles``, pencil circles round stations that were not counted as a double station, and why;
    ``contradicted``, where the player's own marks in the score zone contradict the lines as read
    (``vision.marks.marks_contradict``).
    A sheet in doubt whose map is small in a file that keeps colour at half resolution
    (``colour_halved``, see ``SMALL_MAP_PITCH``) is also told how to take a picture that reads better;
    one from a scanner's lossy file (``lossy_scan``), how to save the scan. On the accuracy set's 60
    scans (``bench/robustness.py --count 0 --scans 60``) saved as a PDF of JPEG pages 12 sheets are
    flagged, as PNG 4."""
    reasons: list[str] = []
    if reading.doubtful:
        names = ", ".join(r.section.name for r in reading.doubtful)
        reasons.append(f"{len(reading.doubtful)} section(s) could not be read with confidence: {names}")
    # What a person has set by hand they have seen: nothing hides it any more.
    hidden = [r.section.name for r in reading.sections.values() if r.evidence.hidden > 0 and not r.set_by_hand]
    if hidden:
        reasons.append(
            f"part of the map shows neither print nor pencil (on {', '.join(hidden)}): something may lie over "
            "the sheet there, glare may wash it out, or that part is in deep shadow or out of the picture; clear "
            "the sheet, keep glare off it and take the picture again"
        )
    # Every round of a game draws one line, so a finished sheet holds all four. A line of which
    # nothing at all is read was drawn too lightly to show, or the picture's colours were filtered
    # away (a sepia or one-tone filter leaves the pencil the print's own colour): not a score to
    # trust unseen. Over the stored bench reads (2,320 sheets) no sheet read right lacks a line.
    # Once a person has set sections by hand, they have looked at the sheet.
    missing = [c for c in LINE_COLOURS if not reading.network.sections(c)]
    if missing and not reading.set_by_hand:
        if len(missing) == len(LINE_COLOURS):
            reasons.append(
                "no pencil line was found on the map: an unused sheet scores 0, but if lines were drawn, they "
                "are too light to read or the picture's colours were filtered (sepia, one tone); photograph "
                "the sheet again without a filter"
            )
        else:
            reasons.append(
                f"no {', '.join(missing)} line was found: every round draws a line, so it may be drawn too "
                "lightly to read; check the sheet (--overlay shows what was read)"
            )
    total = len(registration.station_xy_px)
    if registration.stations_found < MIN_FOUND_FRACTION * total:
        reasons.append(
            f"only {registration.stations_found} of {total} station symbols were seen: part of the map may be "
            "hidden, in shadow or out of the picture"
        )
    if registration.median_residual > MAX_RESIDUAL:
        reasons.append(f"the map is strongly bent or distorted (residual {registration.median_residual:.2f} pitch)")
    reasons.extend(circles)
    # The player crossed out a tourist circle per site on each line, round by round, and ticked the
    # objectives met: where those clear marks disagree with the lines as read, a section is misread
    # (a light stroke to a tourist site, say) or the player slipped. Over the stored bench reads
    # (3,100 sheets, whose players mark truthfully, some not at all) this flags four sheets read
    # wrong that nothing else flagged, and no sheet read right that was not flagged already. Once a
    # person has set sections by hand, they have looked at the sheet.
    if not reading.set_by_hand:
        for why in contradicted:
            reasons.append(
                f"the score zone disagrees with the lines as read: {why}; a section may be misread (a light "
                "stroke to a tourist site, say) or the mark is a slip: check the lines and the score zone "
                "(--overlay shows what was read)"
            )
    if another_map:
        reasons.append(
            f"another Map of London lies in the picture ({another_map} of the one read): one sheet is read per "
            "picture; photograph each sheet on its own"
        )
    if reasons and colour_halved and registration.pitch_px < SMALL_MAP_PITCH:
        # Advice, not a reason of its own: it never flags a sheet read with confidence.
        reasons.append(
            f"the map is small in this picture (stations {registration.pitch_px:.0f} px apart) and the file keeps "
            "its colours at half that detail (JPEG compression), so thin pencil strokes lose their colour: a "
            "photo taken closer, with the map filling most of it, or the phone's original file rather than a "
            "copy sent through a messaging app, reads better"
        )
    if reasons and lossy_scan:
        # Advice, not a reason of its own, as above.
        reasons.append(
            "the scan is stored with lossy (JPEG) compression, which smears a light pencil stroke's colour "
            "into the paper: scanned to PNG, to TIFF without JPEG compression, or to a PDF with lossless "
            "pages, light strokes read better"
        )
    return tuple(reasons)


_PRINT_DENSITY: dict[tuple[str, str], np.ndarray] = {}
"""Calibrated blanks' print density, by calibration file and blank image: computed once per batch."""


def print_density(cal: Calibration) -> np.ndarray | None:
    """The thin-mark density of a calibrated print's blank sheet, or None for an uncalibrated print."""
    name = cal.appearance.get("blank_image")
    if cal.blank_image is None and name is None:
        return None
    key = (cal.source, str(name))
    if cal.blank_image is None and key in _PRINT_DENSITY:
        return _PRINT_DENSITY[key]
    blank = load_blank(cal)
    if blank is None:
        return None
    density = blank_density(blank, cal.map, float(cal.appearance.get("margin", MARGIN)))
    if cal.blank_image is None and cal.source:
        _PRINT_DENSITY[key] = density
    return density


@dataclass(frozen=True)
class Measurements:
    """What the reader measured on one sheet before deciding anything: where the map lies, the
    pencil evidence on every section, the pencil circles round stations and the score zone's marks.
    ``decide`` reads them; reading them again with a changed rebuild needs no picture (see
    ``bench/reread.py``)."""

    source: str
    page: int
    registration: Registration
    evidence: dict[Section, SegmentEvidence]
    band_density: tuple[float, float, float] | None
    """The Thames band's optical density over the paper, when a band was found."""
    circles: tuple[StationCircle, ...]
    marks: MarksReading
    another_map: str | None = None
    """Where a second map lies in the picture (``left``, ``right``, ``above``, ``below``), if one does."""
    colour_halved: bool = False
    """The picture's file keeps colour at half resolution (``LoadedPage.colour_halved``)."""
    lossy_scan: bool = False
    """The picture is a scanner's file stored with lossy compression (``LoadedPage.lossy_scan``)."""


def _as_page(image: np.ndarray | LoadedPage, source: str, page: int) -> LoadedPage:
    """A loaded page as it is; an in-memory picture checked, named ``source`` and numbered ``page``."""
    return image if isinstance(image, LoadedPage) else replace(load_array(image, source), page=page)


def measure_sheet(
    image: np.ndarray | LoadedPage, calibration: Calibration | None = None, *, source: str = "<image>", page: int = 1
) -> tuple[Measurements, Straightened]:
    """Find the map in an RGB image (or a loaded page) and measure it: the measurements, and the map
    straightened to the lattice (for overlays). Raises as ``analyze_sheet`` does."""
    cal = calibration or load_calibration()
    loaded = _as_page(image, source, page)
    source, page = loaded.source, loaded.page
    reg = register(loaded.image, cal.map, source)
    other = find_other_map(loaded.image, reg, cal.map, cal.sheet, source)
    # A calibrated print brings its own blank: what is printed under every section is then known.
    straight = straighten(loaded.image, reg, cal.map, print_density(cal))
    if not in_colour(straight.image):
        # Read anyway, every pencil would vanish into the grey print: a score of nothing, looking sure.
        raise InputError(
            source,
            "is a black-and-white picture: the map is there, but the pencils' colours cannot be told apart",
            "scan or photograph the sheet in colour",
        )
    radius = cal.sheet.station_radius / cal.sheet.lattice_pitch
    circles = find_circles(straight, cal.map, radius)
    drawn_circles = {c.station: c.radius for c in circles if c.sure}

    def specks(crossed: Mapping[Section, list[Section]]) -> dict[Section, tuple[float, ...]]:
        return speck_shares(loaded.image, reg, cal.map, radius, drawn_circles, crossed)

    # Specks a pixel or two wide keep their colour only where the pixels were stored losslessly: a
    # JPEG (a phone's halves its colour), a lossy WebP or HEIC, a PDF's JPEG pages smear them into the
    # paper and fringe strokes with colour of their own (seed 42000's 60 scans saved as PDF with JPEG
    # pages put four blank sections in doubt for specks; as PNG none, and a PDF page stored with
    # Flate renders pixel for pixel as the PNG it was made from).
    evidence = measure_sections(straight, cal.map, radius, drawn_circles, specks if loaded.lossless else None)
    measured = Measurements(
        source=source,
        page=page,
        registration=reg,
        evidence=evidence,
        band_density=straight.band_density,
        circles=circles,
        marks=read_marks(loaded.image, reg, cal),
        another_map=direction(reg, other) if other else None,
        colour_halved=loaded.colour_halved,
        lossy_scan=loaded.lossy_scan,
    )
    return measured, straight


def decide(
    measured: Measurements,
    calibration: Calibration | None = None,
    options: GameOptions | None = None,
    fixes: Sequence[Fix] = (),
) -> SheetReport:
    """Read and score one sheet from its measurements (see ``analyze_sheet`` for ``options`` and
    ``fixes``). The report carries no straightened map and no time: ``analyze_sheet`` adds them."""
    cal = calibration or load_calibration()
    reading = rebuild(measured.evidence, cal.map, options, measured.band_density)
    here = [f for f in fixes if f.page in (None, measured.page)]
    mine = {f.section: f.colour for f in here if isinstance(f, SectionFix)}
    if mine:
        also = {f.section: f.also for f in here if isinstance(f, SectionFix) and f.also is not None}
        reading = settle_by_hand(reading, mine, also)
    # A station circled in a line's pencil is that line's double station (a pencil power), unless
    # a person or the caller said which station it is.
    doubled, circle_notes = doubled_stations(measured.circles, reading.network, reading.hues)
    circled = {f.colour: f.station for f in here if isinstance(f, CircleFix)}
    if circled:
        doubled = {k: p for k, p in {**doubled, **circled}.items() if p is not None}
        circle_notes = ()
    given = reading.network.options
    if any(k not in given.doubled_stations for k in doubled):
        both = replace(given, doubled_stations={**doubled, **given.doubled_stations})
        reading = replace(reading, network=replace(reading.network, options=both))
    card, violations = _score(reading.network, cal)
    marks = measured.marks
    if track_contradicts(marks, card.tourist_circles) and not reading.set_by_hand:
        # The player's own count of tourist sites may point at the one light stroke the picture lost.
        tracked = read_to_tourist_track(reading, cal.map, marks.tourist_circles_crossed, card.tourist_circles)
        if tracked is not reading:
            reading = tracked
            card, violations = _score(reading.network, cal)
    met = tuple(o.met for o in card.objectives)
    mark_differences = compare_marks(marks, card.tourist_circles, met)
    contradicted = marks_contradict(marks, card.tourist_circles, met)
    if track_contradicts(marks, card.tourist_circles) and not reading.set_by_hand:
        # Where the track disagrees, the sections that would explain it are worth a look.
        looks = tourist_second_looks(reading, cal.map, marks.tourist_circles_crossed, card.tourist_circles)
        reading = replace(reading, second_look={**reading.second_look, **looks})
    reasons = review_reasons(
        reading,
        measured.registration,
        measured.another_map,
        circle_notes,
        measured.colour_halved,
        contradicted,
        lossy_scan=measured.lossy_scan,
    )
    return SheetReport(
        source=measured.source,
        page=measured.page,
        network=reading.network,
        score=card,
        violations=violations,
        needs_review=bool(reasons),
        depends_on=_depends_on(reading, card, cal),
        review_reasons=reasons,
        reading=reading,
        registration=measured.registration,
        marks=marks,
        mark_differences=mark_differences,
        circles_in_doubt=bool(circle_notes),
        measurements=measured,
    )


def analyze_sheet(
    image: np.ndarray | LoadedPage,
    calibration: Calibration | None = None,
    options: GameOptions | None = None,
    *,
    source: str = "<image>",
    page: int = 1,
    fixes: Sequence[Fix] = (),
    closeups: bool = False,
) -> SheetReport:
    """Read one sheet from an RGB image (or a loaded page) and score it: ``measure_sheet``, then
    ``decide``; with ``closeups``, also take close-ups of the sections to check from the picture
    (``SheetReport.closeups``, at most ``CLOSEUP_MAX``), for the overlay.

    ``fixes`` are what a person who looked at the sheet says (those for this page, or for every
    page): a ``SectionFix`` replaces what was read on its section, sure and no longer in doubt; a
    ``CircleFix`` says which station a line circled (or that none is), and once one is given the
    person has looked at the circles: the page's other circles still count as read, but none is
    left in doubt. ``options.doubled_stations`` still win over both.
    Raises ``NoMapFoundError`` when the picture holds no Map of London, and ``InputError`` when it
    is black and white (no pencil's colour can be read).
    """
    start = time.perf_counter()
    cal = calibration or load_calibration()
    loaded = _as_page(image, source, page)
    measured, straight = measure_sheet(loaded, cal)
    report = decide(measured, cal, options, fixes)
    tiles = {}
    if closeups:
        tiles = section_closeups(loaded.image, measured.registration, report.sections_to_check[:CLOSEUP_MAX])
    return replace(report, straightened=straight, closeups=tiles, seconds=time.perf_counter() - start)


def iter_file(
    path: str | Path,
    calibration: Calibration | None = None,
    options: GameOptions | None = None,
    fixes: Sequence[Fix] = (),
    closeups: bool = False,
) -> Iterator[SheetResult]:
    """Read every sheet of a picture or PDF, in page order; a page that fails becomes a ``SheetFailure``.

    An error that concerns the whole file (missing, unreadable) is raised from the first step.
    ``fixes`` and ``closeups``: see ``analyze_sheet``.
    """
    cal = calibration or load_calibration()
    for page in range(1, page_count(path) + 1):
        try:
            yield analyze_sheet(load_page(path, page), cal, options, fixes=fixes, closeups=closeups)
        except NsvisionError as exc:
            # One damaged or map-less page must not cost the other pages of the file.
            yield SheetFailure(str(path), page, exc)


def analyze_file(
    path: str | Path,
    calibration: Calibration | None = None,
    options: GameOptions | None = None,
    fixes: Sequence[Fix] = (),
    closeups: bool = False,
) -> list[SheetResult]:
    """All sheets of a file (see ``iter_file``)."""
    return list(iter_file(path, calibration, options, fixes, closeups))


def score_network_file(
    path: str | Path, calibration: Calibration | None = None, options: GameOptions | None = None
) -> SheetReport:
    """Score a network JSON file (no image): the game core alone."""
    cal = calibration or load_calibration()
    network = load_network(path)
    if options is not None:
        network = replace(network, options=_merge_options(network.options, options))
    card, violations = _score(network, cal)
    return SheetReport(str(path), 1, network, card, violations, needs_review=False)


def score_network_obj(
    network: Network, calibration: Calibration | None = None, source: str = "<network>"
) -> SheetReport:
    """Score an in-memory network."""
    cal = calibration or load_calibration()
    card, violations = _score(network, cal)
    return SheetReport(source, 1, network, card, violations, needs_review=False)


def _merge_options(base: GameOptions, extra: GameOptions) -> GameOptions:
    return GameOptions(
        objectives=tuple(dict.fromkeys((*base.objectives, *extra.objectives))),
        powers={**base.powers, **extra.powers},
        doubled_stations={**base.doubled_stations, **extra.doubled_stations},
        solo=base.solo or extra.solo,
    )
