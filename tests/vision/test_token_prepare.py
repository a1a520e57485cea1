"""``vision.tokens.prepare``: the appliance builds the lens maps of the token zones and corner tags once,
when it loads a calibration, so that reading a frame builds nothing and the first frame read is as quick
as the rest; what it prepares must be exactly what counting would have built on its own."""

from __future__ import annotations


import pytest

from bench_setup import taught_table
from vision.calibration import Calibration
from vision.synth import render_scene
from vision.synth.conditions import play_spec
from vision.tokens import count_tokens, prepare


def test_a_prepared_wide_lens_calibration_counts_without_building_anything(monkeypatch: pytest.MonkeyPatch) -> None:
    cond, table, rng, cal, look, _ = taught_table("wide_lens_1080p", 11, 0)
    assert not cal.lens.is_identity(), "the condition is meant to need a lens model"
    img, truth = render_scene(play_spec(cond, table, rng), rng)
    fresh = Calibration.from_dict(cal.to_dict())  # nothing cached: counting builds its maps itself
    expected = count_tokens(img, fresh, look)
    counted = {z: n for z, n in expected.items() if n is not None}
    assert len(counted) >= 3 and all(n == truth["tokens"][z] for z, n in counted.items())

    prepare(cal, look)

    def no_lens_lookups(*args: object, **kwargs: object) -> None:
        raise AssertionError("a frame read went through the lens model: prepare left something to build")

    monkeypatch.setattr(Calibration, "to_px", no_lens_lookups)
    assert count_tokens(img, cal, look) == expected
