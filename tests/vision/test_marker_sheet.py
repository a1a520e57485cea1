"""The printed set-up: tag sheet and token-zone cards render on A4 and Letter with every tag readable, an
arrow at every tag's top edge, no label overlapping another and nothing off the page."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from vision.calibration import Calibration, default_zone_cards, zones_from_cards
from vision.markers import (
    PAPER_SIZES, SheetEntry, TagKind, detect_tags, marker_sheet_layout, marker_sheet_pages, paper_mm,
    table_sheet_entries, zone_card_layout,
)

DPI = 150


def _entries() -> list[SheetEntry]:
    cars = {10 + i: f"car{i + 1}" for i in range(8)}
    names = ["short_straight", "medium_straight", "long_straight", "gentle", "turn", "hard", "veer", "swerve",
             "hairpin"]
    templates = {30 + i: (n, "a") for i, n in enumerate(names)} | {40 + i: (n, "b") for i, n in enumerate(names)}
    return table_sheet_entries((0, 1, 2, 3), 50.0, cars, 20.0, templates, {n: 25.0 for n in names})


def _inside(inner, outer, tol=0.5) -> bool:
    return (inner[0] >= outer[0] - tol and inner[1] >= outer[1] - tol and inner[2] <= outer[2] + tol
            and inner[3] <= outer[3] + tol)


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _check_boxes(layout) -> None:
    w_px, h_px = layout.pages[0].size
    for it in layout.items:
        x0, y0, x1, y1 = it.box
        assert 0 <= x0 < x1 <= w_px and 0 <= y0 < y1 <= h_px, f"{it} leaves the {w_px}x{h_px} page"
    # every tag, arrow and arrow text lies on its own cut piece; everything else is disjoint
    pieces = {(it.page, it.tag_id): it.box for it in layout.items if it.what in ("piece", "card")}
    cards = [it for it in layout.items if it.what == "card"]
    free = []
    for it in layout.items:
        if it.what in ("tag", "arrow", "arrow_text"):
            host = pieces.get((it.page, it.tag_id))
            if host is None:  # a card's tag: on its card
                assert any(c.page == it.page and _inside(it.box, c.box) for c in cards), it
            else:
                assert _inside(it.box, host), (it, host)
        else:
            free.append(it)
    for a, b in itertools.combinations(free, 2):
        if a.page == b.page:
            assert not _overlap(a.box, b.box), (a, b)
    arrows = [it for it in layout.items if it.what == "arrow_text"]
    for a, b in itertools.combinations(arrows, 2):
        if a.page == b.page:
            assert not _overlap(a.box, b.box), (a, b)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_tag_sheet_reads_and_nothing_overlaps_or_leaves_the_page(paper):
    entries = _entries()
    layout = marker_sheet_layout(entries, dpi=DPI, paper=paper)
    w_mm, h_mm = PAPER_SIZES[paper]
    assert layout.pages[0].size == (round(w_mm * DPI / 25.4), round(h_mm * DPI / 25.4))
    _check_boxes(layout)
    printed = {}
    for it in layout.items:
        if it.what == "tag":
            printed[it.tag_id] = it
    assert set(printed) == {e.id for e in entries}
    size = {e.id: e.size_mm for e in entries}
    for page_no, page in enumerate(layout.pages):
        grey = np.asarray(page)
        found = {t.id: t.corners_px for t in detect_tags(grey)}
        want = {i for i, it in printed.items() if it.page == page_no}
        assert set(found) == want, (paper, page_no, sorted(found), sorted(want))
        for tid in want:
            c = found[tid]
            # true size, and upright: the detected top edge (TL->TR) is the edge the arrow points at
            side_mm = np.linalg.norm(c[1] - c[0]) / (DPI / 25.4)
            assert abs(side_mm - size[tid]) < 0.5
            arrow = next(it for it in layout.items if it.what == "arrow" and it.tag_id == tid)
            assert c[0, 1] < c[3, 1] and c[1, 1] < c[2, 1] and c[0, 0] < c[1, 0]
            assert arrow.box[3] < min(c[0, 1], c[1, 1])  # above the top edge
            assert c[0, 0] - 1 <= (arrow.box[0] + arrow.box[2]) / 2 <= c[1, 0] + 1


def test_sheet_says_where_each_edge_goes():
    layout = marker_sheet_layout(_entries(), dpi=DPI, paper="letter")
    texts = " ".join(it.text for it in layout.items)
    assert "BLACK SQUARE (not of the white paper" in texts
    assert "car's nose" in texts and "direction of travel" in texts
    labels = [it for it in layout.items if it.what == "label" and it.tag_id == 0]
    assert any("top-left corner on the mat's top-left corner" in it.text for it in labels)
    arrows = {it.tag_id: it.text for it in layout.items if it.what == "arrow_text"}
    assert "nose" in " ".join(t for i, t in arrows.items() if 10 <= i <= 17)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_zone_cards_read_and_their_zone_is_the_printed_frame(paper):
    """Every card a table can seat, six (`markers --cards 6` was refused: "0 to 5", though six play)."""
    cards = default_zone_cards(6)
    assert [c.name for c in cards] == ["p1", "p2", "p3", "p4", "p5", "p6"]
    layout = zone_card_layout(cards, dpi=DPI, paper=paper)
    _check_boxes(layout)
    assert len(layout.pages) <= 3  # two cards a page
    px = DPI / 25.4
    seen_ids = set()
    for page in layout.pages:
        grey = np.asarray(page)
        det = {t.id: t.corners_px for t in detect_tags(grey)}
        seen_ids |= set(det)
        # the page as a "mat": 1 px = 1/px mm
        cal = Calibration(np.diag([1 / px, 1 / px, 1.0]), (grey.shape[1], grey.shape[0]), paper_mm(paper))
        for z in zones_from_cards(det, cal, cards):
            poly = np.array(z.polygon) * px
            x0, y0 = poly.min(axis=0) + 2
            x1, y1 = poly.max(axis=0) - 2
            assert grey[int(y0):int(y1), int(x0):int(x1)].min() > 200  # the zone is plain paper ...
            ring = [grey[int(y0) - 2 - int(px), int((x0 + x1) / 2)], grey[int(y1) + 2 + int(px), int((x0 + x1) / 2)],
                    grey[int((y0 + y1) / 2), int(x0) - 2 - int(px)], grey[int((y0 + y1) / 2), int(x1) + 2 + int(px)]]
            assert max(ring) < 60  # ... and the black frame runs just outside it
    assert seen_ids == {i for c in cards for i in c.ids()}


def test_bad_paper_and_oversized_tags_are_refused_with_a_reason():
    with pytest.raises(ValueError, match="a4, letter"):
        marker_sheet_pages(_entries()[:1], paper="a3")
    with pytest.raises(ValueError, match="does not fit"):
        marker_sheet_layout([SheetEntry(5, 250.0, "huge", TagKind.OTHER)], dpi=DPI)
    # the old positional form still works (the CLI's)
    assert len(marker_sheet_pages([SheetEntry(5, 30.0, "spare")], "4X4_100", DPI)) == 1
