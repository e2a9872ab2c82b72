"""Pencil evidence on hand-made measurements: what counts as pencil, and where the Thames band is."""

from __future__ import annotations

import cv2
import numpy as np

from nsvision.calibration import load_calibration
from nsvision.game.board import LINE_COLOURS, Section
from nsvision.vision.channels import chroma_density
from nsvision.vision.detect import (
    _colour_without_print,
    _empty_points,
    _evidence_one,
    _explain_point,
    _hidden_shares,
    _partial_guide_added,
    _print_levels,
    _Profiles,
    _zone_levels,
    pencil_grey,
    pencil_hues,
)
from nsvision.vision.straighten import (
    MARGIN,
    PX_PER_PITCH,
    broad_background,
    canonical_size,
    clipped_loss,
    coloured_surround,
    dark_surround,
    paper_alone_density,
    plain_paper,
    river_banks,
    stroke_density,
    thames_band,
)

DIRS = np.stack([pencil_hues()[c] for c in LINE_COLOURS])
SECTION = Section.of((4, 5), (4, 6))


def test_a_stroke_on_the_thames_band_counts_though_its_colour_is_skewed() -> None:
    # Green pencil on a dark blue band: the red the band already absorbs hardly darkens further,
    # so the stroke shows mostly in blue. On plain paper such a colour is no pencil at all.
    seen = np.tile(np.array([0.2, 0.0, 0.7], np.float32), (14, 1))
    on_band = _evidence_one(SECTION, seen, DIRS, 0.085, np.ones(14, bool))
    assert on_band.ink == 1.0
    assert float(np.array(on_band.chroma) @ pencil_hues()["green"]) > 0.7
    on_paper = _evidence_one(SECTION, seen, DIRS, 0.085, np.zeros(14, bool))
    assert on_paper.ink == 0.0


def test_a_light_stroke_all_along_raises_the_median_mark_where_no_position_is_faint() -> None:
    # A purple stroke at a third of the faint threshold on every position: nothing marked or faint,
    # but its median in purple's hue is the stroke's. The same density on a few positions (the
    # print's marks here and there) leaves the median at nought.
    purple = pencil_hues()["purple"]
    light = np.tile((0.015 * purple).astype(np.float32), (30, 1))
    along = _evidence_one(SECTION, light, DIRS, 0.085)
    assert along.ink == 0.0 and along.faint == 0.0
    i = LINE_COLOURS.index("purple")
    assert along.median_mark[i] == max(along.median_mark)
    assert abs(along.median_mark[i] - 0.015) < 1e-3
    spots = np.zeros_like(light)
    spots[::6] = light[::6]
    assert _evidence_one(SECTION, spots, DIRS, 0.085).median_mark[i] == 0.0
    # Nothing measured, nothing to compare.
    assert _evidence_one(SECTION, np.zeros((0, 3), np.float32), DIRS, 0.085).median_mark == ()


def _sheet(band_rgb: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray, slice]:
    """Cream paper with a horizontal band 0.4 pitch wide inside a zone 0.6 pitch wide."""
    h, w = 4 * PX_PER_PITCH, 6 * PX_PER_PITCH
    image = np.empty((h, w, 3), np.uint8)
    image[:] = (236, 228, 205)
    rows = slice(2 * PX_PER_PITCH - int(0.2 * PX_PER_PITCH), 2 * PX_PER_PITCH + int(0.2 * PX_PER_PITCH))
    image[rows] = band_rgb
    zone = np.zeros((h, w), bool)
    zone[2 * PX_PER_PITCH - int(0.3 * PX_PER_PITCH) : 2 * PX_PER_PITCH + int(0.3 * PX_PER_PITCH)] = True
    return image, zone, rows


