"""The learned d6 reader (vision/dice/net.py): its weights, its pre- and post-processing, and how
``read_dice`` uses it.  Accuracy on the real photos is in test_dice_real.py and ``pitboard bench dice``."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.dice as vd
from vision.dice import net, read_dice
from tools.dice_training.render import render_scene


def test_weights_are_small_and_load() -> None:
    weights = (net.DETECTOR, net.READER, net.SECOND_READER)
    assert sum(p.stat().st_size for p in weights) <= 10_000_000  # 4.3 MB since round 20 (the 2x first reader int8; 9.0 MB in fp32)
    assert vd.check_models() == []
    assert net.available() and net.session(net.SECOND_READER) is not None


def test_the_classical_reader_and_the_training_code_are_gone() -> None:
    """One d6 reader: no pips/bodies/verifier modules, no module-level switches to another path, and
    no training code (torch) in the installed package."""
    from pathlib import Path

    here = Path(vd.__file__).parent
    assert sorted(p.name for p in here.glob("*.py")) == ["__init__.py", "faces.py", "net.py", "scale.py",
                                                         "scoring.py"]
    assert not list(here.glob("verifier*")) and not list(here.glob("train*"))
    for flag in ("LEARNED", "USE_VERIFIER", "BLOB_PROPOSALS", "BODY_READ", "TABLE_MIN"):
        assert not hasattr(vd, flag), flag
    for path in here.glob("*.py"):
        assert "torch" not in path.read_text("utf-8"), path


def _fresh_sessions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(net, "_sessions", {})
    monkeypatch.setattr(net, "_failures", {})


def test_a_missing_model_is_a_clear_error_naming_the_file(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    rng = np.random.default_rng(3)
    img, _ = render_scene([4], rng, side=50)
    gone = tmp_path / "detector.onnx"
    _fresh_sessions(monkeypatch)
    monkeypatch.setattr(net, "DETECTOR", gone)
    monkeypatch.setattr(net, "REQUIRED", (gone, net.READER, net.SECOND_READER))
    (problem,) = vd.check_models()
    assert str(gone) in problem and "missing" in problem and "reinstall" in problem
    with pytest.raises(vd.ModelError, match="detector.onnx is missing"):
        read_dice(img)


def test_a_damaged_model_is_a_clear_error_naming_the_file(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    bad = tmp_path / "reader.onnx"
    bad.write_bytes(b"not a network")
    _fresh_sessions(monkeypatch)
    monkeypatch.setattr(net, "READER", bad)
    monkeypatch.setattr(net, "REQUIRED", (net.DETECTOR, bad, net.SECOND_READER))
    (problem,) = vd.check_models()
    assert str(bad) in problem and "cannot be loaded" in problem
    with pytest.raises(vd.ModelError, match="reader.onnx cannot be loaded"):
        net.load()


@pytest.mark.parametrize("role, other", [("READER", "DETECTOR"), ("SECOND_READER", "DETECTOR"),
                                         ("DETECTOR", "READER")])
def test_the_other_network_copied_over_a_model_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path, capsys,
                                                                 role: str, other: str) -> None:
    """The audit: the detector copied over reader.onnx loaded, `pitboard check` said "OK models", and reading
    died with onnxruntime's "Got: 32 Expected: 64"; over reader2.onnx it read dice with the wrong network,
    silently.  A file whose inputs and outputs are not its role's is named at start, like a damaged one."""
    import shutil

    wrong = tmp_path / getattr(net, role).name
    shutil.copyfile(getattr(net, other), wrong)
    _fresh_sessions(monkeypatch)
    monkeypatch.setattr(net, role, wrong)
    monkeypatch.setattr(net, "REQUIRED", (net.DETECTOR, net.READER, net.SECOND_READER))
    (problem,) = vd.check_models()
    kind = "detector" if role == "DETECTOR" else "reader"
    assert str(wrong) in problem and f"loads but is not a dice {kind}" in problem and "reinstall" in problem
    with pytest.raises(vd.ModelError, match=f"not a dice {kind}"):
        net.load()
    # `pitboard dice read` says it before the first image, not a traceback in the middle of a reading
    import device.cli as cli

    img, _ = render_scene([4], np.random.default_rng(3), side=50)
    photo = tmp_path / "roll.png"
    cv2.imwrite(str(photo), img)
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    capsys.readouterr()
    assert cli.main(["dice", "read", str(photo)]) == 2
    err = capsys.readouterr().err
    assert f"not a dice {kind}" in err and "Traceback" not in err


