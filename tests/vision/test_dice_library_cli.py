"""The face library file and the dice commands: teach, read, bench; a damaged library is never
overwritten."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import device.cli as cli
from device.dice_library_files import load_library, save_library
from vision.dice import FaceLibrary
from tools.dice_training.render import SKID_FACES, render_scene


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "data"
    monkeypatch.setenv("PITBOARD_DATA", str(d))
    if "device.cli_dice" not in cli.PLUGINS:
        monkeypatch.setattr(cli, "PLUGINS", cli.PLUGINS + ("device.cli_dice",))
    return d


def _write(tmp: Path, name: str, img: np.ndarray) -> str:
    p = tmp / name
    cv2.imwrite(str(p), img)
    return str(p)


def test_missing_library_is_empty_and_save_is_atomic(data_dir: Path) -> None:
    assert load_library().dice() == []
    lib = FaceLibrary()
    rng = np.random.default_rng(0)
    img, _ = render_scene(["SHIFT"], rng)
    lib.teach("skid", "SHIFT", img)
    path = save_library(lib)
    assert path == data_dir / "faces.json"
    assert load_library().faces("skid") == ["SHIFT"]
    assert [p.name for p in data_dir.iterdir()] == ["faces.json"]  # no temp files left


def test_damaged_library_is_reported_and_left_untouched(data_dir: Path, tmp_path: Path, capsys) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "faces.json").write_text("{not json")
    with pytest.raises(cli.UserError, match="faces.json is not valid JSON.*cut short or garbled.*left untouched.*move it aside"):
        load_library()
    rng = np.random.default_rng(1)
    img, _ = render_scene(["SPIN"], rng)
    code = cli.main(["teach", "dice", "--die", "skid", "--face", "SPIN", _write(tmp_path, "spin.png", img)])
    assert code == 2
    assert "damaged" in capsys.readouterr().err
    assert (data_dir / "faces.json").read_text() == "{not json"


def test_teach_then_read_custom_faces_from_the_command_line(tmp_path: Path, capsys) -> None:
    rng = np.random.default_rng(2)
    for face in SKID_FACES:
        files = []
        for k in range(2):
            img, _ = render_scene([face], rng, side=56)
            files.append(_write(tmp_path, f"{face}{k}.png", img))
        assert cli.main(["teach", "dice", "--die", "skid", "--face", face, *files]) == 0
    capsys.readouterr()
    img, placed = render_scene(["HAZARD", "SLIDE"], rng, side=56)
    path = _write(tmp_path, "roll.png", img)
    assert cli.main(["dice", "read", path, "--die", "skid", "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip())
    assert out["image"] == path and out["ms"] >= 0
    assert sorted(d["value"] for d in out["dice"]) == ["HAZARD", "SLIDE"]
    for d in out["dice"]:
        x0, y0, x1, y1 = d["box"]
        assert x0 <= d["center"][0] <= x1 and y0 <= d["center"][1] <= y1
        assert 0 <= d["confidence"] <= 1


def test_read_d6_json_one_line_per_image(tmp_path: Path, capsys) -> None:
    rng = np.random.default_rng(3)
    paths = []
    for k, faces in enumerate(([2, 5], [6])):
        img, _ = render_scene(faces, rng, side=48)
        paths.append(_write(tmp_path, f"d{k}.png", img))
    assert cli.main(["dice", "read", *paths, "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [sorted(d["value"] for d in json.loads(x)["dice"]) for x in lines] == [[2, 5], [6]]


def test_a_bad_image_in_a_batch_is_named_and_the_others_still_read(tmp_path: Path, capsys) -> None:
    """A bad-input audit: `dice read good.jpg notimg.jpg good2.jpg` read the first, then stopped at the second
    with exit 2; the third was never read."""
    rng = np.random.default_rng(3)
    good = [_write(tmp_path, f"d{k}.png", render_scene(faces, rng, side=48)[0]) for k, faces in enumerate(([2], [6]))]
    bad = tmp_path / "notimg.jpg"
    bad.write_text("not an image")
    assert cli.main(["dice", "read", good[0], str(bad), good[1], "--json"]) == 2
    out, err = capsys.readouterr()
    lines = [json.loads(x) for x in out.strip().splitlines()]
    assert [x["image"] for x in lines] == [good[0], str(bad), good[1]]
    assert "error" in lines[1] and [d["value"] for d in lines[2]["dice"]] == [6]
    assert "notimg.jpg" in err and "1 of 3 images could not be read" in err


def test_an_image_too_small_to_read_is_named_and_the_batch_goes_on(tmp_path: Path, capsys) -> None:
    """A bad-input audit: `dice read good.png one.png good2.png`, one.png a 1x1 picture, printed only "image
    of 1x1 pixels is too small" and stopped: one.png had no JSON line and the third photo was never read."""
    rng = np.random.default_rng(3)
    good = [_write(tmp_path, f"d{k}.png", render_scene(faces, rng, side=48)[0]) for k, faces in enumerate(([2], [6]))]
    tiny = _write(tmp_path, "one.png", np.zeros((1, 1, 3), np.uint8))
    assert cli.main(["dice", "read", good[0], tiny, good[1], "--json"]) == 2
    out, err = capsys.readouterr()
    lines = [json.loads(x) for x in out.strip().splitlines()]
    assert [x["image"] for x in lines] == [good[0], tiny, good[1]]
    assert "1x1 pixels is too small" in lines[1]["error"] and [d["value"] for d in lines[2]["dice"]] == [6]
    assert "one.png: image of 1x1 pixels is too small" in err and "1 of 3 images could not be read" in err


