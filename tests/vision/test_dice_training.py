"""The training code of the d6 networks (tools/dice_training, outside the installed packages): what it
may read and how it draws.  Needs no torch (the networks are not built here)."""

from __future__ import annotations

from pathlib import Path

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


def test_null_pick_draws_the_dice_to_read_null_more_often(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--null-pick`` (round 11): a tray frame's die to read null is drawn in that share of its samples,
    besides its own share of the frame's dice (1 in 8 here)."""
    from tools.dice_training import train_net

    img = np.full((200, 200, 3), 120, np.uint8)
    values = np.array([3, 5, 2, 6, 1, 4, 2, train_net.NULL_DIE], np.int64)
    tray = [("tray_0", img, np.full((8, 2), 100.0), np.full(8, 30.0), values)]

    def null_share(pick: float) -> float:
        monkeypatch.setattr(train_net, "NULL_PICK", pick)
        _x, y = train_net.reader_batch(np.random.default_rng(5), [tray[0]], 600, neg=0.0, tray=tray)
        return float((y == train_net.NULL_DIE).mean())

    assert null_share(0.0) == pytest.approx(1 / 8, abs=0.04)
    assert null_share(0.5) == pytest.approx(0.5 + 0.5 / 8, abs=0.06)


@pytest.mark.parametrize("option, value", [("--null-pick", "2"), ("--null-pick", "-0.1"), ("--small-min", "0.9"),
                                           ("--small-min", "0"), ("--small-share", "1.5"),
                                           ("--small-share", "-0.1"), ("--tray-looks", "marble=3"),
                                           ("--tray-looks", "marbled=0"), ("--tray-looks", "marbled"),
                                           ("--tray-looks", "marbled=3")])  # (the last: no --tray to weight)
def test_a_share_out_of_its_range_is_refused_before_anything_is_read(option: str, value: str, tmp_path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from tools.dice_training import train_net

    with pytest.raises(SystemExit) as out:
        train_net.main(["reader", "--data", str(tmp_path / "none"), "--out", str(tmp_path / "r.onnx"), option, value])
    assert out.value.code == 2 and option in capsys.readouterr().err


def test_the_weights_folder_is_made_or_refused_before_the_training(tmp_path, monkeypatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The weights are written after the whole training: 36 epochs (an hour and a half) were lost to an ``--out``
    in a folder that did not exist.  The folder is made before anything is trained; a folder given for the file is
    refused at once."""
    from tools.dice_training import train_net

    trained: list[Path] = []
    monkeypatch.setattr(train_net, "train_reader", lambda data, out, *rest: trained.append(out))
    out = tmp_path / "round" / "U" / "reader2.onnx"
    assert train_net.main(["reader", "--data", str(tmp_path), "--out", str(out)]) == 0
    assert trained == [out] and out.parent.is_dir()
    with pytest.raises(SystemExit) as refused:
        train_net.main(["reader", "--data", str(tmp_path), "--out", str(tmp_path / "round")])
    assert refused.value.code == 2 and "is a folder: give the file to write" in capsys.readouterr().err
    assert len(trained) == 1


def test_a_die_to_report_null_is_taught_an_even_spread_over_the_six_values_not_not_a_die() -> None:
    """Issue 14: "A leaning, half-hidden or moving die is reported null" - a die still (class 0 would drop
    it), with no value above the reader's READ_P."""
    from tools.dice_training import train_net
    from vision.dice import net as N

    t = train_net.soft_targets(np.array([0, 3, train_net.NULL_DIE]))
    assert t.shape == (3, N.CLASSES)
    assert t[0].tolist() == [1, 0, 0, 0, 0, 0, 0]
    assert t[1].tolist() == [0, 0, 0, 1, 0, 0, 0]
    assert t[2, 0] == 0 and t[2, 1:] == pytest.approx([1 / 6] * 6)
    from vision.dice import READ_P

    assert t[2].max() < READ_P


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tray_frames_are_seeded_and_their_labels_lie_on_the_dice(seed: int) -> None:
    from tools.dice_training.tray import render_tray

    img, dice = render_tray(np.random.default_rng(seed))
    again, dice2 = render_tray(np.random.default_rng(seed))
    assert np.array_equal(img, again) and dice == dice2
    h, w = img.shape[:2]
    for d in dice:
        x0, y0, x1, y1 = d.box
        assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h
        assert (d.value is None) == bool(d.why_null)
        if d.value is not None:  # a readable die's box is its top face: about its side, square
            assert 0.75 * d.side <= x1 - x0 <= 1.6 * d.side and 0.75 * d.side <= y1 - y0 <= 1.6 * d.side
            # the die is not the table: its box differs from the table around it
            inner = img[y0:y1, x0:x1].astype(float)
            assert inner.std() > 4


def test_tray_frames_bring_the_variety_the_issue_lists() -> None:
    """Sizes 20-90 px, and dice whose honest reading is null (leaning, half hidden, moving)."""
    from tools.dice_training.tray import render_tray

    rng = np.random.default_rng(11)
    sides, why = [], set()
    for _ in range(40):
        _img, dice = render_tray(rng)
        sides += [d.side for d in dice]
        why |= {d.why_null for d in dice if d.why_null}
    assert min(sides) < 24 and max(sides) > 75
    assert why == {"leaning", "half hidden", "moving"}


def test_tray_looks_draw_the_looks_named_more_often_and_leave_the_benches_trays_as_they_were() -> None:
    """Round 15 (``train_net.py --tray-looks marbled=3,smoky=3``): the training trays draw the looks the
    shipped set misses most often more often; with no weights the trays are the renderer's own (the benches'
    folders, seeds 91-93, must not change under a training option)."""
    from tools.dice_training.tray import KIND_SHARES, _scheme, look_shares, render_tray

    assert look_shares(None) == pytest.approx(list(KIND_SHARES))

    def share(looks: dict[str, float] | None) -> float:
        rng = np.random.default_rng(21)
        shares = None if looks is None else look_shares(looks)
        kinds = [_scheme(rng, shares)["kind"] for _ in range(3000)]
        return sum(k in ("marbled", "smoky") for k in kinds) / len(kinds)

    assert share(None) == pytest.approx(0.22, abs=0.03)
    assert share({"marbled": 3, "smoky": 3}) == pytest.approx(0.46, abs=0.03)  # 0.66 / (1 - 0.22 + 0.66)
    # the trays pass them to every die, one set of dice or each its own
    for seed in range(3):
        _img, dice = render_tray(np.random.default_rng(seed), looks={"marbled": 1e6})
        assert dice and {d.look for d in dice} == {"marbled"}


def test_the_tray_folder_marks_null_dice_with_value_0_and_the_bench_scores_them(tmp_path) -> None:
    from device.cli_dice import load_labels
    from tools.dice_training.tray import write_folder

    counts = write_folder(tmp_path, 6, seed=5)
    labels = load_labels(tmp_path)
    assert sum(len(v) for v in labels.values()) == counts["dice"]
    assert sum(lab.value == 0 for v in labels.values() for lab in v) == counts["null_dice"]


def test_an_honest_null_is_right_and_a_value_for_a_leaning_die_is_wrong() -> None:
    """Scoring rule: a label 0 is a die whose honest reading is null."""
    from vision.dice import DieReading
    from vision.dice.scoring import Label, Tally

    def reading(x: float, value: int | None) -> DieReading:
        return DieReading(value=value, box=(int(x) - 5, 5, int(x) + 5, 15), center=(x, 10.0), confidence=0.9)

    labels = [Label((0, 0, 20, 20), 0), Label((30, 0, 50, 20), 0), Label((60, 0, 80, 20), 4)]
    t = Tally()
    t.add_image(labels, [reading(10, None), reading(40, 2), reading(70, 4)], ms=1.0)
    f = t.figures()
    assert (f["correct"], f["wrong"], f["honest_null"], f["unreadable"]) == (2, 1, 1, 0)
    assert f["precision"] == 0.5  # of the two values reported, one right: a null is not a value


@pytest.mark.parametrize("value", range(1, 7))
def test_the_side_faces_a_camera_sees_are_faces_a_real_die_has_beside_its_top(value: int) -> None:
    """Opposite faces of a d6 sum to 7: a side face is neither the top nor the bottom, and the two side faces
    seen together are not opposite each other."""
    from tools.dice_training.tray import _side_values

    for turn in range(4):
        a, b = _side_values(value, turn)
        assert {a, b}.isdisjoint({value, 7 - value}) and a + b != 7 and a != b


def test_a_leaning_die_shows_the_pips_of_its_big_side_face() -> None:
    """A leaning die's side face carries pips as on a real die (the reader must learn to refuse such a die,
    not a die with a blank side)."""
    import cv2

    from tools.dice_training.tray import _die_tile

    sch = {"kind": "opaque", "body": (235, 235, 235), "second": None, "alpha": 1.0, "pip": (15, 15, 15),
           "pip_r": 0.1, "spacing": 0.27, "recessed": False, "round": 0.15, "big_one": False, "red_one": False,
           "shine": 0.0}
    side = 80.0
    n = int(side * 2.2) | 1
    col, cov, top = _die_tile(np.random.default_rng(3), 1, side, sch, (0.0, 0.4), 0.6,
                              np.full((n, n, 3), 60, np.float32))
    side_face = (cov > 0.95) & (top < 0.05)
    dark = (side_face & (col.mean(axis=2) < 100)).astype(np.uint8)
    pips = cv2.connectedComponents(dark)[0] - 1
    assert pips in (2, 5)  # the face beside a 1 nearest the camera: one of the pair 2/5


def test_outcomes_by_kind_count_every_die_once_under_all() -> None:
    from tools.dice_training.tray import outcomes_by_kind, render_tray

    rng = np.random.default_rng(7)
    dice = [d for _ in range(3) for d in render_tray(rng)[1]]
    got = outcomes_by_kind(3, 7)
    assert sum(got["all"].values()) == len(dice)
    assert sum(got["flat"].values()) == sum(d.value is not None for d in dice)
    assert sum(v for k, c in got.items() if k.startswith("flat, look: ") for v in c.values()) == sum(got["flat"].values())


def test_quantise_takes_each_network_from_its_source_folder_else_the_shipped_one(tmp_path) -> None:
    """The shipped first reader is int8 (round 20): quantising it again would quantise int8 weights, so its fp32
    source (what train_net writes) is given with --source, and --only names the networks to quantise."""
    from tools.dice_training import quantise
    from vision.dice import net

    (tmp_path / net.READER.name).write_bytes(b"fp32 reader")
    nets = quantise._networks(tmp_path)
    assert nets == {"detector": net.DETECTOR, "reader": tmp_path / net.READER.name, "reader2": net.SECOND_READER}
    assert quantise._networks(None) == {"detector": net.DETECTOR, "reader": net.READER, "reader2": net.SECOND_READER}
    # a mistyped folder, or one without the networks, is refused (it gave the shipped ones under its name), before
    # anything is read or quantised
    with pytest.raises(SystemExit, match="no such folder"):
        quantise.quantise(tmp_path, tmp_path / "out", source=tmp_path / "missing", only=("reader",))
    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit, match="none of detector.onnx, reader.onnx, reader2.onnx is there"):
        quantise.compare(tmp_path, tmp_path / "empty")
    with pytest.raises(SystemExit, match="no detector.onnx there to quantise"):
        quantise.quantise(tmp_path, tmp_path / "out", source=tmp_path, only=("reader", "detector"))
    with pytest.raises(SystemExit, match="2"):  # argparse's usage error
        quantise.main(["--data", str(tmp_path), "--only", "reader,classifier"])


def test_tray_dir_frames_join_the_trays_with_their_null_dice_read_null(tmp_path, monkeypatch) -> None:
    """`--tray-dir DIR` (a labelled folder of trays made otherwise, e.g. tools/dice_training/raytrace.py, where value
    0 is a die to read null): its frames join the rendered trays, named as trays (the tray rules apply to them) and
    their null dice taught as NULL_DIE, not as "not a die"."""
    import cv2

    from tools.dice_training import train_net

    (tmp_path / "images").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "rt_0000.jpg"), np.full((60, 80, 3), 90, np.uint8))
    (tmp_path / "labels.csv").write_text("image,x_min,y_min,x_max,y_max,value\n"
                                         "rt_0000.jpg,10,10,30,30,4\nrt_0000.jpg,40,10,60,30,0\n")
    monkeypatch.setattr(train_net, "TRAY_DIRS", [tmp_path])
    (frame,) = train_net.all_tray_frames(1, 0)
    assert frame[0].startswith("tray_") and list(frame[4]) == [4, train_net.NULL_DIE]
    monkeypatch.setattr(train_net, "TRAY_DIRS", [])
    assert train_net.all_tray_frames(1, 0) is None
