"""``vision.tokens.prepare``: the appliance builds the lens maps of the token zones and corner tags once,
when it loads a calibration, so that reading a frame builds nothing and the first frame read is as quick
as the rest; what it prepares must be exactly what counting would have built on its own."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from device.bench_table import _calibrate
from vision.calibration import Calibration
from vision.synth import render_scene
from vision.synth.conditions import CONDITIONS, play_spec, setup_spec, table_spec, teach_spec
from vision.table import default_config
from vision.tokens import count_tokens, learn_mats, prepare, teach_look


def test_a_prepared_wide_lens_calibration_counts_without_building_anything(monkeypatch: pytest.MonkeyPatch) -> None:
    base = default_config()
    index, cond = next((i, c) for i, c in enumerate(CONDITIONS) if c.name == "wide_lens_1080p")
    rng = np.random.default_rng([11, index, 0])
    table = table_spec(cond, rng)
    setup_img, _ = render_scene(setup_spec(table), rng)
    cal = _calibrate(setup_img, table, base)
    assert not cal.lens.is_identity(), "the condition is meant to need a lens model"
    mats, _ = learn_mats(setup_img, cal, base.tokens)
    look = teach_look(render_scene(teach_spec(table, "p1", 5), rng)[0], cal, replace(base.tokens, mats=mats),
                      "p1", count=5)
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