def test_the_thames_band_is_found_inside_its_zone_whatever_its_colour() -> None:
    for band_rgb in ((118, 200, 212), (60, 110, 200), (200, 222, 196)):  # teal, dark blue, pale green
        image, zone, rows = _sheet(band_rgb)
        band, density = thames_band(broad_background(image, PX_PER_PITCH), zone, PX_PER_PITCH)
        inner = band[rows.start + 4 : rows.stop - 4]
        assert inner.all(), band_rgb
        # The zone's paper beyond the band (and its blurred edge) is paper.
        assert not band[: rows.start - 6].any(), band_rgb
        assert not band[rows.stop + 6 :].any(), band_rgb
        assert not (band & ~zone).any()
        # The band's own density over the paper, channel by channel.
        expected = -np.log((np.array(band_rgb) + 4.0) / (np.array((236, 228, 205)) + 4.0))
        assert density is not None
        assert np.allclose(density, expected, atol=0.03), (band_rgb, density)


def test_a_shadow_over_the_zone_is_not_the_band() -> None:
    image, zone, _ = _sheet((236, 228, 205))
    image[:, : 3 * PX_PER_PITCH] = (image[:, : 3 * PX_PER_PITCH] * 0.6).astype(np.uint8)
    band, density = thames_band(broad_background(image, PX_PER_PITCH), zone, PX_PER_PITCH)
    assert not band.any()
    assert density is None


def test_the_print_level_follows_a_cast_across_the_sheet_and_ignores_the_drawn_sections() -> None:
    # Warm light on one side: the guides there look pinker (more green absorbed) than on the other.
    # A third of the sections carry a firm pink stroke, which is not the print's level anywhere.
    game_map = load_calibration().map
    rng = np.random.default_rng(3)
    delta, valid, river, along = {}, {}, {}, {}
    truth = {}
    for k, s in enumerate(game_map.sections):
        x = (s.a[0] + s.b[0]) / 2
        guide = np.array([0.02, 0.02 + 0.006 * x, 0.03])
        truth[s] = guide
        n = 40
        d = guide + rng.normal(0, 0.004, (n, 3))
        if k % 3 == 0:
            d = d + 0.3 * pencil_hues()["pink"]
        delta[s], valid[s], river[s] = d, np.ones(n, bool), np.zeros(n, bool)
        along[s] = np.linspace(0.3, 0.7, n)
    levels = _print_levels(_Profiles(delta, valid, river, along))
    # The upper quartile of a guide's noisy samples sits a little above its mean.
    errors = [float(np.abs(levels[s][0] - truth[s]).max()) for s in game_map.sections]
    assert max(errors) < 0.01
    west = [s for s in game_map.sections if max(s.a[0], s.b[0]) <= 1]
    east = [s for s in game_map.sections if min(s.a[0], s.b[0]) >= 8]
    assert np.mean([levels[s][0][1] for s in east]) - np.mean([levels[s][0][1] for s in west]) > 0.04


def test_the_print_on_paper_clipped_in_some_channels_gets_a_level_of_its_own() -> None:
    # A bright warm light clips the paper's red (and part of its green) over the lower right of the
    # sheet: a grey guide there keeps only green and blue, the hue of light pink pencil, and the
    # change is abrupt where the clipping starts. No smooth fit over the sheet follows it; the
    # clipped part has its own level, and the rest keeps the sheet's.
    game_map = load_calibration().map
    rng = np.random.default_rng(5)
    plain, clipped_guide = np.array([0.02, 0.02, 0.005]), np.array([0.0, 0.13, 0.19])
    delta, valid, river, along, clipped = {}, {}, {}, {}, {}
    on_clip = {}
    for k, s in enumerate(game_map.sections):
        x, y = (s.a[0] + s.b[0]) / 2, (s.a[1] + s.b[1]) / 2
        n = 40
        on_clip[s] = x + y > 11
        d = (clipped_guide if on_clip[s] else plain) + rng.normal(0, 0.004, (n, 3))
        if k % 4 == 0:
            d = d + 0.3 * pencil_hues()["blue"]
        delta[s], valid[s], river[s] = d, np.ones(n, bool), np.zeros(n, bool)
        along[s], clipped[s] = np.linspace(0.3, 0.7, n), np.full(n, on_clip[s])
    profiles = _Profiles(delta, valid, river, along, clipped=clipped)
    levels = _print_levels(profiles)
    for s in game_map.sections:
        want = clipped_guide if on_clip[s] else plain
        assert float(np.abs(levels[s][0] - want).max()) < 0.02, (s.name, levels[s][0])


