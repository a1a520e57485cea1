"""The training code of the d6 networks (tools/dice_training, outside the installed packages): what it
may read and how it draws.  Needs no torch (the networks are not built here)."""

from __future__ import annotations

import numpy as np
import pytest

def test_training_never_reads_the_held_out_split(tmp_path) -> None:
    from tools.dice_training import train_net
    from vision.dice.scoring import fold

    name = next(f"x{k}.jpg" for k in range(100) if fold(f"x{k}.jpg") == 0)
    (tmp_path / "labels.csv").write_text(f"image,x_min,y_min,x_max,y_max,value\n{name},1,1,9,9,3\n")
    with pytest.raises(SystemExit, match="held-out"):
        train_net.load(tmp_path, {0, 1})
    assert train_net.load(tmp_path, {1, 2, 3, 4}) == []


def test_the_reader_draws_each_labelled_die_equally_often_not_each_photo() -> None:
    """A photo of eight dice must not count as much as a photo of one: the nell_ photos hold ~7 dice
    and matteo_'s ~3, and drawing photos evenly saw each nell_ die 2.4x less often."""
    from tools.dice_training import train_net

    def photo(name: str, dice: int) -> tuple:
        return (name, None, np.zeros((dice, 2)), np.ones(dice), np.ones(dice, np.int64))

    imgs = [photo("one", 1), photo("three", 3), photo("six", 6)]
    rng = np.random.default_rng(3)
    drawn = [train_net.pick(rng, imgs, [], per_die=True)[0] for _ in range(6000)]
    share = {n: drawn.count(n) / len(drawn) for n in ("one", "three", "six")}
    assert share == pytest.approx({"one": 0.1, "three": 0.3, "six": 0.6}, abs=0.02)
    evenly = [train_net.pick(rng, imgs, [])[0] for _ in range(3000)]
    assert evenly.count("one") / len(evenly) == pytest.approx(1 / 3, abs=0.03)
