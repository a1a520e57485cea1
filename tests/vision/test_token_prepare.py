"""``vision.tokens.prepare``: the appliance builds the lens maps of the token zones and corner tags once,
when it loads a calibration, so that reading a frame builds nothing and the first frame read is as quick
as the rest; what it prepares must be exactly what counting would have built on its own."""

from __future__ import annotations

import pytest

from bench_setup import taught_table
from vision.calibration import Calibration
from vision.synth import render_scene
from vision.synth.conditions import play_spec
from vision import tokens
from vision.tokens import count_tokens, prepare


def test_a_prepared_wide_lens_calibration_counts_without_building_anything(monkeypatch: pytest.MonkeyPatch) -> None:
    cond, table, rng, cal, look, _ = taught_table("wide_lens_1080p", 11, 0)
    assert not cal.lens.is_identity(), "the condition is meant to need a lens model"
    img, truth = render_scene(play_spec(cond, table, rng), rng)
    fresh = Calibration.from_dict(cal.to_dict())  # nothing cached: counting builds its maps itself
    expected = count_tokens(img, fresh, look)
    counted = {z: n for z, n in expected.items() if n is not None}
    assert len(counted) >= 3 and all(n == truth["tokens"][z] for z, n in counted.items())

    monkeypatch.setattr(tokens, "_REF_CACHE", {})
    prepare(cal, look)
    # the learned bare mats' colour and grain too (~0.5 ms a zone, once per table)
    assert look.mats and all(tokens._REF_CACHE[id(ref)][0] is ref for ref in look.mats.values())

    def no_lens_lookups(*args: object, **kwargs: object) -> None:
        raise AssertionError("a frame read went through the lens model: prepare left something to build")

    monkeypatch.setattr(Calibration, "to_px", no_lens_lookups)
    assert count_tokens(img, cal, look) == expected


def test_the_zone_views_white_balance_is_numpys_product_to_the_bit() -> None:
    """``_view`` multiplies by the white balance with ``cv2.multiply`` and a per-channel scalar (numpy's
    broadcast over 3 channels is 8 times slower); the counts were tuned on numpy's values, so an OpenCV
    that computed it otherwise (another build, on the Pi) must not slip by."""
    import cv2
    import numpy as np

    rng = np.random.default_rng(4)
    for h, w in ((148, 168), (37, 53), (1, 1)):
        crop = rng.integers(0, 256, (h, w, 3), dtype=np.uint8).astype(np.float32)
        gain = (200.0 / rng.uniform(8.0, 255.0, 3)).astype(np.float32)
        assert np.array_equal(cv2.multiply(crop, (*gain.tolist(), 0.0)), crop * gain)


def test_the_disc_fits_5x5_ellipse_is_opencvs() -> None:
    """``_ELLIPSE5`` is written out (made once, not per frame); it must stay the element OpenCV makes, which
    the disc fit's thresholds were chosen with."""
    import cv2
    import numpy as np

    from vision.tokens import _ELLIPSE5

    assert np.array_equal(_ELLIPSE5, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))


def test_a_full_cache_of_other_tables_does_not_drop_the_prepared_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lens maps are cached up to 64 zones; filling it used to empty it whole, so a table prepared just
    as the cache filled built its maps again on the first frame (seen as an order-dependent test)."""
    import vision.tokens as tokens

    cond, table, rng, cal, look, _ = taught_table("wide_lens_1080p", 11, 0)
    img, _ = render_scene(play_spec(cond, table, rng), rng)
    monkeypatch.setattr(tokens, "_FINE_MAPS", {})
    others = [Calibration.from_dict(cal.to_dict()) for _ in range(16)]
    for other in others:  # 16 tables x 4 zones: 64 entries, so preparing this one passes the cap
        prepare(other, look)
    assert len(tokens._FINE_MAPS) == 64
    prepare(cal, look)
    monkeypatch.setattr(Calibration, "to_px", lambda *a, **k: (_ for _ in ()).throw(AssertionError("rebuilt")))
    count_tokens(img, cal, look)
