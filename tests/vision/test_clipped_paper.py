"""White balance when a corner tag's paper clips a channel.  Issue 13: "white balance from the corner
tags' white paper"; the tokens are counted under "warm, cool and uneven light".  The paper in the
brightest part of the light often saturates one channel; its white then reads too low there.  A table set
up under one light and played under another (the bench's ``light_change``: an oak table, cool light at
set-up, a warm lamp after) answered "cannot count" in a zone all evening.  ``vision.tokens._unclip``
rebuilds a clipped channel from the corners that did not clip."""

from __future__ import annotations

import numpy as np
import pytest
from bench_setup import taught_table

import vision.tokens as tokens
from vision.synth import render_scene
from vision.synth.conditions import play_spec, setup_spec
from vision.tokens import CLIPPED, count_tokens, paper_white


def test_a_clipped_channel_is_rebuilt_from_the_light_colour_of_the_unclipped_corners() -> None:
    # the light: B:G:R = 0.8 : 0.9 : 1.0; brightness 240, 220, (covered), 255+ (red clipped at 255)
    light = np.array([0.8, 0.9, 1.0])
    whites = np.array([light * 240, light * 220, [np.nan] * 3, np.minimum(light * 290, 255.0)])
    out = tokens._unclip(whites)
    np.testing.assert_allclose(out[:2], whites[:2])
    assert np.isnan(out[2]).all()
    np.testing.assert_allclose(out[3], light * 290, rtol=1e-6)  # red 290, as the unclipped blue and green say


def test_whites_stay_as_they_are_without_a_corner_to_learn_the_light_from() -> None:
    every = np.array([[200.0, 230.0, 255.0]] * 4)  # every corner clipped in red: nothing to scale from
    np.testing.assert_array_equal(tokens._unclip(every), every)
    none = np.array([[180.0, 200.0, 220.0], [190.0, 205.0, 230.0], [np.nan] * 3, [170.0, 190.0, 210.0]])
    np.testing.assert_array_equal(tokens._unclip(none), none)
    white = np.array([[255.0, 255.0, 255.0], [200.0, 210.0, 220.0], [np.nan] * 3, [np.nan] * 3])
    np.testing.assert_array_equal(tokens._unclip(white), white)  # all three clipped: no channel to scale


def _played(monkeypatch: pytest.MonkeyPatch, unclip: bool) -> list[tuple[dict, dict]]:
    """(counts, truth) of three frames of the bench's light_change table 0 (tuning seed 11), set up and
    played with or without the rebuild."""
    with monkeypatch.context() as m:
        if not unclip:
            m.setattr(tokens, "_unclip", lambda whites: whites)
        cond, table, rng, cal, look, _ = taught_table("light_change", 11, 0)
        setup_img, _ = render_scene(setup_spec(table), np.random.default_rng(0))
        clipped = np.nan_to_num(paper_white(setup_img, cal, look.corner_mm)) >= CLIPPED
        assert clipped.any(), "a corner's paper clips at set-up (else this test proves nothing)"
        out = []
        for _ in range(3):
            img, truth = render_scene(play_spec(cond, table, rng), rng)
            out.append((count_tokens(img, cal, look), truth))
    return out


def test_a_table_set_up_under_cool_light_is_counted_under_a_warm_lamp(monkeypatch: pytest.MonkeyPatch) -> None:
    before = _played(monkeypatch, unclip=False)
    assert any(got[z] != n for got, truth in before for z, n in truth["tokens"].items()), \
        "the clipped paper spoils a zone without the rebuild (else this proves nothing)"
    for got, truth in _played(monkeypatch, unclip=True):
        assert truth["token_zone_covered"] == {} or not any(truth["token_zone_covered"].values())
        assert got == truth["tokens"]
