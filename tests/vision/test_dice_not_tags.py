"""A black die showing five (white pips at the corners and in the middle) reads as a 4x4 ArUco tag.  A
printed tag lies on white paper; a die lies on the mat: ``vision.markers.on_paper`` tells them apart, and
a car's or template's tag must also measure its printed size (``vision.table.TAG_SIZE_TOLERANCE``)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from bench_setup import taught_table
from vision.markers import aruco_dictionary, detect_tags
from vision.synth import render_scene
from vision.synth.conditions import play_spec
from vision.table import read_table


def _tag_on(background: int, margin_cells: float, tag_id: int = 35, cell_px: int = 8) -> np.ndarray:
    """Tag ``tag_id`` (6 x 6 cells with its black border) on a grey ``background``, with a white paper
    margin of ``margin_cells`` around it (0: none, as a die on the mat)."""
    tag = cv2.aruco.generateImageMarker(aruco_dictionary("4X4_100"), tag_id, 6 * cell_px)
    m = int(margin_cells * cell_px)
    paper = cv2.copyMakeBorder(tag, m, m, m, m, cv2.BORDER_CONSTANT, value=255)
    img = np.full((240, 320), background, np.uint8)
    y, x = (240 - paper.shape[0]) // 2, (320 - paper.shape[1]) // 2
    img[y:y + paper.shape[0], x:x + paper.shape[1]] = paper
    return cv2.GaussianBlur(img, (0, 0), 0.8)


def test_a_tag_on_paper_is_found_and_the_same_pattern_on_the_mat_is_not() -> None:
    for background in (60, 110, 150):
        assert [t.id for t in detect_tags(_tag_on(background, 1.5))] == [35], background
        assert detect_tags(_tag_on(background, 0.0)) == [], f"a die-like pattern on a mat of grey {background}"


def test_a_black_die_beside_the_track_is_no_template() -> None:
    """The table bench's frame (condition "hand over a zone", tuning seed 11, table 2, frame 4) in which a
    black die showing five was read as template tag 35 ("hard"): a template reported where none lay."""
    cond, table, rng, cal, look, base = taught_table("hand_over_zone", 11, 2)
    for _ in range(5):
        img, truth = render_scene(play_spec(cond, table, rng), rng)
    obs = read_table(img, cal, replace(base, tokens=look))
    lying = [np.array(t["centre_mm"]) for t in truth["templates"]]
    for t in obs.templates:
        assert min(float(np.hypot(*(np.array(t.centre_mm) - c))) for c in lying) < 25.0, t
    assert {c.id for c in obs.cars} == {c["id"] for c in truth["cars"]}
