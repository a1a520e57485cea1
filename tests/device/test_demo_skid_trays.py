"""The skid-face reader on the demo's own table (its mat, light and taught faces): a tray holding dice it reads
holds no die it cannot read beside them.  An outside audit found a plain tray of two flat skid dice (HAZARD,
SPIN) read with two more "dice" it could not read -- icon-sized patches of the mottled mat proposed as dark dice
by their "icon" -- and the roller told "camera can't read 2 dice", the roll never taken."""

from __future__ import annotations

import math

import numpy as np
import pytest

from device.demo import GaslandsDemo
from device.store import Store
from vision.dice import read_dice
from vision.synth.dice_frames import placed_dice
from vision.synth.scene import DieSpec, SceneSpec


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> GaslandsDemo:
    folder = tmp_path_factory.mktemp("demo")
    d = GaslandsDemo(folder, seed=7, log=lambda s: None, skid_dice="skid")
    store = Store(folder / "game.sqlite")
    d.build(store)
    yield d
    store.close()


def _tray(d: GaslandsDemo, faces: list[str], seed: int) -> tuple[np.ndarray, list[tuple[str, float, float, float]]]:
    """The demo's table with ``faces`` rolled into the tray, rendered with ``seed``: the tray crop and each die
    (face, centre x, y, side) in crop pixels."""
    from vision.synth import render_scene

    cars = [d._CarSpec(vid, d.table.tags[vid], x, y, h) for vid, (x, y, h) in d.table.cars.items()]
    spec = SceneSpec(image_size=(1280, 720), cars=cars, dice=[DieSpec("skid", f) for f in faces], tilt_deg=6.0,
                     tilt_azimuth_deg=30.0)
    img, truth = render_scene(spec, np.random.default_rng(seed))
    r = d.region
    crop = img[r.y:r.y + r.height, r.x:r.x + r.width]
    return crop, [(str(face).upper(), x, y, side) for face, (x, y), side in placed_dice(truth, (r.x, r.y))]


@pytest.mark.parametrize("faces,seed", [(["hazard", "spin"], 5013)])  # the audit's tray
def test_a_plain_tray_holds_no_die_the_reader_cannot_read_beside_those_it_reads(demo: GaslandsDemo, faces, seed) -> None:
    crop, dice = _tray(demo, faces, seed)
    readings = read_dice(crop, die="skid", library=demo.app.reader.faces)
    ghosts = [r for r in readings if r.value is None
              and not any(math.hypot(r.center[0] - x, r.center[1] - y) < side for _, x, y, side in dice)]
    assert not ghosts, [(r.center, r.box) for r in ghosts]
    assert sorted(str(r.value) for r in readings) == sorted(f.upper() for f in faces)