def test_command_mistakes_are_user_errors(tmp_path: Path, capsys) -> None:
    assert cli.main(["dice", "read", str(tmp_path / "nope.png")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert cli.main(["dice", "read", str(tmp_path), "--die", "skid"]) == 2
    assert "teach it" in capsys.readouterr().err
    assert cli.main(["teach", "dice", "--die", "d6", "--face", "1", "x.png"]) == 2
    assert "without teaching" in capsys.readouterr().err
    assert cli.main(["bench", "dice", "--data", str(tmp_path)]) == 2
    assert "labels.csv" in capsys.readouterr().err


def test_bench_prints_the_issue_figures(tmp_path: Path, capsys) -> None:
    rng = np.random.default_rng(4)
    (tmp_path / "set" / "images").mkdir(parents=True)
    rows = ["image,x_min,y_min,x_max,y_max,value"]
    for k, faces in enumerate(([1, 4], [3, 6, 2])):
        name = f"nell_{k}.png"
        img, placed = render_scene(faces, rng, side=44)
        cv2.imwrite(str(tmp_path / "set" / "images" / name), img)
        for p in placed:
            cx, cy = p.center
            rows.append(f"{name},{int(cx - 25)},{int(cy - 25)},{int(cx + 25)},{int(cy + 25)},{p.face}")
    (tmp_path / "set" / "labels.csv").write_text("\n".join(rows) + "\n")
    assert cli.main(["bench", "dice", "--data", str(tmp_path / "set"), "--json"]) == 0
    fig = json.loads(capsys.readouterr().out)
    for key in ("images", "labelled_dice", "accuracy", "precision", "recall", "unreadable", "false_dice",
                "median_ms", "p95_ms", "peak_memory_mb"):
        assert key in fig and key in fig["per_prefix"]["nell_"]
    assert fig["images"] == 2 and fig["labelled_dice"] == 5
    assert fig["false_dice"] == 0 and fig["precision"] == 1.0
    assert fig["accuracy"] >= 0.8  # the reader may refuse (null) one synthetic die; it must not misread


def test_bench_scores_a_review_beside_the_labels_as_given(tmp_path: Path, capsys) -> None:
    """A wrong label corrected, a missing one added, one removed: the bench prints both scores, and saves
    a crop of every disagreement (against the reviewed labels) for a person to look at."""
    rng = np.random.default_rng(6)
    (tmp_path / "set" / "images").mkdir(parents=True)
    img, placed = render_scene([2, 5, 3], rng, side=44)
    cv2.imwrite(str(tmp_path / "set" / "images" / "nell_0.png"), img)

    def box(p) -> str:
        cx, cy = p.center
        return f"{int(cx - 25)},{int(cy - 25)},{int(cx + 25)},{int(cy + 25)}"

    a, b, c = placed
    (tmp_path / "set" / "labels.csv").write_text(
        "image,x_min,y_min,x_max,y_max,value\n"
        f"nell_0.png,{box(a)},{a.face + 1}\n"         # a wrong value
        f"nell_0.png,{box(b)},{b.face}\n"             # right; c has no label at all
        "nell_0.png,1,1,20,20,4\n")                   # a label where there is no die
    (tmp_path / "review.csv").write_text(
        "image,x_min,y_min,x_max,y_max,value,note\n"
        f"nell_0.png,{box(a)},{a.face},labelled {a.face + 1}\n"
        f"nell_0.png,{box(c)},{c.face},no label\n"
        "nell_0.png,1,1,20,20,,no die there\n")
    crops = tmp_path / "crops"
    assert cli.main(["bench", "dice", "--data", str(tmp_path / "set"), "--json", "--review",
                     str(tmp_path / "review.csv"), "--disagreements", str(crops)]) == 0
    fig = json.loads(capsys.readouterr().out)
    assert fig["labelled_dice"] == 3 and fig["wrong"] == 1 and fig["false_dice"] == 1
    rv = fig["reviewed"]
    assert (rv["corrected"], rv["added"], rv["removed"]) == (1, 1, 1)
    assert rv["overall"]["labelled_dice"] == 3
    assert rv["overall"]["accuracy"] == 1.0 and rv["overall"]["false_dice"] == 0
    assert list(crops.glob("*.png")) == []  # nothing left to disagree about once reviewed

    assert cli.main(["bench", "dice", "--data", str(tmp_path / "set"), "--disagreements", str(crops)]) == 0
    kinds = sorted(p.stem.rsplit("_", 1)[1] for p in crops.glob("*.png"))
    assert kinds == ["false", "missed", "wrong"]
    (tmp_path / "bad.csv").write_text("image,x_min,y_min,x_max,y_max,value,note\nnope.png,1,1,2,2,3,x\n")
    assert cli.main(["bench", "dice", "--data", str(tmp_path / "set"), "--review", str(tmp_path / "bad.csv")]) == 2
    assert "nope.png" in capsys.readouterr().err


def test_undo_holds_a_record_naming_a_face_twice_to_both_counts() -> None:
    """A review: FaceLibrary.undo held each count of [[skid, SHIFT, 1], [skid, SHIFT, 1]] against the face alone;
    with one example left the first removal took the face away and the second ended in KeyError: 'skid'."""
    lib = FaceLibrary()
    lib.add("skid", [("SHIFT", np.zeros((32, 32), np.uint8))])
    lib.teachings = [[("skid", "SHIFT", 1), ("skid", "SHIFT", 1)]]
    with pytest.raises(ValueError, match="skid SHIFT no longer holds the 2 example"):
        lib.undo()
    assert len(lib.examples["skid"]["SHIFT"]) == 1


def test_undo_of_a_die_named_near_a_taught_one_says_which() -> None:
    """An audit: `teach dice --undo --die SKID` had no "did you mean skid?", where teaching has one."""
    lib = FaceLibrary()
    lib.add("skid", [("SHIFT", np.zeros((32, 32), np.uint8))])
    for typed in ("SKID", "skdi"):
        with pytest.raises(ValueError, match=f"nothing to undo for '{typed}': .*did you mean skid\\? teachings"):
            lib.undo(typed)
    with pytest.raises(ValueError) as far:
        lib.undo("bump")
    assert "did you mean" not in str(far.value)
