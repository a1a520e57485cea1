"""A black die showing five (white pips at the corners and in the middle) reads as a 4x4 ArUco tag.  A
printed tag lies on white paper; a die lies on the mat: ``vision.markers.on_paper`` tells them apart, and
a car's or template's tag must also measure its printed size (``vision.table.TAG_SIZE_TOLERANCE``)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from bench_setup import taught_table
import vision.markers as markers
import vision.table as table_module
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


def test_a_black_die_beside_the_track_is_no_template(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table bench's frame (condition "hand over a zone", tuning seed 11, table 2, frame 4) in which a
    black die showing five was read as template tag 35 ("hard"): a template reported where none lay.  The
    detector finds that die at a threshold constant of 14 (tried for speed, not shipped; at 7 it happens
    not to), so the test reads the frame with it: each of the two checks must refuse the die on its own."""
    cond, table, rng, cal, look, base = taught_table("hand_over_zone", 11, 2)
    for _ in range(5):
        img, truth = render_scene(play_spec(cond, table, rng), rng)
    params = cv2.aruco.DetectorParameters()
    for name in ("cornerRefinementMethod", "cornerRefinementWinSize", "adaptiveThreshWinSizeMin",
                 "adaptiveThreshWinSizeMax", "adaptiveThreshWinSizeStep", "perspectiveRemoveIgnoredMarginPerCell"):
        setattr(params, name, getattr(markers._detector("4X4_100").getDetectorParameters(), name))
    params.adaptiveThreshConstant = 14
    monkeypatch.setitem(markers._DETECTORS, "4X4_100", cv2.aruco.ArucoDetector(aruco_dictionary("4X4_100"), params))
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    _, ids, _ = markers._detector("4X4_100").detectMarkers(gray)
    assert 35 in ids.ravel(), "the die is found as a tag (else this test proves nothing)"
    lying = [np.array(t["centre_mm"]) for t in truth["templates"]]

    def false_templates() -> list[object]:
        obs = read_table(img, cal, replace(base, tokens=look))
        assert {c.id for c in obs.cars} == {c["id"] for c in truth["cars"]}
        return [t for t in obs.templates if min(float(np.hypot(*(np.array(t.centre_mm) - c))) for c in lying) >= 25.0]

    assert false_templates() == []
    with monkeypatch.context() as m:  # the paper test alone
        m.setattr(table_module, "TAG_SIZE_TOLERANCE", 10.0)
        assert false_templates() == []
    with monkeypatch.context() as m:  # the size check alone
        m.setattr(markers, "on_paper", lambda gray, quads: np.ones(len(quads), bool))
        assert false_templates() == []
    with monkeypatch.context() as m:  # neither: the die is a template (the frame still shows the fault)
        m.setattr(table_module, "TAG_SIZE_TOLERANCE", 10.0)
        m.setattr(markers, "on_paper", lambda gray, quads: np.ones(len(quads), bool))
        assert len(false_templates()) == 1
