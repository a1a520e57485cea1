"""A table of ``pitboard bench table`` set up as the bench sets it up (and as an owner does): the empty
table rendered and calibrated, its mats learned, 5 tokens taught in zone p1.  For tests that read one of
the bench's frames again; the returned generator is where the bench's is when its first frame is drawn."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from device.bench_table import _calibrate
from vision.calibration import Calibration
from vision.synth import render_scene
from vision.synth.conditions import CONDITIONS, setup_spec, table_spec, teach_spec
from vision.table import TableConfig, default_config
from vision.tokens import TokenLook, learn_mats, teach_look


def taught_table(cond_name: str, seed: int, table_no: int) -> tuple[Any, Any, np.random.Generator, Calibration,
                                                                    TokenLook, TableConfig]:
    """(condition, table, rng, calibration, token look, default config) of the bench's table ``table_no``."""
    base = default_config()
    index, cond = next((i, c) for i, c in enumerate(CONDITIONS) if c.name == cond_name)
    rng = np.random.default_rng([seed, index, table_no])
    table = table_spec(cond, rng)
    setup_img, _ = render_scene(setup_spec(table), rng)
    cal = _calibrate(setup_img, table, base)
    mats, _ = learn_mats(setup_img, cal, base.tokens)
    look = teach_look(render_scene(teach_spec(table, "p1", 5), rng)[0], cal, replace(base.tokens, mats=mats),
                      "p1", count=5)
    return cond, table, rng, cal, look, base