def test_a_marks_colour_on_clipped_paper_takes_away_the_guides_beside_it() -> None:
    # How much of a channel the camera clips grows with the light: near the clip's edge the guides
    # on clipped paper keep nearly grey, deeper in they keep only green and blue. The median of them
    # all is right for neither; a mark's colour is measured against the guides beside it, however
    # many sections are drawn among them (a firm blue stroke on every fourth).
    game_map = load_calibration().map
    rng = np.random.default_rng(7)
    plain, edge, deep = np.array([0.02, 0.02, 0.005]), np.array([0.0, 0.02, 0.01]), np.array([0.0, 0.13, 0.19])
    delta, valid, river, along, clipped, guide = {}, {}, {}, {}, {}, {}
    for k, s in enumerate(game_map.sections):
        depth = (s.a[0] + s.b[0]) / 2 + (s.a[1] + s.b[1]) / 2
        guide[s] = plain if depth <= 5 else edge if depth <= 10.5 else deep
        n = 40
        d = guide[s] + rng.normal(0, 0.004, (n, 3))
        if k % 4 == 0:
            d = d + 0.6 * pencil_hues()["blue"]
        delta[s], valid[s], river[s] = d, np.ones(n, bool), np.zeros(n, bool)
        along[s], clipped[s] = np.linspace(0.3, 0.7, n), np.full(n, depth > 5)
    profiles = _Profiles(delta, valid, river, along, clipped=clipped)
    mids = {s: np.add(s.a, s.b) / 2 for s in game_map.sections}
    beside = {
        s: {tuple(guide[t]) for t in game_map.sections if np.linalg.norm(mids[t] - mids[s]) <= 2}
        for s in game_map.sections
    }
    zones = _zone_levels(profiles)
    judged = [s for s in game_map.sections if guide[s] is not plain and len(beside[s]) == 1]
    assert sum(guide[s] is edge for s in judged) >= 10 and sum(guide[s] is deep for s in judged) >= 10
    for s in judged:
        assert float(np.abs(zones[s].clipped_nearby - guide[s]).max()) < 0.02, (s.name, zones[s].clipped_nearby)
    # Whatever is measured against the median of all the clipped paper's guides stays as it was.
    assert all(np.allclose(zones[s].clipped, zones[judged[0]].clipped) for s in judged)


