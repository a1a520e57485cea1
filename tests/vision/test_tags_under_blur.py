"""Tags read under a nudged camera: issue 13 lists motion blur and defocus among what a real table brings,
and a template whose tag is not read is a template the marshal cannot check.  Frames of the table bench's
motion-blur condition (``vision/synth/conditions.py``), tuning seed 11 (the report seed is never used in
tests).  The floor is a regression guard under what the detector reads here (2026-12-02: 89 of 94 tags
with 7 and 27 px threshold windows, 87 with 3 and 23 px): it catches a detector that stops reading blurred
tags, not the choice between those two (the table bench measures that, vision/markers.py)."""

from __future__ import annotations

import numpy as np

from vision.markers import detect_tags
from vision.synth import render_scene
from vision.synth.conditions import CONDITIONS, play_spec, table_spec


def test_car_and_template_tags_are_read_under_a_4_px_motion_blur() -> None:
    cond = next(c for c in CONDITIONS if c.name == "motion_blur")
    wanted = found = 0
    for t in range(4):
        rng = np.random.default_rng([11, 0, t])
        table = table_spec(cond, rng)
        for _ in range(6):
            img, truth = render_scene(play_spec(cond, table, rng), rng)
            want = {tt["tag_id"] for tt in truth["templates"] if tt.get("tagged") and tt["hand_covered"] <= 0.02}
            want |= {c["tag_id"] for c in truth["cars"]}
            want.discard(None)
            got = {s.id for s in detect_tags(img)}
            wanted += len(want)
            found += len(want & got)
    assert wanted >= 80
    assert found >= 0.9 * wanted, (found, wanted)
