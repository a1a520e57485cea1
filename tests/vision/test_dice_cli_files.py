"""The dice commands given the files a user really has (an outside audit, 2026-12-05): a bench folder with a
bad picture in it or a spreadsheet's CSV, a teaching with several bad files or one file twice, a picture of
several pages, a picture with nothing in it.  Each is named with what to do; nothing recorded is changed."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import device.cli as cli
from tools.dice_training.render import render_scene

from test_dice_library_cli import data_dir  # noqa: F401  (autouse: its own data folder, the dice commands)


def _bench_folder(tmp_path: Path, seed: int = 4) -> Path:
    """A labelled folder of two rendered photos (nell_0.png, nell_1.png), as ../shared/data/dice-real is laid out."""
    rng = np.random.default_rng(seed)
    folder = tmp_path / "set"
    (folder / "images").mkdir(parents=True)
    rows = ["image,x_min,y_min,x_max,y_max,value"]
    for k, faces in enumerate(([1, 4], [3, 6])):
        name = f"nell_{k}.png"
        img, placed = render_scene(faces, rng, side=44)
        cv2.imwrite(str(folder / "images" / name), img)
        for p in placed:
            cx, cy = p.center
            rows.append(f"{name},{int(cx - 25)},{int(cy - 25)},{int(cx + 25)},{int(cy + 25)},{p.face}")
    (folder / "labels.csv").write_text("\n".join(rows) + "\n")
    return folder


def test_bench_names_every_image_it_cannot_read_before_reading_any(tmp_path: Path, capsys) -> None:
    """Before: a 1x1 picture ended the bench in a traceback (ValueError: image of 1x1 pixels is too small), and
    a bad file stopped it at the first in name order, the others unnamed and every figure lost."""
    folder = _bench_folder(tmp_path)
    cv2.imwrite(str(folder / "images" / "one.png"), np.zeros((1, 1, 3), np.uint8))
    (folder / "images" / "zero.jpg").write_bytes(b"")
    (folder / "images" / "text.jpg").write_text("not a picture")
    with (folder / "labels.csv").open("a") as fh:
        for name in ("one.png", "text.jpg", "zero.jpg"):
            fh.write(f"{name},1,1,20,20,3\n")
    assert cli.main(["bench", "dice", "--data", str(folder), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # no figures of a part of the folder
    assert "3 of the 5 labelled images cannot be read, so no figures were measured" in err, err
    assert "one.png of 1x1 pixels is too small to read dice from" in err
    assert "zero.jpg is empty (0 bytes)" in err and "text.jpg is not an image Pitboard can read" in err
    assert "remove them and their lines from" in err and "Traceback" not in err


def test_bench_at_scales_names_a_picture_too_small_at_a_scale_asked(tmp_path: Path, capsys) -> None:
    folder = _bench_folder(tmp_path)
    cv2.imwrite(str(folder / "images" / "strip.png"), np.full((20, 400, 3), 90, np.uint8))
    with (folder / "labels.csv").open("a") as fh:
        fh.write("strip.png,1,1,19,19,3\n")
    assert cli.main(["bench", "dice", "--data", str(folder), "--scales", "0.5,1", "--json"]) == 2
    err = capsys.readouterr().err
    assert "strip.png of 400x20 pixels is too small to read dice from at --scales 0.5" in err, err


def test_a_labels_file_saved_by_a_spreadsheet_is_read(tmp_path: Path, capsys) -> None:
    """Excel's "CSV UTF-8" starts with a byte-order mark and ends lines with CRLF: the bench ended in
    KeyError: 'image'."""
    folder = _bench_folder(tmp_path)
    text = (folder / "labels.csv").read_text()
    (folder / "labels.csv").write_bytes("\ufeff".encode() + text.replace("\n", "\r\n").encode())
    cv2.imwrite(str(folder / "images" / "unlabelled.png"), np.full((64, 64, 3), 90, np.uint8))
    assert cli.main(["bench", "dice", "--data", str(folder), "--json"]) == 0
    fig = json.loads(capsys.readouterr().out)
    assert fig["images"] == 2 and fig["labelled_dice"] == 4
    assert fig["images_without_labels"] == 1  # said, not skipped without a word
    assert cli.main(["bench", "dice", "--data", str(folder)]) == 0
    assert "not read: 1 file(s) in" in capsys.readouterr().out


def test_a_labels_file_labelling_nothing_is_refused_not_scored_zero(tmp_path: Path, capsys) -> None:
    """Before: a header-only labels.csv gave accuracy 0.0 with exit 0."""
    folder = _bench_folder(tmp_path)
    (folder / "labels.csv").write_text("image,x_min,y_min,x_max,y_max,value\n")
    assert cli.main(["bench", "dice", "--data", str(folder), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "labels.csv labels no image" in err, err


def test_teaching_names_every_file_it_cannot_read_and_teaches_nothing(tmp_path: Path, data_dir: Path,  # noqa: F811
                                                                     capsys) -> None:
    """Before: only the first bad file was named, and the message did not say the library was unchanged."""
    good = tmp_path / "shift.png"
    cv2.imwrite(str(good), render_scene(["SHIFT"], np.random.default_rng(3), side=56)[0])
    assert cli.main(["teach", "dice", "--die", "skid", "--face", "SHIFT", str(good)]) == 0
    library = data_dir / "faces.json"
    before = library.read_bytes()
    capsys.readouterr()
    (tmp_path / "zero.jpg").write_bytes(b"")
    (tmp_path / "text.jpg").write_text("not a picture")
    code = cli.main(["teach", "dice", "--die", "skid", "--face", "SHIFT", str(good), str(tmp_path / "zero.jpg"),
                     str(tmp_path / "text.jpg")])
    err = capsys.readouterr().err
    assert code == 2
    assert "zero.jpg is empty (0 bytes)" in err and "text.jpg is not an image Pitboard can read" in err, err
    assert f"Nothing was taught; {library} is unchanged" in err
    assert library.read_bytes() == before


def test_one_picture_given_twice_is_not_taught_as_two_examples(tmp_path: Path, data_dir: Path,  # noqa: F811
                                                               capsys) -> None:
    good = tmp_path / "shift.png"
    cv2.imwrite(str(good), render_scene(["SHIFT"], np.random.default_rng(3), side=56)[0])
    same = tmp_path / "sub" / ".." / "shift.png"
    (tmp_path / "sub").mkdir()
    assert cli.main(["teach", "dice", "--die", "skid", "--face", "SHIFT", str(good), str(same)]) == 2
    err = capsys.readouterr().err
    assert f"{same} is given twice (as {good} too)" in err and "Nothing was taught" in err, err
    assert not (data_dir / "faces.json").exists()


def test_a_picture_of_several_pages_is_refused_not_read_as_its_first(tmp_path: Path, capsys) -> None:
    """Before: a TIFF of two photos read the first one's dice only, exit 0; the second's were never mentioned."""
    from PIL import Image

    pages = [Image.fromarray(cv2.cvtColor(render_scene(f, np.random.default_rng(k), side=48)[0], cv2.COLOR_BGR2RGB))
             for k, f in enumerate(([2], [5, 6]))]
    path = tmp_path / "both.tif"
    pages[0].save(path, save_all=True, append_images=pages[1:])
    assert cli.main(["dice", "read", str(path), "--json"]) == 2
    out, err = capsys.readouterr()
    assert "both.tif holds several pictures (2 pages)" in err, err
    assert json.loads(out)["error"].startswith(f"image {path} holds several pictures")


def test_no_dice_on_a_black_picture_says_it_is_no_empty_tray(tmp_path: Path, capsys) -> None:
    black = tmp_path / "black.png"
    cv2.imwrite(str(black), np.zeros((240, 320, 3), np.uint8))
    grey = tmp_path / "felt.png"
    rng = np.random.default_rng(5)
    cv2.imwrite(str(grey), (rng.normal(90, 12, (240, 320, 3))).clip(0, 255).astype(np.uint8))
    assert cli.main(["dice", "read", str(black), str(grey)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "black.png: no dice (the picture is all black: a lens covered or capped" in out[0], out
    assert "felt.png: no dice  (" in out[1], out  # an empty tray: nothing more to say
    assert cli.main(["dice", "read", str(black), "--json"]) == 0
    assert "all black" in json.loads(capsys.readouterr().out)["note"]


def test_a_review_saved_by_a_spreadsheet_is_read_and_a_bad_one_refused_before_any_image_is(tmp_path: Path,
                                                                                           capsys, monkeypatch) -> None:
    """A review: --review had none of labels.csv's mends (a byte-order mark made every line "not image,..."),
    and a bad review was told only after the timed and memory passes had read every image."""
    import device.cli_dice as cli_dice

    folder = _bench_folder(tmp_path)
    first = (folder / "labels.csv").read_text().splitlines()[1]
    review = tmp_path / "review.csv"
    review.write_bytes("\ufeffimage,x_min,y_min,x_max,y_max,value,note\r\n".encode() + f"{first},seen\r\n".encode())
    assert cli.main(["bench", "dice", "--data", str(folder), "--json", "--review", str(review)]) == 0
    assert json.loads(capsys.readouterr().out)["reviewed"]["corrected"] == 1
    read: list[str] = []
    monkeypatch.setattr(cli_dice, "read_dice", lambda img, **kw: read.append("x") or [])
    review.write_text("image,x_min,y_min,x_max,y_max,value,note\nnope.png,1,1,2,2,3,x\n")
    assert cli.main(["bench", "dice", "--data", str(folder), "--review", str(review)]) == 2
    assert "no image 'nope.png' in the labels" in capsys.readouterr().err
    assert read == []  # told before any image was read



def test_dice_read_too_small_to_read_well_are_said_beside_their_values(tmp_path: Path, capsys) -> None:
    """An audit: a photo at a quarter of its size (dice of ~9 px) read "2" where five dice lay, and said nothing,
    where the appliance and ``pitboard check`` say dice under 20 px are often not read.  A dev photo of
    ``../shared/data/dice-real`` (dice of ~37 px), whole and at a quarter."""
    import os
    import zlib

    dice = Path(os.environ.get("PITBOARD_SHARED_DATA", Path(__file__).resolve().parents[2].parent / "shared" / "data"))
    if not (dice / "dice-real" / "labels.csv").is_file():
        pytest.skip(f"real dice photos not found at {dice / 'dice-real'}")
    name = next(n for n in sorted(os.listdir(dice / "dice-real" / "images"))
                if n.startswith("nell_") and zlib.crc32(n.encode()) % 5 != 0)  # not the held-out split
    img = cv2.imread(str(dice / "dice-real" / "images" / name))
    cv2.imwrite(str(tmp_path / "whole.png"), img)
    cv2.imwrite(str(tmp_path / "small.png"), cv2.resize(img, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA))
    assert cli.main(["dice", "read", str(tmp_path / "whole.png"), str(tmp_path / "small.png"), "--json"]) == 0
    whole, tiny = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert whole["dice"] and "note" not in whole  # dice of ~37 px: nothing to say
    assert tiny["dice"] and "under 20 px some are missed or misread" in tiny["note"], tiny
    assert cli.main(["dice", "read", str(tmp_path / "small.png")]) == 0
    assert "photograph them closer or at a larger size" in capsys.readouterr().out