def test_a_mark_on_paper_clipped_in_red_gets_back_the_red_it_lost() -> None:
    # Cream paper under bright light: red reaches 255 over most of the sheet (a light gradient
    # leaves one side unclipped). A purple stroke there loses part of its red against 255, which
    # turns a light purple pink; what it lost is estimated from the paper's own colour.
    h, w = 4 * PX_PER_PITCH, 8 * PX_PER_PITCH
    paper = np.array([290.0, 240.0, 205.0])
    light = np.linspace(0.82, 1.0, w)[None, :, None]
    stroke = np.array([0.75, 0.55, 0.85])  # transmitted share of each channel
    rows, cols = slice(h // 2 - 2, h // 2 + 3), slice(w - 3 * PX_PER_PITCH, w - PX_PER_PITCH)
    linear = np.ones((h, w, 3)) * paper * light
    linear[rows, cols] *= stroke
    image = np.clip(np.round(linear), 0, 255).astype(np.uint8)
    background = broad_background(image, PX_PER_PITCH)
    lost = clipped_loss(image, background, np.ones((h, w), bool))
    assert lost is not None
    seen = stroke_density(image, background)[rows, cols].mean(axis=(0, 1))
    true = -np.log(stroke)
    back = seen + lost[rows, cols].mean(axis=(0, 1))
    assert true[0] - seen[0] > 0.04  # red lost against the clipped paper
    assert abs(back[0] - true[0]) < 0.02 and back[0] <= true[0] + 0.01  # mostly back, never too much
    assert np.allclose(lost[..., 1:], 0.0)  # green and blue were never clipped
    assert float(lost[: rows.start - 4].max()) == 0.0  # blank paper lost nothing
    # Nothing clipped: nothing lost.
    dim = (image * 0.9).astype(np.uint8)
    assert clipped_loss(dim, broad_background(dim, PX_PER_PITCH), np.ones((h, w), bool)) is None


def _presence_profiles(level: float) -> tuple[_Profiles, list[Section]]:
    """Every section 80 positions long on paper, its guide showing at ``level`` all along."""
    game_map = load_calibration().map
    sections = list(game_map.sections)
    n = 80
    presence = {s: np.full(n, level, np.float32) for s in sections}
    valid = {s: np.ones(n, bool) for s in sections}
    river = {s: np.zeros(n, bool) for s in sections}
    zeros = {s: np.zeros((n, 3), np.float32) for s in sections}
    along = {s: np.arange(n) / PX_PER_PITCH for s in sections}
    return _Profiles(zeros, valid, river, along, presence=presence), sections


def test_a_stretch_showing_neither_guide_nor_pencil_is_hidden_a_dim_one_is_not() -> None:
    profiles, sections = _presence_profiles(0.2)
    covered, dim, on_band, short, washed = sections[:5]
    assert profiles.presence is not None
    profiles.presence[covered][20:60] = 0.01  # half a pitch under something opaque
    profiles.presence[dim][:] = 0.1  # a guide at half the sheet's contrast (blur, a light print)
    # On the Thames band a print may hide its guides: not judged (NaN) unless washed out white.
    profiles.presence[on_band][:] = np.nan
    profiles.river[on_band][:] = True
    profiles.presence[washed][:40] = 0.0
    profiles.river[washed][:40] = True
    profiles.presence[short][:] = 0.0  # five positions between two big symbols: too few to tell
    profiles.presence[short][5:] = np.nan  # (the rest masked print, not judged)
    hidden = _hidden_shares(profiles)
    assert hidden == {covered: 0.5, washed: 0.5}
    # A stretch shorter than HIDDEN_RUN (a gap in the guide's dashes, a mask) hides nothing.
    profiles.presence[covered][20:60] = 0.2
    profiles.presence[covered][30:45] = 0.01
    assert _hidden_shares(profiles) == {washed: 0.5}
    # A print whose guides do not show at all tells nothing this way.
    faint, _ = _presence_profiles(0.01)
    assert _hidden_shares(faint) == {}


def test_a_deep_shadow_is_paper_a_pen_is_not() -> None:
    # Paper at 230, a hand's shadow leaving 30 % of the light over half of it, a dark pen across.
    background = np.full((200, 300, 3), 230, np.uint8)
    background[:, 150:] = (background[:, 150:] * 0.3).astype(np.uint8)
    background[90:110, 20:280] = (38, 36, 44)
    dark = dark_surround(background)
    assert dark[90:110, 20:280].all()
    assert not dark[:80].any() and not dark[120:].any()


def test_a_coloured_object_is_no_paper_strokes_a_tint_and_the_thames_band_are() -> None:
    ppp = PX_PER_PITCH
    image = np.full((6 * ppp, 8 * ppp, 3), (235, 228, 205), np.uint8)
    image[:, 4 * ppp :] = (image[:, 4 * ppp :] * np.array([1.0, 0.93, 0.85])).astype(np.uint8)  # a warm tint
    image[ppp : int(1.45 * ppp), ppp : 7 * ppp] = (45, 125, 60)  # a green pencil lying on the map
    for y in range(3 * ppp, 5 * ppp, ppp // 8):  # strokes a twentieth of a pitch wide, eight to a pitch
        image[y : y + ppp // 20, ppp : 7 * ppp] = (62, 150, 82)
    river = np.zeros(image.shape[:2], bool)
    river[5 * ppp :, :] = True
    image[5 * ppp + 10 :, :] = (60, 170, 190)  # the band, coloured too
    covered = coloured_surround(image, river, ppp)
    assert covered[int(1.2 * ppp), int(1.5 * ppp) : int(6.5 * ppp)].all()
    assert not covered[2 * ppp : 5 * ppp].any()
    assert not covered[5 * ppp :].any()


def _od(rgb: tuple[int, int, int], amount: float) -> np.ndarray:
    return -np.log(np.array(rgb, np.float64) / 255.0) * amount


def test_a_light_stroke_over_a_tinted_guide_keeps_its_own_colour() -> None:
    """Chroma is a density less its least channel: a light purple stroke (least dense in blue) over a
    guide denser in blue than in red measures no red; the guide taken away as density, not as a
    colour clipped at zero, leaves the stroke's own hue (`unseen` scan 78041 read its purple line pink)."""
    guide = _od((150, 140, 125), 1.0)  # a brownish guide dash
    stroke = _od((110, 60, 140), 0.15)  # a light purple stroke
    level = (guide - guide.min())[None, :]
    seen = (guide + stroke - (guide + stroke).min())[None, :]
    hues = pencil_hues()
    assert float(seen[0] @ hues["pink"]) > float(seen[0] @ hues["purple"])  # as measured: pinker
    cleaned = _colour_without_print(seen, np.array([guide.min()]), level, float(guide.min()))[0]
    unit = cleaned / np.linalg.norm(cleaned)
    assert float(unit @ hues["purple"]) > 0.99
    # In a gap between the guide's dashes (no guide grey) nothing is taken away.
    gap = (stroke - stroke.min())[None, :]
    assert np.allclose(_colour_without_print(gap, np.array([0.0]), level, float(guide.min())), gap)
    # The guide alone leaves nothing.
    assert np.allclose(_colour_without_print(level, np.array([guide.min()]), level, float(guide.min())), 0.0)


def test_purple_and_green_pencils_carry_the_most_grey() -> None:
    grey = dict(zip(LINE_COLOURS, pencil_grey(), strict=True))
    assert grey["purple"] > grey["green"] > grey["blue"] > grey["pink"] > 0.0


def test_where_part_of_the_bands_guide_is_missing_the_band_is_no_mark() -> None:
    """A blank guide on a blue band (`unseen` 79011: lighter than the band in red and green, denser
    in blue), summed across a section: where a dash ends only part of it is printed, and the guide
    taken away whole leaves the band's own colour, which is a blue pencil's. Pencil never makes a
    channel lighter, so the missing part is the guide's; a stroke, on the dash or in its gap, stays."""
    guide = np.array([[-0.241, -0.089, 0.071]])
    gap = -0.7 * guide  # seven tenths of the guide missing
    assert float(chroma_density(gap)[0] @ pencil_hues()["blue"]) > 0.9 * float(np.linalg.norm(chroma_density(gap)))
    assert np.allclose(_partial_guide_added(gap, guide), 0.0)
    stroke = _od((40, 90, 200), 0.6)[None, :]  # blue pencil
    assert np.allclose(_partial_guide_added(stroke, guide), stroke)  # on the whole guide
    in_gap = _partial_guide_added(stroke + gap, guide)
    blue = pencil_hues()["blue"]
    assert float(chroma_density(in_gap)[0] @ blue) >= float(chroma_density(stroke)[0] @ blue)  # in the gap: no less
    # A deficit where the guide is denser, not matched by the band's colour where it is lighter, is
    # the guide's blur or place on this sheet: a faint green stroke there keeps its marks.
    shifted = np.array([[0.03, -0.013, -0.063]])
    assert np.allclose(_partial_guide_added(shifted, guide), shifted)
    # A guide lighter than the band in every channel tells nothing of how much of it is missing.
    light = np.array([[-0.2, -0.1, -0.05]])
    assert np.allclose(_partial_guide_added(-0.5 * light, light), -0.5 * light)


def test_a_prints_banks_are_masked_and_the_paper_just_past_them_is_their_fringe() -> None:
    # Thin lines 0.2 pitch either side of the Thames' centre line, as a print with banks has them.
    game_map = load_calibration().map
    w, h = canonical_size(game_map)
    centre = np.array([((x + MARGIN) * PX_PER_PITCH, (y + MARGIN) * PX_PER_PITCH) for x, y in game_map.thames])
    band = np.zeros((h, w), np.uint8)
    cv2.polylines(band, [np.round(centre).astype(np.int32)], False, 1, round(0.4 * PX_PER_PITCH))
    zone = cv2.dilate(band, np.ones((round(0.2 * PX_PER_PITCH),) * 2, np.uint8)).astype(bool)
    density = np.zeros((h, w, 3), np.float32)
    density[cv2.morphologyEx(band, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)).astype(bool)] = 0.4
    banks, fringe = river_banks(density, game_map, PX_PER_PITCH, zone)
    # Across the middle of the river's last, horizontal stretch (y = 4.45 on the lattice): the bank
    # is masked, the paper 6 px past its centre is its fringe, the band's middle and the paper 10 px
    # past it are neither.
    x = round((8.0 + MARGIN) * PX_PER_PITCH)
    y = round((4.45 + MARGIN) * PX_PER_PITCH)
    bank = round(0.2 * PX_PER_PITCH)
    for side in (-1, 1):
        assert banks[y + side * bank, x] and not fringe[y + side * bank, x]
        assert fringe[y + side * (bank + 6), x] and not banks[y + side * (bank + 6), x]
        assert not banks[y + side * (bank + 10), x] and not fringe[y + side * (bank + 10), x]
    assert not banks[y, x] and not fringe[y, x]
    assert not (banks & fringe).any() and not (fringe & ~zone).any()
    # A print without banks has neither.
    none, no_fringe = river_banks(np.zeros_like(density), game_map, PX_PER_PITCH, zone)
    assert not none.any() and not no_fringe.any()


def test_beside_the_band_and_its_bank_a_guide_is_measured_against_the_paper_alone() -> None:
    # A band, its dark bank and a grey guide leaving them across the paper, blurred as a scan blurs.
    canon = np.full((200, 200, 3), (232, 236, 240), np.uint8)
    canon[80:121] = (120, 180, 205)
    canon[121:125] = (40, 50, 95)
    canon[:80, 99:102] = canon[125:, 99:102] = (185, 186, 192)
    canon = cv2.GaussianBlur(canon, (0, 0), 1.5)
    zone = np.zeros((200, 200), bool)
    zone[80:125] = True
    fringe = np.zeros_like(zone)
    fringe[125:131] = True
    raw = stroke_density(canon, broad_background(canon, PX_PER_PITCH))
    alone = paper_alone_density(canon, raw, raw, zone, fringe | ~plain_paper(canon, PX_PER_PITCH), PX_PER_PITCH)
    assert alone is not None
    open_paper = raw[180, 100]
    # 4 px past the bank the surround takes in the bank and the band: the guide measures lighter and
    # of another hue than on open paper; against the paper alone, as there.
    assert np.abs(raw[128, 100] - open_paper).max() > 0.08
    assert np.abs(alone[128, 100] - open_paper).max() < 0.015
    # Only the paper within the median's reach of the band and its bank is measured so.
    assert np.isnan(alone[100, 100]).all() and np.isnan(alone[180, 100]).all()
    # No band, nothing to measure.
    assert paper_alone_density(canon, raw, raw, np.zeros_like(zone), fringe, PX_PER_PITCH) is None


def test_only_the_samples_by_a_lattice_point_with_no_station_are_near_one() -> None:
    game_map = load_calibration().map
    long, short = Section.of((7, 3), (7, 5)), Section.of((2, 3), (2, 4))
    along = {long: np.linspace(0.3, 1.7, 141), short: np.linspace(0.3, 0.7, 41)}
    assert {long, short} <= game_map.section_set and (7, 4) not in game_map.by_point
    near = _empty_points(along)
    # 7,4 has no station: the samples within 0.15 of it, halfway along 7,3-7,5; 2,3-2,4 runs through none.
    assert short not in near
    assert np.array_equal(near[long], np.abs(along[long] - 1.0) <= 0.15 + 1e-9)


def test_what_an_empty_points_print_leaves_is_taken_away_and_no_more() -> None:
    level = np.array([0.08, 0.033, 0.0])
    # Its own mark, even somewhat stronger, goes; a stroke of the same hue keeps what is beyond 1.5
    # times the level; a pink stroke keeps most of itself (what lies along the level goes).
    marks = np.array([level, 1.4 * level, 4.0 * level, [0.0, 0.3, 0.1]])
    out = _explain_point(marks, level)
    assert np.allclose(out[:2], 0.0, atol=1e-9)
    assert np.allclose(out[2], 2.5 * level)
    assert np.linalg.norm(out[3]) > 0.8 * np.linalg.norm(marks[3])
    # A print that leaves nothing there takes nothing away.
    assert np.array_equal(_explain_point(marks, np.zeros(3)), marks)
