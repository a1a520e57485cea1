"""Zones of the table bench's frames (``pitboard bench table``; tuning seeds 11 and 5 and the wider
search seeds 12-21, never the report seed) that were once counted wrong, by the code as it stood or by
a version tried while choosing its thresholds, read again the way the bench reads them: the table
calibrated from its empty frame, its mats learned, its tokens taught, then the frame read.  Each case
names what went wrong, so a change that brings it back fails here and not only in the bench's
figures.  Where "cannot count" is allowed, the pile is one the disc fit cannot tell (see DROP_DOUBT in
vision/tokens.py).  The code before these cases counted those three right by dropping every disc the
others nearly explain: right for the two spare discs, and for the stacked pile only until the
calibration moved by a fraction of a pixel (then one short)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bench_setup import taught_table
from vision.synth import render_scene
from vision.synth.conditions import play_spec
from vision.table import read_table

EXACT, EXACT_OR_CANNOT = "the exact count", "the exact count or 'cannot count'"
CASES = [
    # (condition, seed, table, frame, zone, what went wrong, what is right)
    ("tan", 5, 2, 0, "p3", "six touching tokens read as seven: two discs straddling the middle one", EXACT),
    ("printed", 11, 3, 2, "p2", "five touching tokens read as six: two discs straddling the middle one", EXACT),
    ("stacked", 11, 1, 9, "p4", "a token under another, only a thin crescent of it showing, merged with the "
                                "one on top or dropped as explained by it: one short", EXACT_OR_CANNOT),
    ("thick_templates", 5, 1, 0, "p1", "a disc the others nearly explain kept as a ninth token", EXACT_OR_CANNOT),
    ("defocus", 5, 2, 4, "p1", "a disc the others nearly explain kept as a ninth token", EXACT_OR_CANNOT),
    ("thick_templates", 17, 0, 5, "p2", "a tan hand over a grey mat, one token under the fingers: "
                                         "read as one short", EXACT_OR_CANNOT),
]


@pytest.mark.parametrize("cond_name, seed, table_no, frame_no, zone, why, right", CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[2]}-{c[3]}-{c[4]}" for c in CASES])
def test_a_zone_once_counted_wrong_is_counted_right_or_not_at_all(cond_name: str, seed: int, table_no: int,
                                                                  frame_no: int, zone: str, why: str,
                                                                  right: str) -> None:
    cond, table, rng, cal, look, base = taught_table(cond_name, seed, table_no)
    for _ in range(frame_no + 1):
        img, truth = render_scene(play_spec(cond, table, rng), rng)
    got = read_table(img, cal, replace(base, tokens=look)).tokens[zone]
    if right == EXACT:
        assert got == truth["tokens"][zone], why
    else:
        assert got in (truth["tokens"][zone], None), why
