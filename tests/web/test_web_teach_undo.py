"""The undo the phone's Teach page offers takes back from the library it taught (a review: it named no
--config, so an appliance run with its own config was told a command that undoes in another file)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from device.dice_library_files import save_library
from device.web.teach import Pending, teach
from tools.dice_training.render import render_scene
from vision.dice import FaceLibrary


def _crop(face: str, seed: int) -> np.ndarray:
    return render_scene([face], np.random.default_rng(seed), side=56)[0]


def _library(path: Path) -> None:
    lib = FaceLibrary()
    for seed, face in enumerate(["SHIFT", "SHIFT", "HAZARD", "HAZARD"], start=10):
        lib.teach("skid", face, _crop(face, seed))
    save_library(lib, path)


def test_the_offered_undo_names_the_config_the_appliance_runs_with(tmp_path: Path) -> None:
    faces = tmp_path / "my-faces.json"
    _library(faces)
    cfg = tmp_path / "table.toml"
    cfg.write_text(f'[vision]\nfaces = "{faces}"\n')
    wrong = Pending(crop=_crop("HAZARD", 21), png=b"", dice=1, die="skid", face="SHIFT", at=0.0)  # the wrong die
    _, message = teach(wrong, faces, str(cfg))
    assert "looks like skid HAZARD" in message
    assert ("take it back with the page's Undo the last teaching (or "
            f"`pitboard teach dice --undo --die skid --config {cfg}`)") in message
    _library(faces)
    _, message = teach(wrong, faces, None)  # the default config: nothing to add
    assert "(or `pitboard teach dice --undo --die skid`)" in message


def test_a_library_the_system_will_not_let_be_written_is_a_refusal_not_a_500(tmp_path: Path, monkeypatch) -> None:
    """An audit: with faces.json's folder read-only, the page's "Add to the face library" answered 500 Internal
    Server Error (the save's refusal was not a ValueError); the phone is told what the command line says."""
    import errno
    import os

    import pytest

    faces = tmp_path / "faces.json"
    _library(faces)
    before = faces.read_bytes()

    def refuse(src, dst):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(dst))

    monkeypatch.setattr(os, "replace", refuse)
    item = Pending(crop=_crop("SHIFT", 22), png=b"", dice=1, die="skid", face="SHIFT", at=0.0)
    with pytest.raises(ValueError, match="the crop was not taught: cannot write .*mounted read-only"):
        teach(item, faces, None)
    assert faces.read_bytes() == before


def test_the_new_die_note_never_offers_a_name_the_page_refuses(tmp_path: Path) -> None:
    """An audit: with a library holding only 'skdi' (renamed by hand), a crop of skid was told "'skid' is a new
    die: the face library knows skdi; if you meant one of those, correct the name", and 'skdi' is refused by the
    page ("no game here rolls a die called 'skdi'")."""
    import json

    from device.web.teach import new_die_note

    faces = tmp_path / "faces.json"
    _library(faces)
    faces.write_text(faces.read_text().replace('"skid"', '"skdi"'))
    assert "skdi" in json.loads(faces.read_text())["dice"]
    note = new_die_note("skid", faces)
    assert "knows skdi" not in note and "no game rolls the die 'skdi' (did you mean skid?)" in note, note