def test_the_reader_looks_again_only_where_unsure_and_asks_the_second_reader_last(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """One look at every die; the three other quarter turns only for the dice the first look is not
    sure of (SURE_AT_ONE_LOOK); the second reader only where the four looks are still unsure."""
    rng = np.random.default_rng(5)
    img, placed = render_scene([2, 5, 6], rng, side=48)
    dets = [(d.center, float(d.side)) for d in placed]
    one_look = np.array([[0.0, 0.0, 0.99, 0.01, 0, 0, 0], [0, 0, 0, 0, 0.6, 0.4, 0], [0, 0, 0, 0, 0, 0.1, 0.9]])
    three_looks = {  # the mean of turns 1-3 for the two dice looked at again
        1: np.array([[0, 0, 0, 0, 0.4, 0.6, 0], [0, 0, 0, 0, 0, 0.0, 1.0]]),
        2: np.array([[0, 0, 0, 0, 0.1, 0.9, 0]]),  # the second reader, on the one die still unsure
    }
    calls: list[tuple[int, tuple[int, ...], object]] = []

    def fake(sess, batch, turns=range(net.TTA_TURNS)):
        calls.append((len(batch), tuple(turns), sess))
        return (one_look if len(calls) == 1 else three_looks[len(calls) - 1]).copy()

    monkeypatch.setattr(net, "turned_probabilities", fake)
    p = net.read(img, dets)
    first, second = net.session(net.READER), net.session(net.SECOND_READER)
    assert calls == [(3, (0,), first), (2, (1, 2, 3), first), (1, (0, 1, 2, 3), second)]
    assert p[0] == pytest.approx(one_look[0])  # sure at one look
    assert p[2] == pytest.approx([0, 0, 0, 0, 0, 0.025, 0.975])  # (0.9 + 3 x 1.0) / 4: sure after four
    four = (one_look[1] + 3 * three_looks[1][0]) / 4  # 0.45 / 0.55: still unsure
    assert p[1] == pytest.approx((four + three_looks[2][0]) / 2)


def test_decode_finds_each_peak_once_in_input_pixels() -> None:
    g = np.zeros((20, 30), np.float32)
    g[5, 7] = 0.9
    g[5, 8] = 0.85   # the same die, the neighbouring cell: not a second die
    g[15, 20] = 0.5
    g[2, 25] = 0.2   # below the threshold
    size = np.full_like(g, math.log(10.0))
    off = np.zeros((2, *g.shape), np.float32)
    off[:, 15, 20] = (0.25, -0.25)
    dets = net.decode(g, size, off, scale=0.5, threshold=0.3)
    assert len(dets) == 2
    a, b = dets
    assert a.score == pytest.approx(0.9) and b.score == pytest.approx(0.5)
    s = net.STRIDE / 0.5
    assert a.center == pytest.approx(((7 + 0.5) * s, (5 + 0.5) * s))
    assert b.center == pytest.approx(((20 + 0.75) * s, (15 + 0.25) * s))
    assert a.size == pytest.approx(20.0)  # 10 detector pixels at half scale


def test_reader_crop_is_centred_on_the_die_and_turns_about_it() -> None:
    img = np.full((200, 300, 3), 200, np.uint8)
    cv2.circle(img, (120, 80), 3, (0, 0, 0), -1)
    for angle in (0.0, 37.0, 90.0):
        crop = net.reader_crop(img, (120.0, 80.0), 30.0, angle)
        assert crop.shape == (net.SIZE, net.SIZE, 3)
        ys, xs = np.nonzero(crop[..., 0] < 100)
        assert abs(xs.mean() - (net.SIZE - 1) / 2) < 1.0 and abs(ys.mean() - (net.SIZE - 1) / 2) < 1.0


def test_reader_gives_probabilities_for_each_die() -> None:
    rng = np.random.default_rng(5)
    img, placed = render_scene([2, 5], rng, side=48)
    p = net.read(img, [(d.center, float(d.side)) for d in placed])
    assert p.shape == (2, net.CLASSES)
    assert np.allclose(p.sum(axis=1), 1.0, atol=1e-4)
    assert net.read(img, []).shape == (0, net.CLASSES)


@pytest.mark.parametrize("seed", [101, 102])
def test_detector_finds_rendered_dice_and_nothing_else(seed: int) -> None:
    rng = np.random.default_rng(seed)
    found = total = 0
    for k in range(6):
        faces = [int(v) for v in rng.integers(1, 7, 4)]
        body = ((235, 235, 235), (30, 30, 200), (40, 40, 40))[k % 3]
        ink = (20, 20, 20) if k % 3 == 0 else (240, 240, 240)
        img, placed = render_scene(faces, rng, side=int(rng.integers(30, 56)), body=body, ink=ink,
                                   table=(150, 120, 90))
        dets = net.detect(img)
        total += len(placed)
        found += sum(any(math.hypot(d.center[0] - p.center[0], d.center[1] - p.center[1]) < 0.3 * p.side
                         for d in dets) for p in placed)
        for d in dets:
            assert any(math.hypot(d.center[0] - p.center[0], d.center[1] - p.center[1]) < 0.5 * p.side
                       for p in placed), d
    assert found >= total - 1, (found, total)


def test_an_unsure_reader_gives_null_not_a_guess(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(8)
    img, placed = render_scene([3, 6], rng, side=50)
    unsure = np.array([[0.05, 0.05, 0.3, 0.4, 0.1, 0.05, 0.05], [0.9, 0.02, 0.02, 0.02, 0.02, 0.01, 0.01]])
    monkeypatch.setattr(net, "read", lambda image, dets, first_look=None: unsure[:len(dets)])
    readings = read_dice(img)
    assert len(readings) == 1  # the second detection is "not a die" and is dropped
    assert readings[0].value is None and readings[0].confidence == 0.0


def test_a_die_with_no_value_is_reported_only_when_it_looks_like_a_die(monkeypatch: pytest.MonkeyPatch) -> None:
    """A leaning die reads as an even spread with "not a die" near 0 and is reported null; a keyboard key
    that spreads its probability over "not a die" and the values, or a faint detector peak, is not a die
    anyone rolled (the matteo_ photos' clutter, a tray's printed lines)."""
    from vision.dice import NULL_DETECT_P, NULL_NOT_A_DIE_P, scale

    leaning = [0.02] + [0.98 / 6] * 6
    clutter = [NULL_NOT_A_DIE_P + 0.05] + [(0.95 - NULL_NOT_A_DIE_P) / 6] * 6
    dets = [net.Detection((40.0, 40.0), 30.0, 0.8), net.Detection((120.0, 40.0), 30.0, 0.8),
            net.Detection((200.0, 40.0), 30.0, NULL_DETECT_P - 0.05)]
    monkeypatch.setattr(scale, "detect", lambda image, die_px=None: (dets, {}))
    monkeypatch.setattr(net, "read", lambda image, ds, first_look=None: np.array([leaning, clutter, leaning]))
    readings = read_dice(np.full((80, 240, 3), 90, np.uint8))
    assert [(r.center, r.value) for r in readings] == [((40.0, 40.0), None)]


def test_a_network_with_named_or_unknown_sizes_is_not_refused_for_them() -> None:
    """The review: a reader exported with named sizes (['n', 3, 'h', 'w']) or none recorded was refused as "its
    input is hxw"; only a size that is a number and the wrong one is held against a network."""
    from types import SimpleNamespace as NS

    def sess(inp, out, n_out=1):
        return NS(get_inputs=lambda: [NS(name="x", shape=inp)], get_outputs=lambda: [NS(shape=out)] * n_out)

    assert net._wrong_network(sess(["n", 3, "h", "w"], ["n", "k"]), "reader") is None
    assert net._wrong_network(sess([], []), "reader") is None
    assert net._wrong_network(sess(["n", "c", 64, 64], ["n", 7]), "reader") is None
    assert "32x32" in net._wrong_network(sess(["n", 3, 32, 32], ["n", 7]), "reader")
    assert "7 classes" in net._wrong_network(sess(["n", 3, 64, 64], ["n", 5]), "reader")
    assert net._wrong_network(sess([1, 3, "h", "w"], [1, 1, "gh", "gw"], n_out=3), "detector") is None
    assert "3 (heat map" in net._wrong_network(sess([1, 3, "h", "w"], ["n", 7]), "detector")


def test_the_shipped_models_are_the_files_their_sums_name() -> None:
    """vision/dice/models.sha256 lists each shipped weights file's SHA-256: rebuilt weights copied in without
    recording their sums fail here (tools/dice_training/README.md says how to record them), not at the table."""
    import hashlib

    for path in net.REQUIRED:
        line = next(ln for ln in net.SUMS.read_text("utf-8").splitlines() if ln.split()[1] == path.name)
        assert hashlib.sha256(path.read_bytes()).hexdigest() == line.split()[0], path.name


def _package_copy(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """The package's weights folder copied to ``tmp_path`` and used in its place (the tests damage the copy)."""
    import shutil

    for path in (*net.REQUIRED, net.SUMS):
        shutil.copyfile(path, tmp_path / path.name)
    _fresh_sessions(monkeypatch)
    monkeypatch.setattr(net, "HERE", tmp_path)
    monkeypatch.setattr(net, "SUMS", tmp_path / net.SUMS.name)
    for role in ("DETECTOR", "READER", "SECOND_READER"):
        monkeypatch.setattr(net, role, tmp_path / getattr(net, role).name)
    monkeypatch.setattr(net, "REQUIRED", (net.DETECTOR, net.READER, net.SECOND_READER))


def test_a_model_changed_on_the_card_is_named_not_read_with(monkeypatch: pytest.MonkeyPatch, tmp_path, capsys) -> None:
    """The audit: 2,000 bytes flipped in reader.onnx's weights, the file still loaded: `pitboard check` said "OK
    models" and `dice read` read a die showing 1 as 4 (the bench: accuracy 0.000).  A shipped file that is not the
    one shipped is named at start, with what to do."""
    _package_copy(monkeypatch, tmp_path)
    assert vd.check_models() == []  # the copy as shipped is sound
    _fresh_sessions(monkeypatch)
    data = bytearray(net.READER.read_bytes())
    mid = len(data) // 2
    data[mid:mid + 2000] = bytes(b ^ 0x55 for b in data[mid:mid + 2000])
    net.READER.write_bytes(bytes(data))
    import onnxruntime as ort

    ort.InferenceSession(bytes(data), providers=["CPUExecutionProvider"])  # it still loads: only the sum tells
    (problem,) = vd.check_models()
    assert str(net.READER) in problem and "is not the file Pitboard shipped" in problem and "reinstall" in problem
    assert f"(cd {tmp_path} && sha256sum detector.onnx reader.onnx reader2.onnx > models.sha256)" in problem
    import device.cli as cli

    img, _ = render_scene([4], np.random.default_rng(3), side=50)
    photo = tmp_path / "roll.png"
    cv2.imwrite(str(photo), img)
    capsys.readouterr()
    assert cli.main(["dice", "read", str(photo)]) == 2
    assert "is not the file Pitboard shipped" in capsys.readouterr().err


def test_a_folder_where_a_model_belongs_and_a_missing_sums_list_are_named(monkeypatch: pytest.MonkeyPatch,
                                                                        tmp_path) -> None:
    """The audit: a folder in reader2.onnx's place was reported "missing", advice that cannot be followed while
    the folder is in the way."""
    _package_copy(monkeypatch, tmp_path)
    net.SECOND_READER.unlink()
    net.SECOND_READER.mkdir()
    (problem,) = vd.check_models()
    assert f"{net.SECOND_READER} is a folder, not the file: move that folder away" in problem, problem
    _fresh_sessions(monkeypatch)
    net.SUMS.unlink()
    problems = vd.check_models()
    assert len(problems) == 3 and f"the list of the dice models' sums {net.SUMS} is missing" in problems[0], problems


def test_a_changed_model_is_named_however_its_path_is_spelled(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """A review: the sum was checked only for a path spelled exactly as the package's folder; `.../dice/../dice/
    reader.onnx` loaded a changed file unchecked.  The offered command quotes the folder for a shell."""
    folder = tmp_path / "the models"
    folder.mkdir()
    _package_copy(monkeypatch, folder)
    data = bytearray(net.READER.read_bytes())
    data[len(data) // 2] ^= 0x55
    net.READER.write_bytes(bytes(data))
    crooked = folder / ".." / "the models" / "reader.onnx"
    monkeypatch.setattr(net, "READER", crooked)
    monkeypatch.setattr(net, "REQUIRED", (net.DETECTOR, crooked, net.SECOND_READER))
    (problem,) = vd.check_models()
    assert "is not the file Pitboard shipped" in problem, problem
    assert f"(cd '{folder}' && sha256sum detector.onnx reader.onnx reader2.onnx > models.sha256)" in problem


def test_a_link_in_a_models_place_is_checked_and_a_loop_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """A review: reader.onnx as a link to a changed file elsewhere loaded unchecked (the link's target was judged
    by its own folder), and a link to itself at detector.onnx ended `pitboard check` in a RuntimeError."""
    import os

    folder = tmp_path / "models"
    folder.mkdir()
    _package_copy(monkeypatch, folder)
    data = bytearray(net.READER.read_bytes())
    data[len(data) // 2] ^= 0x55
    (tmp_path / "elsewhere.onnx").write_bytes(bytes(data))
    net.READER.unlink()
    os.symlink(tmp_path / "elsewhere.onnx", net.READER)
    net.DETECTOR.unlink()
    os.symlink(net.DETECTOR.name, net.DETECTOR)
    problems = vd.check_models()
    assert len(problems) == 2 and "is not the file Pitboard shipped" in problems[1], problems


@pytest.mark.parametrize("link", ["loop", "dangling"])
def test_check_names_a_broken_link_in_a_models_place(monkeypatch: pytest.MonkeyPatch, tmp_path, link: str) -> None:
    """An audit: a link that loops (or leads nowhere) at detector.onnx ended `pitboard check`, and the appliance
    at start, in OSError: the models' listing looked at each file's size before the check that names it."""
    import os

    from device.cli_device import model_problems, report_models

    folder = tmp_path / "models"
    folder.mkdir()
    _package_copy(monkeypatch, folder)
    monkeypatch.setattr(vd, "__file__", str(folder / "__init__.py"))
    net.DETECTOR.unlink()
    os.symlink(net.DETECTOR.name if link == "loop" else str(tmp_path / "gone.onnx"), net.DETECTOR)
    line = report_models()
    assert line.status == "FAIL" and str(net.DETECTOR) in line.detail, line
    _fresh_sessions(monkeypatch)
    (problem,) = model_problems()
    assert problem.short == "DICE MODELS BROKEN" and str(net.DETECTOR) in problem.message


@pytest.mark.parametrize(("machine", "flags", "fused"), [
    ("x86_64", "fpu sse2 avx2 fma", False),  # AVX2 alone: u8 by s8 pairs saturate 16 bits
    ("x86_64", "fpu avx2 avx512f avx512bw", False),  # AVX-512 without VNNI: the same kernels
    ("x86_64", "fpu avx2 avx512f avx512_vnni", True),
    ("x86_64", "fpu avx2 avx_vnni", True),
    ("aarch64", "", True),  # the Pi: ARM's int8 kernels widen, as measured under emulation
    ("x86_64", None, False),  # no /proc/cpuinfo: not known, not fused
])
def test_the_int8_reader_runs_fused_only_where_its_kernels_read_as_measured(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, machine: str, flags: str | None, fused: bool) -> None:
    """A fresh machine with AVX2 and no VNNI read the rendered trays' dice 0.873 where 0.913 was measured (the
    fused u8 x s8 kernels saturate 16-bit sums there); run as written (quantise, dequantise, fp32) they read as
    measured.  ARM and VNNI CPUs keep the fused kernels' speed."""
    import vision.dice.net as net

    cpuinfo = tmp_path / "cpuinfo"
    if flags is not None:
        cpuinfo.write_text(f"processor\t: 0\nflags\t\t: {flags}\n")
    monkeypatch.setattr(net, "CPUINFO", cpuinfo)
    monkeypatch.setattr(net.platform, "machine", lambda: machine)
    assert net.fused_int8_reads_right() is fused
